package transport

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// A server that prints its cause on stdout and exits: the closing error
// shows the lines (its first ones and its last), not only the exit status,
// with the configuration's env values masked; SkippedStdout counts them
// and gives the first.
func TestStdoutCauseShownOnExit(t *testing.T) {
	const secret = "sk-live-0123456789"
	script := `echo "Error: the key $API_KEY was refused"; for i in 1 2 3 4 5 6 7 8 9; do echo "usage line $i"; done; echo "giving up"; exit 1`
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) {
		c.Command, c.Args = "/bin/sh", []string{"-c", script}
		c.Env = map[string]string{"API_KEY": secret}
	})
	<-s.conn.Done()
	err := s.conn.Err()
	var tc *callerr.Error
	if !(errors.As(err, &tc) && callerr.TransportClosed(tc) == tc) {
		t.Fatalf("Err = %v, want a transport-closed error", err)
	}
	msg := err.Error()
	for _, want := range []string{"exit status 1", "Error: the key " + "REDACTED" + " was refused", "usage line 1", "[... 5 more lines ...]", "usage line 9", "giving up"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, secret) || strings.Contains(msg, "usage line 5") {
		t.Errorf("error %q shows the secret or the middle", msg)
	}
	n, first := s.conn.SkippedStdout()
	if n != 11 || first != "Error: the key REDACTED was refused" {
		t.Errorf("SkippedStdout = %d, %q", n, first)
	}
}

// A long line is cut, and a server that writes nothing but JSON-RPC has
// nothing to show.
func TestStdoutExcerptBounded(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) {
		c.Command, c.Args = "/bin/sh", []string{"-c", `head -c 5000 /dev/zero | tr '\0' x; echo; exit 2`}
	})
	<-s.conn.Done()
	var tc *callerr.Error
	if !(errors.As(s.conn.Err(), &tc) && callerr.TransportClosed(tc) == tc) || len(tc.Stdout) > skippedLineBytes+3 || !strings.HasSuffix(tc.Stdout, "x...") {
		t.Errorf("excerpt %q (%d bytes): want the line cut to %d bytes", tc.Stdout, len(tc.Stdout), skippedLineBytes)
	}

	clean := startServer(t, testserver.Options{}, nil, nil, nil)
	clean.mustEcho("hello")
	if n, first := clean.conn.SkippedStdout(); n != 0 || first != "" {
		t.Errorf("SkippedStdout = %d, %q on a clean server", n, first)
	}
	if err := clean.close(); err != nil {
		t.Fatal(err)
	}
	if !(errors.As(clean.conn.Err(), &tc) && callerr.TransportClosed(tc) == tc) || tc.Stdout != "" {
		t.Errorf("Err = %v", clean.conn.Err())
	}
}
