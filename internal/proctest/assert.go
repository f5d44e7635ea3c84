package proctest

import (
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// WaitChild waits (within harness.Bound) for the child of this process
// whose environment holds entry ("K=V") to appear, and returns its pid.
//
// Off Linux it skips t, saying so: a test that must find its server's
// process cannot run without /proc.
func WaitChild(t testing.TB, entry string) int {
	t.Helper()
	if !haveProc {
		t.Skip(linuxOnly)
	}
	var pid int
	harness.WaitFor(t, "the child in /proc", func() bool {
		pid = ChildWithEnv(entry)
		return pid != 0
	})
	return pid
}

// AssertGone fails t unless process pid no longer exists (it was reaped).
func AssertGone(t testing.TB, pid int) {
	t.Helper()
	if !haveGone {
		t.Skip(unixOnly)
	}
	if gone, err := Gone(pid); !gone {
		t.Errorf("process %d still exists (kill 0: %v)", pid, err)
	}
}

// WaitGone waits (within harness.Bound) for process pid to have been
// reaped, for ends that finish on their own time (a forced close, a
// panic's cleanup).
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	if !haveGone {
		t.Skip(unixOnly)
	}
	harness.WaitFor(t, "the process to be reaped", func() bool {
		gone, _ := Gone(pid)
		return gone
	})
}

// The reasons a test is skipped off the platforms it needs.
const (
	linuxOnly = "Linux only: this test finds its server's process in /proc"
	unixOnly  = "Unix only: this test checks a process was reaped with kill(pid, 0)"
)
