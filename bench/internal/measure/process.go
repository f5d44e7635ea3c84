package measure

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"time"
)

// StdioServer is how to start a stdio server. Every client of a run
// starts the same program with the same arguments and environment, so
// that they differ in nothing but the client.
type StdioServer struct {
	Path string
	Args []string
	Env  []string // a full environment, os.Environ style
	// EnvMap is Env as a map, built once, for the clients that take one
	// (they set it on top of the parent's environment, which Env already
	// holds, so the server sees the same variables).
	EnvMap map[string]string
	// Stateless says the server offers the 2026-07-28 revision, which
	// the references then speak (refclient.Options.Stateless); the
	// libraries find it with server/discover themselves.
	Stateless bool
}

// NewStdioServer describes the server path started with args in env.
func NewStdioServer(path string, args, env []string) StdioServer {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return StdioServer{Path: path, Args: args, Env: env, EnvMap: m}
}

// Command is a new, unstarted command for the server.
func (s StdioServer) Command() *exec.Cmd {
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Env = s.Env
	return cmd
}

// Proc is a server process that the benchmark talks to (or reads its
// address from) through its stdin and stdout, and that ends when its
// stdin does.
type Proc struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
}

// StartProc starts cmd with pipes to its stdin and stdout.
func StartProc(cmd *exec.Cmd) (*Proc, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		_ = stdin.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Proc{Cmd: cmd, Stdin: stdin, Stdout: stdout}, nil
}

// Stop closes the process's stdin, which ends it, and waits for it (see
// Wait).
func (p *Proc) Stop(grace time.Duration) error {
	return errors.Join(p.Stdin.Close(), p.Wait(grace))
}

// Wait waits for the process to end, and kills it if it has not after
// grace: a server that ignores the end of its input must not hold up the
// run.
func (p *Proc) Wait(grace time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		_ = p.Cmd.Process.Kill()
		return <-done
	}
}

// Kill kills the process and waits for it, for a start that failed half
// way.
func (p *Proc) Kill() {
	_ = p.Stdin.Close()
	_ = p.Cmd.Process.Kill()
	_ = p.Cmd.Wait()
}
