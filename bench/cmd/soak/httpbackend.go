package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// httpBackend is an HTTP server process the soak runs (the runtime only
// reaches it): started on a loopback port, killed and started again on the
// same port by the "http-restart" fault, so that its sessions are lost
// while its URL stays.
type httpBackend struct {
	name    string
	kind    string
	port    int
	command func(port int) (path string, args, env []string)

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

func newBackend(s *server, p peerPaths) *httpBackend {
	b := &httpBackend{name: s.name, kind: s.kind}
	switch s.kind {
	case kTestHTTP:
		b.command = func(port int) (string, []string, []string) {
			return testserver.Command(testserver.Options{HTTPAddr: "127.0.0.1:" + strconv.Itoa(port), HTTPStream: true})
		}
	case kGoSDKHTTP:
		b.command = func(port int) (string, []string, []string) {
			return p.gosdk, []string{"-http", "127.0.0.1:" + strconv.Itoa(port)}, os.Environ()
		}
	case kEverythingHTTP, kEverythingSSE:
		mode := "streamableHttp"
		if s.kind == kEverythingSSE {
			mode = "sse"
		}
		b.command = func(port int) (string, []string, []string) {
			return p.node, []string{p.everything, mode}, append(os.Environ(), "PORT="+strconv.Itoa(port))
		}
	}
	return b
}

// endpointPath is the path of the kind's endpoint.
func endpointPath(kind string) string {
	if kind == kEverythingSSE {
		return testserver.SSEPath
	}
	return testserver.HTTPPath
}

// start starts the server on a free port (three tries: a port free a
// moment ago can be taken meanwhile).
func (b *httpBackend) start() error {
	var errs []error
	for range 3 {
		port, err := freePort()
		if err != nil {
			return err
		}
		if err := b.startAt(port); err != nil {
			errs = append(errs, err)
			continue
		}
		b.port = port
		return nil
	}
	return errors.Join(errs...)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startAt starts the process on port, in a process group of its own, and
// waits until the port accepts connections.
func (b *httpBackend) startAt(port int) error {
	path, args, env := b.command(port)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %v", b.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	b.mu.Lock()
	b.cmd, b.exited = cmd, exited
	b.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited before port %d answered (%v)", b.name, port, cmd.ProcessState)
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.kill()
			return fmt.Errorf("%s: port %d did not answer in 30 s", b.name, port)
		}
	}
}

// kill ends the process group with SIGKILL and waits for the reap.
func (b *httpBackend) kill() {
	b.mu.Lock()
	cmd, exited := b.cmd, b.exited
	b.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
	}
}

// restart kills the server, waits down, and starts it on the same port.
func (b *httpBackend) restart(down time.Duration) error {
	b.kill()
	time.Sleep(down)
	var err error
	for range 5 {
		if err = b.startAt(b.port); err == nil {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return err
}

// pid is the process's pid (0 before start).
func (b *httpBackend) pid() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return 0
	}
	return b.cmd.Process.Pid
}
