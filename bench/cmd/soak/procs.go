package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// Linux /proc helpers: this process's children (the fleet's processes),
// the one that runs a given server, its open files.

// child is a process whose parent is this one.
type child struct {
	pid   int
	state byte // R, S, D, T (stopped), Z (zombie), ...
}

// readStat reads a process's parent and state; ok is false when it is
// gone.
func readStat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0], true
}

// children lists this process's children, zombies included.
func children() []child {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []child
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, st, ok := readStat(pid); ok && ppid == self {
			out = append(out, child{pid, st})
		}
	}
	return out
}

// serverPID finds the live process of a stdio server by the marker in
// its environment; 0 if there is none (the server is restarting).
func serverPID(name string) int {
	want := []byte("\x00" + envMarker + "=" + name + "\x00")
	for _, c := range children() {
		if c.state == 'Z' {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(c.pid) + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			return c.pid
		}
	}
	return 0
}

// waitServerPID waits up to d for a server's process to be there.
func waitServerPID(name string, d time.Duration) int {
	deadline := time.Now().Add(d)
	for {
		if pid := serverPID(name); pid != 0 || time.Now().After(deadline) {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openFDs counts this process's open file descriptors.
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// zombies lists the children that are zombies now and still are 500 ms
// later: a child is a zombie for a moment between its exit and its reap,
// which is no leak; one left unreaped is.
func zombies() []int {
	var first []int
	for _, c := range children() {
		if c.state == 'Z' {
			first = append(first, c.pid)
		}
	}
	if len(first) == 0 {
		return nil
	}
	time.Sleep(500 * time.Millisecond)
	var out []int
	for _, pid := range first {
		if ppid, st, ok := readStat(pid); ok && st == 'Z' && ppid == os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}
