package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Linux /proc helpers: the children of a process, whether a pid is still
// running, and this process's memory.

// procStat is what the harness needs from /proc/<pid>/stat.
type procStat struct {
	pid   int
	ppid  int
	state byte // R, S, D, Z, ...
}

// readStat parses /proc/<pid>/stat; ok is false when the process is gone.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// "pid (comm) state ppid ..."; comm may contain spaces and parentheses,
	// so cut at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	fields := strings.Fields(string(b[i+2:]))
	if len(fields) < 2 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(fields[1])
	return procStat{pid: pid, ppid: ppid, state: fields[0][0]}, true
}

// children lists the processes whose parent is ppid (zombies included).
func children(ppid int) []procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procStat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.ppid == ppid {
			out = append(out, st)
		}
	}
	return out
}

// descendants lists every process below pid, depth first.
func descendants(pid int) []procStat {
	var out []procStat
	for _, c := range children(pid) {
		out = append(out, c)
		out = append(out, descendants(c.pid)...)
	}
	return out
}

// newChildren returns the children of this process that are not in before.
func newChildren(before []procStat) []int {
	seen := make(map[int]bool, len(before))
	for _, p := range before {
		seen[p.pid] = true
	}
	var out []int
	for _, p := range children(os.Getpid()) {
		if !seen[p.pid] {
			out = append(out, p.pid)
		}
	}
	return out
}

// pidState says what became of pid: "gone" (exited and reaped), "zombie"
// (exited, not reaped by its parent) or "running".
func pidState(pid int) string {
	if err := syscall.Kill(pid, 0); err != nil {
		return "gone"
	}
	st, ok := readStat(pid)
	switch {
	case !ok:
		return "gone"
	case st.state == 'Z' || st.state == 'X':
		return "zombie"
	default:
		return "running"
	}
}

// waitGone polls until pid is no longer running (gone or zombie) or d has
// passed, and returns its state then.
func waitGone(pid int, d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		s := pidState(pid)
		if s != "running" || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// memKB returns VmRSS and VmHWM (peak RSS) of this process, in KiB.
func memKB() (rss, hwm int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var dst *int64
		switch {
		case strings.HasPrefix(line, "VmRSS:"):
			dst = &rss
		case strings.HasPrefix(line, "VmHWM:"):
			dst = &hwm
		default:
			continue
		}
		fs := strings.Fields(line)
		if len(fs) >= 2 {
			*dst, _ = strconv.ParseInt(fs[1], 10, 64)
		}
	}
	return rss, hwm
}

// setSubreaper makes this process adopt orphaned descendants (a server
// started in its own process group by a cell that was then killed), so the
// driver can find and end them.
func setSubreaper() {
	const prSetChildSubreaper = 36
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// killPids sends SIGKILL to each pid (only processes this program started).
func killPids(pids []int) {
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// reap collects the given exited children (with a short wait each) so
// they do not linger as zombies. Only pids this process itself parents.
func reap(pids []int) {
	for _, p := range pids {
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(p, &ws, syscall.WNOHANG, nil)
			if got == p || err != nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
