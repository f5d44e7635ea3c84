package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// childEnv is this process's environment without the soak's child
// markers, so that a child is what its own marker says and nothing else.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MCPACTOR_SOAK_CLUSTER_") || k == envMarker {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// startChild starts this binary with env, stderr to errPath, and waits
// up to limit for its first stdout line to be "ready".
func startChild(env []string, errPath string, limit time.Duration) (*exec.Cmd, io.WriteCloser, *bufio.Reader, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = env
	ef, err := os.OpenFile(errPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, nil, err
	}
	cmd.Stderr = ef
	stdin, err := cmd.StdinPipe()
	if err != nil {
		ef.Close()
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		ef.Close()
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		ef.Close()
		return nil, nil, nil, err
	}
	ef.Close() // the child has its own copy
	out := bufio.NewReader(stdout)
	line := make(chan string, 1)
	go func() {
		l, _ := out.ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		if l == "ready" {
			return cmd, stdin, out, nil
		}
		err = fmt.Errorf("child said %q (stderr: %s)", l, tail(errPath))
	case <-time.After(limit):
		err = fmt.Errorf("child not ready after %v (stderr: %s)", limit, tail(errPath))
	}
	_ = cmd.Process.Kill()
	stdin.Close()
	_ = cmd.Wait()
	return nil, nil, nil, err
}

// tail is the end of a child's stderr file, for an error.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return strings.TrimSpace(string(b))
}

// etcdChild is the run's etcd: a child on fixed ports and a data
// directory, so that it can be killed and started again.
type etcdChild struct {
	dir     string
	cp, pp  int
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	errPath string
}

func (e *etcdChild) endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(e.cp) }

func newEtcdChild(runDir string) (*etcdChild, error) {
	e := &etcdChild{dir: filepath.Join(runDir, "etcd"), errPath: filepath.Join(runDir, "etcd.err")}
	var err error
	if e.cp, err = freePort(); err != nil {
		return nil, err
	}
	if e.pp, err = freePort(); err != nil {
		return nil, err
	}
	return e, e.start()
}

func (e *etcdChild) start() error {
	cmd, stdin, _, err := startChild(childEnv(fmt.Sprintf("%s=%s %d %d", envClusterEtcd, e.dir, e.cp, e.pp)), e.errPath, 60*time.Second)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	e.cmd, e.stdin = cmd, stdin
	return nil
}

// kill ends etcd with SIGKILL (kill) or by closing its stdin, and waits.
func (e *etcdChild) stop(kill bool) {
	if e.cmd == nil {
		return
	}
	if kill {
		_ = e.cmd.Process.Signal(syscall.SIGKILL)
	}
	e.stdin.Close()
	done := make(chan struct{})
	go func() { _ = e.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = e.cmd.Process.Kill()
		<-done
	}
	e.cmd = nil
}

// memberChild is one member process of the run.
type memberChild struct {
	name    string
	inst    int
	spec    memberSpec
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *bufio.Reader
	errPath string
	killed  bool
	result  *memberResult
	resErr  error
}

func (c *memberChild) pid() int { return c.cmd.Process.Pid }

func startMemberChild(spec memberSpec, runDir string) (*memberChild, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	c := &memberChild{name: spec.Name, inst: spec.Inst, spec: spec, errPath: filepath.Join(runDir, fmt.Sprintf("member.%s.%d.err", spec.Name, spec.Inst))}
	c.cmd, c.stdin, c.out, err = startChild(childEnv(envClusterMember+"="+string(b)), c.errPath, 90*time.Second)
	if err != nil {
		return nil, fmt.Errorf("member %s: %w", spec.Name, err)
	}
	return c, nil
}

func (c *memberChild) send(line string) { _, _ = io.WriteString(c.stdin, line+"\n") }

// finish tells the member to stop and waits for its result.
func (c *memberChild) finish(limit time.Duration) {
	c.send("stop")
	got := make(chan error, 1)
	go func() {
		l, err := c.out.ReadString('\n')
		if err != nil {
			got <- fmt.Errorf("no result: %w (stderr: %s)", err, tail(c.errPath))
			return
		}
		var r memberResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			got <- fmt.Errorf("result %q: %w", l, err)
			return
		}
		c.result = &r
		got <- nil
	}()
	select {
	case c.resErr = <-got:
	case <-time.After(limit):
		c.resErr = fmt.Errorf("no result after %v (stderr: %s)", limit, tail(c.errPath))
		_ = c.cmd.Process.Kill()
	}
	c.stdin.Close()
	_ = c.cmd.Wait()
}

// kill ends the member with SIGKILL and reaps it.
func (c *memberChild) kill() {
	c.killed = true
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	c.stdin.Close()
	_ = c.cmd.Wait()
}

// serverProcs are the live processes whose parent is pid, by pid, with
// the cluster server name each runs (from its environment).
func serverProcs(pid int) map[int]string {
	out := map[int]string{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, st, ok := readStat(p); ok && ppid == pid && st != 'Z' {
			if name := procServerName(p); name != "" {
				out[p] = name
			}
		}
	}
	return out
}

// procServerName is the cluster server a process runs, from its
// environment; "" if it runs none (or is gone).
func procServerName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, envClusterServer+"="); ok {
			return v
		}
	}
	return ""
}

// aliveServer says whether pid is a live process (not gone, not a
// zombie) that runs the cluster server name: a pid the kernel has given
// to another process since is not that server.
func aliveServer(pid int, name string) bool {
	_, st, ok := readStat(pid)
	return ok && st != 'Z' && procServerName(pid) == name
}
