package transport

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestMain doubles as the test server: the fault tests start this binary
// again with MCPACTOR_TESTSERVER=1 and talk to it over real pipes. Every
// test must leave no goroutine behind.
func TestMain(m *testing.M) {
	testserver.RunIfChild()
	goleak.VerifyTestMain(m)
}
