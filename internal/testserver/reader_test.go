package testserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("y", 100)
	input := "short\r\n" + long + "\n" + strings.Repeat("z", 300) + "\n  \nlast"
	r := bufio.NewReaderSize(strings.NewReader(input), 16)
	var scratch []byte
	for _, want := range []struct {
		line    string
		tooLong bool
		err     error
	}{{"short", false, nil}, {long, false, nil}, {"", true, nil}, {"", false, nil}, {"last", false, io.EOF}} {
		line, tooLong, err := readLine(r, &scratch, 200)
		if string(line) != want.line || tooLong != want.tooLong || err != want.err {
			t.Errorf("got %.20q %v %v, want %.20q %v %v", line, tooLong, err, want.line, want.tooLong, want.err)
		}
	}
}

func TestLongRequestLine(t *testing.T) {
	c := startPipe(t, Options{})
	msg := strings.Repeat("long line ", 1<<17) // 1.3 MiB: far beyond the read buffer
	if r := c.callTool("echo", map[string]any{"message": msg}); r.text() != msg {
		t.Errorf("echo of %d bytes came back with %d", len(msg), len(r.text()))
	}
	c.call("ping", nil)
}

// failingWriter fails every write, like a stdout whose reader is gone.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriteErrorStopsServe(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), inR, failingWriter{}, nil, Options{}) }()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	select {
	case err := <-done:
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(wait):
		t.Fatal("Serve did not stop on a write error")
	}
}
