//go:build linux

// These tests start processes in a group of their own and read /proc:
// Linux only.

package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// start runs name with args in a process group of its own, its environment
// marked with a fresh entry, and kills the group when the test ends.
func start(t *testing.T, name string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	mark := fmt.Sprintf("MCPACTOR_PROCTEST_MARK=%d-%s", os.Getpid(), t.Name())
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd, mark
}

// eventually polls cond for up to ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestChildLifecycle(t *testing.T) {
	cmd, mark := start(t, "sleep", "60")
	pid := cmd.Process.Pid

	// A child just started was once not found at the first look, in a CI
	// run on a loaded machine (cause not found); the helpers' users poll
	// (WaitChild), and so does this test.
	eventually(t, "the child to show its environment", func() bool { return ChildWithEnv(mark) == pid })
	if got := ChildWithEnv(mark + "x"); got != 0 {
		t.Errorf("ChildWithEnv(other entry) = %d, want 0", got)
	}
	if got := WithEnv(mark, "sleep"); got != pid {
		t.Errorf("WithEnv = %d, want %d", got, pid)
	}
	if got := WithEnv(mark, "sh"); got != 0 {
		t.Errorf("WithEnv(other comm) = %d, want 0", got)
	}
	pids, err := Children("sleep 60")
	if err != nil || !slices.Contains(pids, pid) {
		t.Errorf("Children = %v, %v; want %d among them", pids, err, pid)
	}
	if pids, err := Children("no such command line"); err != nil || len(pids) != 0 {
		t.Errorf("Children(unmatched) = %v, %v", pids, err)
	}
	if ppid, state, ok := Stat(pid); !ok || ppid != os.Getpid() || state == "Z" {
		t.Errorf("Stat = %d, %q, %v", ppid, state, ok)
	}
	if gone, err := Gone(pid); gone || err != nil {
		t.Errorf("Gone(running) = %v, %v", gone, err)
	}

	// Killed but not waited for: a zombie, which still exists.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the zombie", func() bool {
		_, state, ok := Stat(pid)
		return ok && state == "Z"
	})
	if gone, _ := Gone(pid); gone {
		t.Error("Gone(zombie) = true")
	}

	_ = cmd.Wait()
	if gone, err := Gone(pid); !gone {
		t.Errorf("Gone(reaped) = false, %v", err)
	}
	if _, _, ok := Stat(pid); ok {
		t.Error("Stat(reaped) ok")
	}
	if got := ChildWithEnv(mark); got != 0 {
		t.Errorf("ChildWithEnv(reaped) = %d", got)
	}
}

func TestWithEnvFindsGrandchild(t *testing.T) {
	// The shell is our child; the sleep it starts is not, and inherits the
	// mark.
	cmd, mark := start(t, "/bin/sh", "-c", "sleep 60 & wait")
	var grandchild int
	eventually(t, "the grandchild", func() bool {
		grandchild = WithEnv(mark, "sleep")
		return grandchild != 0
	})
	if ppid, _, ok := Stat(grandchild); !ok || ppid != cmd.Process.Pid {
		t.Errorf("grandchild's parent = %d, %v; want %d", ppid, ok, cmd.Process.Pid)
	}
	if got := ChildWithEnv(mark); got != cmd.Process.Pid {
		t.Errorf("ChildWithEnv = %d, want the shell %d", got, cmd.Process.Pid)
	}
}

func TestStatSelf(t *testing.T) {
	ppid, state, ok := Stat(os.Getpid())
	if !ok || ppid != os.Getppid() || state == "" || state == "Z" {
		t.Errorf("Stat(self) = %d, %q, %v; want parent %d", ppid, state, ok, os.Getppid())
	}
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		in    string
		ppid  int
		state string
		ok    bool
	}{
		{"12 (sleep) S 7 12 7 0", 7, "S", true},
		{"12 (a b) Z 1 0) R 99 12", 99, "R", true}, // comm holding ") Z "
		{"12 (x) Z 3", 3, "Z", true},
		{"12 (x) Z", 0, "", false},
		{"12 x S 7", 0, "", false},
		{"", 0, "", false},
	} {
		ppid, state, ok := parseStat([]byte(tc.in))
		if ppid != tc.ppid || state != tc.state || ok != tc.ok {
			t.Errorf("parseStat(%q) = %d, %q, %v; want %d, %q, %v", tc.in, ppid, state, ok, tc.ppid, tc.state, tc.ok)
		}
	}
}
