package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// A transport with Dial speaks the stdio framing over the stream it gets,
// here an in-process server on the other end of a pipe, with the same
// correlation, batching and bounds as over a subprocess.
func TestDialedStream(t *testing.T) {
	served := make(chan error, 1)
	cfg := StdioConfig{Server: "in-process", Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
		ours, theirs := net.Pipe()
		go func() {
			served <- testserver.Serve(context.Background(), theirs, theirs, io.Discard, testserver.Options{})
			theirs.Close()
		}()
		return ours, nil
	}}
	sys := harness.ActorSystem(t)
	conn := SpawnStdio(sys.Root, sys.Root, nil, cfg)
	s := &server{t: t, conn: conn, stderr: &harness.Lines{}}
	errs := make(chan error, 100)
	for i := range 100 {
		go func() {
			msg := string(rune('a' + i%26))
			got, err := s.echo(harness.Context(t), msg)
			if err == nil && got != msg {
				err = errors.New("wrong answer " + got)
			}
			errs <- err
		}()
	}
	for range 100 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := conn.Close(harness.Context(t)); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("the server ended with %v", err)
	}
}

// A dial that fails is a start failure, with the dialer's own error.
func TestDialFailure(t *testing.T) {
	refused := errors.New("connection refused")
	sys := harness.ActorSystem(t)
	conn := SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{Server: "nowhere", Dial: func(context.Context) (io.ReadWriteCloser, error) {
		return nil, refused
	}})
	_, err := conn.Call(harness.Context(t), messages.MethodPing, nil, RequestOptions{})
	var se *callerr.Error
	if !(errors.As(err, &se) && callerr.Start(se) == se) || !errors.Is(err, refused) || err.Error() != `could not start MCP server "nowhere": connection refused` {
		t.Fatalf("got %v", err)
	}
}
