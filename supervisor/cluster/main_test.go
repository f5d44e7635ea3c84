package cluster

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestMain lets this test binary be every process of a test cluster: an
// MCP test server (testserver.RunIfChild), the embedded etcd, or a member
// (runChild, on Linux). Otherwise it runs the tests, stops the shared
// etcd, and fails the run if any goroutine outlives them.
func TestMain(m *testing.M) {
	testserver.RunIfChild()
	runChild()
	code := m.Run()
	stopSharedEtcd()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
