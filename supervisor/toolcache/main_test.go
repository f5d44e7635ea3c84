package toolcache

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a goroutine outlives the tests (the writers
// of TestCacheAtomicWrite).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
