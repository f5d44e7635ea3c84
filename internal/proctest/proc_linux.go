//go:build linux

package proctest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// haveProc: this platform has /proc.
const haveProc = true

// ChildWithEnv returns the pid of a child of this process whose environment
// holds entry ("K=V"), or 0.
func ChildWithEnv(entry string) int {
	pids, _ := all()
	self := os.Getpid()
	for _, pid := range pids {
		if ppid, _, ok := Stat(pid); !ok || ppid != self {
			continue
		}
		if hasEnv(pid, entry) {
			return pid
		}
	}
	return 0
}

// WithEnv returns the pid of any process (not only a child of this one)
// whose environment holds entry ("K=V") and whose command name is comm, or
// 0. Only processes whose environment we may read are found.
func WithEnv(entry, comm string) int {
	pids, _ := all()
	for _, pid := range pids {
		c, err := os.ReadFile(dir(pid) + "/comm")
		if err != nil || strings.TrimSpace(string(c)) != comm {
			continue
		}
		if hasEnv(pid, entry) {
			return pid
		}
	}
	return 0
}

// Children returns the pids of this process's children whose command line
// (arguments joined by spaces) contains substr. The error is from reading
// /proc itself.
func Children(substr string) ([]int, error) {
	pids, err := all()
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []int
	for _, pid := range pids {
		if ppid, _, ok := Stat(pid); !ok || ppid != self {
			continue
		}
		cmdline, err := os.ReadFile(dir(pid) + "/cmdline")
		if err != nil {
			continue
		}
		if strings.Contains(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})), substr) {
			out = append(out, pid)
		}
	}
	return out, nil
}

// Stat returns a process's parent pid and state letter ("R", "S", "Z", ...)
// from /proc/<pid>/stat; ok is false if it does not exist (or the file
// cannot be parsed). A zombie still exists.
func Stat(pid int) (ppid int, state string, ok bool) {
	stat, err := os.ReadFile(dir(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	return parseStat(stat)
}

// parseStat reads the state and parent pid from the text of a
// /proc/<pid>/stat file.
func parseStat(stat []byte) (ppid int, state string, ok bool) {
	// pid (comm) state ppid ...: comm may hold spaces and parentheses, so
	// cut at the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0], true
}

// all returns the pids listed in /proc.
func all() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// hasEnv reports whether pid's environment holds entry.
func hasEnv(pid int, entry string) bool {
	environ, err := os.ReadFile(dir(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if string(kv) == entry {
			return true
		}
	}
	return false
}

func dir(pid int) string { return "/proc/" + strconv.Itoa(pid) }
