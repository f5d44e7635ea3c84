package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// The hand-written minimal client: the reference the others are compared
// with.

// wireSession is the least a client can do: start the process, write
// initialize, read lines until its answer, write notifications/initialized
// and tools/list, read lines until that answer, and keep the tools array
// as it came (raw JSON). A goroutine then goes on reading the server's
// output, as any client must (a server blocked on a full pipe is stuck).
type wireSession struct {
	proc  *measure.Proc
	tools json.RawMessage
	done  chan struct{} // closed when the reader has seen the end of stdout
}

// wireAnswer is what the handshake reads of each line.
type wireAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func upWire(ctx context.Context, s measure.StdioServer, n int) (fleet, error) {
	return upEach(n, func(int) (*wireSession, []string, error) { return startWire(ctx, s) }), nil
}

func startWire(ctx context.Context, s measure.StdioServer) (*wireSession, []string, error) {
	p, err := measure.StartProc(s.Command())
	if err != nil {
		return nil, nil, err
	}
	w := &wireSession{proc: p, done: make(chan struct{})}
	r := bufio.NewReader(p.Stdout)
	stdin := p.Stdin
	fail := func(err error) (*wireSession, []string, error) {
		p.Kill()
		return nil, nil, err
	}
	// The handshake may not outlive ctx: a server that never answers is
	// killed, which ends the read.
	stop := context.AfterFunc(ctx, func() { _ = p.Cmd.Process.Kill() })
	defer stop()

	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",`+
		`"capabilities":{},"clientInfo":{"name":"bringup-wire","version":"0.0.1"}}}`+"\n"); err != nil {
		return fail(err)
	}
	if _, err := readAnswer(r, "1"); err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"); err != nil {
		return fail(err)
	}
	res, err := readAnswer(r, "2")
	if err != nil {
		return fail(fmt.Errorf("tools/list: %w", err))
	}
	var page struct {
		Tools      json.RawMessage `json:"tools"`
		NextCursor string          `json:"nextCursor"`
	}
	if err := json.Unmarshal(res, &page); err != nil {
		return fail(fmt.Errorf("tools/list result: %w", err))
	}
	var names []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(page.Tools, &names); err != nil {
		return fail(fmt.Errorf("tools/list tools: %w", err))
	}
	if page.NextCursor != "" {
		return fail(errPaginated)
	}
	w.tools = page.Tools
	go func() {
		defer close(w.done)
		_, _ = r.WriteTo(io.Discard)
	}()
	ns := make([]string, len(names))
	for j, t := range names {
		ns[j] = t.Name
	}
	return w, ns, nil
}

// readAnswer reads lines until the response with the given id (its JSON
// text) and returns its result; other lines (notifications, noise) are
// skipped.
func readAnswer(r *bufio.Reader, id string) (json.RawMessage, error) {
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var m wireAnswer
			if json.Unmarshal(line, &m) == nil && m.Method == "" && string(m.ID) == id {
				if m.Error != nil {
					return nil, fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
				}
				return m.Result, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("reading stdout: %w", err)
		}
	}
}

// close closes the server's stdin, which ends it, and waits for it
// (killing it after 5 s) and for the reader.
func (w *wireSession) close() error {
	err := w.proc.Stop(5 * time.Second)
	<-w.done
	return err
}
