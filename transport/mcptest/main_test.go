package mcptest_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestMain doubles as the Stdio servers: Stdio starts this binary again,
// and RunIfChild turns it into the server named. Every test must leave
// no goroutine behind, the in-process servers' included.
func TestMain(m *testing.M) {
	mcptest.RunIfChild(stdioServers)
	goleak.VerifyTestMain(m)
}
