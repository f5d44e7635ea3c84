package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// The tools below misbehave on a client's request, for the fault tests
// that need one connection to go wrong at a moment the test chooses.

// toolNotifyFlood sends count notifications, each padded with a "data"
// string so that its line is about bytes long: a flood for the bounds on
// a client's notification queue.
func (s *server) toolNotifyFlood(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Method string `json:"method"`
		Count  int    `json:"count"`
		Bytes  int    `json:"bytes"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	if a.Method == "" {
		a.Method = "notifications/message"
	}
	params := paddedParams(`{"level":"info","logger":"flood","data":"`, a.Bytes)
	for range a.Count {
		s.sendNotification(c.out, a.Method, params)
	}
	return textResult("ok", false), nil
}

// paddedParams is prefix followed by 'x' bytes and `"}`, about n bytes in
// all.
func paddedParams(prefix string, n int) []byte {
	b := make([]byte, 0, max(n, len(prefix)+2))
	b = append(b, prefix...)
	b = append(b, bytes.Repeat([]byte{'x'}, max(n-len(prefix)-2, 0))...)
	return append(b, `"}`...)
}

// toolStderrFlood floods stderr with bytes of numbered lines on a
// goroutine of its own, while the server goes on serving: a client's
// stderr callbacks are busy when it closes.
func (s *server) toolStderrFlood(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Bytes int `json:"bytes"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.writeStderrLines(a.Bytes)
	}()
	return textResult("ok", false), nil
}

// toolStopReading answers, then leaves stdin unread for good: the client's
// writes fill the pipe and block, as with a server stuck on one request.
func (s *server) toolStopReading(context.Context, *Call) (json.RawMessage, *rpcError) {
	s.stopReading.Store(true)
	return textResult("ok", false), nil
}

// toolCloseStdout closes stdout and leaves the request unanswered; the
// process keeps running (with IgnoreSIGTERM it even outlives stdin), so a
// client sees its output end while the process lives on.
func (s *server) toolCloseStdout(context.Context, *Call) (json.RawMessage, *rpcError) {
	s.out.withLock(func(w *bufio.Writer) error { return w.Flush() })
	s.out.drop()
	if c, ok := s.rawOut.(io.Closer); ok {
		_ = c.Close()
	}
	return nil, nil
}

// toolReplyRaw answers with the given line instead of a well-formed
// response: "{{id}}" in it becomes the request's id, so the bad answer
// lands on the request that asked for it.
func (s *server) toolReplyRaw(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Line string `json:"line"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	c.out.send(true, []byte(strings.ReplaceAll(a.Line, "{{id}}", string(c.id))))
	return nil, nil
}

// toolSendRaw writes lines to stdout as they are, then answers ok.
func (s *server) toolSendRaw(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Lines []string `json:"lines"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	msgs := make([][]byte, len(a.Lines))
	for i, l := range a.Lines {
		msgs[i] = []byte(l)
	}
	c.out.send(false, msgs...)
	return textResult("ok", false), nil
}

// toolEchoEnv is a careless server: it prints the values of the
// environment variables named on stderr, and answers with a JSON-RPC
// error whose message and data quote them, as a server that reports its
// configuration when it refuses does. The client must mask them
// wherever it shows what the server said.
func (s *server) toolEchoEnv(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Names []string `json:"names"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	var said strings.Builder
	values := make(map[string]string, len(a.Names))
	for _, n := range a.Names {
		values[n] = os.Getenv(n)
		fmt.Fprintf(&said, " %s=%s", n, values[n])
	}
	s.errOut.writeString("echo-env:" + said.String() + "\n")
	return nil, &rpcError{Code: codeServerError, Message: "refused with" + said.String(), Data: mustJSON(map[string]any{"env": values})}
}
