package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// Values computed by a command (docs/configuration.md, "Values"): an env or
// header value written as "!<command>" runs <command> through the shell
// when the server is connected, not when the file is read, so reading a
// file runs nothing and a secret is fetched only for a server that starts.
// The command's output is the secret: it goes into the connection's
// configuration and nowhere else (no log, no error, no file).

// commandTimeout bounds one value command (10 s); tests shorten it.
var commandTimeout = 10 * time.Second

// maxCommandOutput bounds what a value command may print: a header or an
// environment value, not a stream.
const maxCommandOutput = 64 << 10

// Command is an env or header value computed at connect time. The root
// package re-exports it as mcpactor.ValueCommand.
type Command struct {
	Field string // "env" or "headers"
	Key   string // the variable or header name
	Line  string // the command as written, without the leading '!'
}

// commandError is the failure of a value command. It names the server and
// the key; it never holds what the command printed.
type commandError struct {
	Server string
	Field  string // "env" or "headers"
	Key    string
	Err    error // the exit status, the timeout, the context's error
}

func (e *commandError) Error() string {
	what := "env"
	if e.Field == "headers" {
		what = "header"
	}
	return fmt.Sprintf("Server %q: %s %q: command %v", e.Server, what, e.Key, e.Err)
}

func (e *commandError) Unwrap() error { return e.Err }

// ErrCommand matches the failure of a value command: a server whose
// "!command" env or header value could not be computed (it failed, timed
// out, printed too much, or was stopped), and which was therefore not
// started. The error names the server and the key, never the output.
var ErrCommand = errors.New("configuration value command failed")

// Is makes errors.Is(err, ErrCommand) and errors.Is(err,
// errkind.ErrConfig) true: to a user, a value that could not be
// computed is a configuration that cannot work.
func (e *commandError) Is(target error) bool {
	return target == ErrCommand || target == errkind.ErrConfig
}

// errCommandTimeout is the Err of a commandError whose command ran longer
// than commandTimeout.
var errCommandTimeout = errors.New("timed out")

// ResolvesAtOnce reports whether Resolve runs nothing and reads nothing:
// no value comes from a command, and there is no OAuth client to make
// (which may read a key file). Resolve then computes nothing, and the
// manager calls it on its actor rather than on a goroutine of its own.
func (e *Entry) ResolvesAtOnce() bool {
	return len(e.Commands) == 0 && (e.Auth == nil || e.Auth.Type != "oauth")
}

// Resolved is what an entry leaves to connect time.
type Resolved struct {
	// Env and Headers are the values of Commands, by key: they replace
	// the "!..." values of the entry's Env and Headers.
	Env, Headers map[string]string
	// Auth authorizes the connection's requests; nil when nothing does.
	Auth Authorizer
}

// Resolve computes what the entry leaves to connect time: each value of
// Commands is its command's trimmed standard output. The commands run one
// after the other through the shell (sh -c on Unix, cmd /c on Windows), in
// Cwd when set, with the process's environment, no input, and 10 seconds
// each; their standard error is discarded. The first failure ends Resolve
// with an error that names the server and the key, never what the command
// printed. The entry itself is not changed.
//
// Auth is the server's OAuth client for an "oauth" entry (Auth.Client);
// else, when a header's value came from a command, an oauth.RefreshHeader
// that runs the command once more on a 401 before the request fails (the
// Authorization header's, if several are commands).
func (e *Entry) Resolve(ctx context.Context) (Resolved, error) {
	var r Resolved
	var header *Command // the header a 401 computes again
	var headerOut string
	for _, c := range e.Commands {
		out, err := runValueCommand(ctx, c.Line, e.Cwd)
		if err != nil {
			return Resolved{}, &commandError{Server: e.Name, Field: c.Field, Key: c.Key, Err: err}
		}
		into := &r.Env
		if c.Field == "headers" {
			into = &r.Headers
			if header == nil || strings.EqualFold(c.Key, "Authorization") {
				header, headerOut = &c, out
			}
		}
		if *into == nil {
			*into = map[string]string{}
		}
		(*into)[c.Key] = out
	}
	auth, err := e.authorizer(header, headerOut)
	if err != nil {
		return Resolved{}, err
	}
	r.Auth = auth
	return r, nil
}

func runValueCommand(ctx context.Context, line, dir string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := shellCommand(cctx, line)
	cmd.Dir = dir
	var out cappedBuffer
	cmd.Stdout = &out
	// Stdin and Stderr stay nil: the null device. Stderr could hold the
	// secret, or part of it, as well as stdout.
	//
	// WaitDelay: a grandchild that keeps stdout open must not hold Resolve
	// past the kill.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("stopped: %w", ctx.Err())
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("%w after %v", errCommandTimeout, commandTimeout)
	case err != nil:
		var ee interface{ ExitCode() int }
		if errors.As(err, &ee) {
			return "", fmt.Errorf("failed: %w", err) // "exit status N": no output
		}
		return "", fmt.Errorf("did not start: %w", err)
	case out.over:
		return "", fmt.Errorf("printed more than %d bytes", maxCommandOutput)
	}
	return strings.TrimSpace(string(out.buf)), nil
}

// cappedBuffer keeps the first maxCommandOutput bytes and swallows the
// rest, so a chatty command is not blocked on a full pipe until its
// timeout.
type cappedBuffer struct {
	buf  []byte
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := maxCommandOutput - len(b.buf); len(p) > room {
		b.over = true
		b.buf = append(b.buf, p[:max(room, 0)]...)
	} else {
		b.buf = append(b.buf, p...)
	}
	return len(p), nil
}
