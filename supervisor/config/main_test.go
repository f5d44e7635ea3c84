package config

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a goroutine outlives the tests (a !command's
// process, a token refresh).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
