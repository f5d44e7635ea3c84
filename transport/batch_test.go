package transport

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// batchServer answers our first request inside a JSON-RPC batch that also
// carries a ping of its own, then reports our answer to the ping on stderr.
const batchServer = `read req
echo '[{"jsonrpc":"2.0","id":1,"result":{"ok":true}},{"jsonrpc":"2.0","id":"b1","method":"ping"}]'
read answer
echo "answer: $answer" >&2
cat >/dev/null`

func startBatchServer(t *testing.T, allow bool) (*Conn, func() string) {
	t.Helper()
	var mu sync.Mutex
	var answer string
	sys := harness.ActorSystem(t)
	conn := SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{
		Server: "batch", Command: "sh", Args: []string{"-c", batchServer},
		Limits: Limits{RequestTimeout: 500 * time.Millisecond},
		StderrLine: func(line string) {
			mu.Lock()
			defer mu.Unlock()
			answer = line
		},
	})
	t.Cleanup(func() { conn.Close(harness.Context(t)) })
	version := messages.Version20250618
	if allow {
		version = messages.Version20250326
	}
	conn.Establish(Established{ProtocolVersion: version})
	return conn, func() string {
		var got string
		harness.WaitFor(t, "the server's report of our answer", func() bool {
			mu.Lock()
			defer mu.Unlock()
			got = answer
			return got != ""
		})
		return got
	}
}

// 2025-03-26 allows batches: each element is handled as if it came alone.
func TestBatchAcceptedWhenNegotiated(t *testing.T) {
	conn, answer := startBatchServer(t, true)
	res, err := conn.Call(harness.Context(t), "tools/list", nil, RequestOptions{})
	if err != nil || string(res) != `{"ok":true}` {
		t.Fatalf("call answered in a batch: %s, %v", res, err)
	}
	// No owner here, so the ping inside the batch gets Method not found:
	// what matters is that it was answered, by id.
	if got := answer(); !strings.Contains(got, `"id":"b1"`) || !strings.Contains(got, `-32601`) {
		t.Errorf("answer to the batched request = %s", got)
	}
	if n := conn.Stats()[RefusedBatches]; n != 0 {
		t.Errorf("refused %d batches", n)
	}
}

// Other versions do not allow batches: the batch is refused, its requests
// get a clear error, and it is counted.
func TestBatchRefusedOtherwise(t *testing.T) {
	conn, answer := startBatchServer(t, false)
	_, err := conn.Call(harness.Context(t), "tools/list", nil, RequestOptions{})
	if e, ok := err.(*callerr.Error); !ok || callerr.Timeout(e) != e {
		t.Fatalf("the answer came only inside a refused batch: got %v, want a timeout", err)
	}
	got := answer()
	if !strings.Contains(got, `"id":"b1"`) || !strings.Contains(got, `-32600`) || !strings.Contains(got, "batches are not supported") {
		t.Errorf("answer to the batched request = %s", got)
	}
	if n := conn.Stats()[RefusedBatches]; n != 1 {
		t.Errorf("refused %d batches, want 1", n)
	}
}
