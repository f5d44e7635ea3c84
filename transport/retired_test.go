package transport

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// observer records what a call's observer is told.
type observer struct {
	written, cancelSent, late atomic.Int32
}

func (o *observer) Queued(string) {}
func (o *observer) Dequeued()     {}
func (o *observer) Written()      { o.written.Add(1) }
func (o *observer) Cancelling(_ string, p json.RawMessage) json.RawMessage {
	o.cancelSent.Add(1)
	return p
}
func (o *observer) SetRequestID(id messages.ID) {}
func (o *observer) LateResponse()               { o.late.Add(1) }

// slowServer answers its first request 400 ms late, whatever it is told.
const slowServer = `read req
sleep 0.4
echo '{"jsonrpc":"2.0","id":1,"result":{}}'
cat >/dev/null`

// A call that timed out still hears of its answer when it comes late: the
// observer (the call's span) is told, and the answer is counted.
func TestLateAnswerReachesTheRetiredCallsObserver(t *testing.T) {
	sys := harness.ActorSystem(t)
	conn := SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{Server: "slow", Command: "sh", Args: []string{"-c", slowServer}})
	t.Cleanup(func() { conn.Close(harness.Context(t)) })
	obs := &observer{}
	_, err := conn.Call(harness.Context(t), "tools/call", nil, RequestOptions{Timeout: 100 * time.Millisecond, Observer: obs})
	if !errors.Is(err, errkind.ErrTimeout) {
		t.Fatalf("got %v, want a timeout", err)
	}
	harness.WaitFor(t, "the late answer", func() bool { return conn.Stats()[LateResponses] == 1 })
	if obs.written.Load() != 1 || obs.cancelSent.Load() != 1 || obs.late.Load() != 1 {
		t.Errorf("observer heard written=%d cancelSent=%d late=%d, want 1 each", obs.written.Load(), obs.cancelSent.Load(), obs.late.Load())
	}
}

func TestRetiredCallsAreBounded(t *testing.T) {
	var r retiredCalls
	for id := int64(1); id <= 3*retiredKeep; id++ {
		r.add(id, &observer{})
	}
	if len(r.obs) != retiredKeep {
		t.Fatalf("kept %d observers, want %d", len(r.obs), retiredKeep)
	}
	if _, ok := r.take(1); ok {
		t.Error("the oldest retirement should have been forgotten")
	}
	if _, ok := r.take(3 * retiredKeep); !ok {
		t.Error("the newest retirement should be kept")
	}
}
