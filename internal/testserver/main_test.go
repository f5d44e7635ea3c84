package testserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain doubles as the child server's entry point: child_test.go starts
// this test binary again with MCPACTOR_TESTSERVER=1. Otherwise it runs the
// tests and checks that no goroutine outlives them, Serve's included.
func TestMain(m *testing.M) {
	RunIfChild()
	goleak.VerifyTestMain(m)
}
