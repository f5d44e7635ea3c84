package oauth

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain doubles as the child process of TestFileStoreProcesses, and
// fails the run if a goroutine (a refresh in flight, a loopback listener)
// outlives the tests.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(childIncrements(dir))
	}
	goleak.VerifyTestMain(m)
}
