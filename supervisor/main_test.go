package supervisor_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestMain lets this test binary double as our test server (the manager's
// tests start it as their servers) and fails the run if a goroutine
// outlives the tests.
func TestMain(m *testing.M) {
	testserver.RunIfChild()
	goleak.VerifyTestMain(m)
}
