package transport

import (
	"errors"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

func TestResponseIDOfAnOversizedLine(t *testing.T) {
	for _, tc := range []struct {
		head string
		id   int64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxxx`, 7, true},
		{`{"id":"12","jsonrpc":"2.0","error":{"code":1,"message":"xxx`, 12, true},
		{`{"jsonrpc":"2.0","meta":{"a":[1,2,{"b":3}]},"id":3,"result":"xx`, 3, true},
		{`{"jsonrpc":"2.0","result":{"x":"yyyy"},"id":9}`, 9, true},                     // id after the payload
		{`{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params`, 0, false}, // a server request
		{`{"jsonrpc":"2.0","id":5,"par`, 0, false},                                      // cut off before it is clear
		{`{"jsonrpc":"2.0","id":"abc","result":{`, 0, false},                            // not one of ours
		{`[{"jsonrpc":"2.0","id":5,"result":{`, 0, false},                               // batches are not sniffed
		{`not json at all`, 0, false},
	} {
		var scan jsonrpc.FrameHeadScanner
		scan.Write([]byte(tc.head))
		id, ok := responseID(scan.Head())
		if id != tc.id || ok != tc.ok {
			t.Errorf("%s: got %d %v, want %d %v", tc.head, id, ok, tc.id, tc.ok)
		}
	}
}

// An answer over the frame cap fails its own call at once, with a clear
// error, and leaves the connection usable.
func TestOversizedAnswerFailsItsCallAtOnce(t *testing.T) {
	const limit = 1 << 20
	s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) { c.MaxFrameSize = limit })
	start := time.Now()
	_, err := s.conn.Call(harness.Context(t), messages.MethodToolsCall, toolParams("big", map[string]any{"bytes": 2 * limit}), RequestOptions{})
	var tooLarge *callerr.Error
	if !(errors.As(err, &tooLarge) && callerr.FrameTooLarge(tooLarge) == tooLarge) || !errors.Is(err, errkind.ErrBadResponse) || tooLarge.Limit != limit {
		t.Fatalf("got %v, want a FrameTooLargeError", err)
	}
	if d := time.Since(start); d > 10*time.Second { // the request timeout is 30 s
		t.Errorf("took %v: the call waited for its timeout", d)
	}
	s.mustEcho("still usable")
}
