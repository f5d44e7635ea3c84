package devetcd

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a goroutine outlives the tests: Stop leaves
// none of etcd's running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
