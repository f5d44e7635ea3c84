package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
)

// panickingObserver panics when told of a late answer: the transport actor
// tells it while handling the run of frames that carried the answer, so
// the panic is the actor's, on whatever goroutine runs it for that run.
type panickingObserver struct {
	observer
	stack atomic.Pointer[string] // where LateResponse ran
}

func (o *panickingObserver) LateResponse() {
	s := string(debug.Stack())
	o.stack.Store(&s)
	panic("late answer")
}

// lateAnswerAfter is a server that reads lines lines, then answers request
// 1 and reads on without answering anything else. It waits a moment before
// it answers: the caller whose request was the last line may still be
// running the actor for it (it wrote the frame from that run), and an
// answer that found the actor running would be handled where that run
// leaves it, not on the reader's goroutine, which is the path under test
// (a CI run once saw it).
func lateAnswerAfter(lines int) string {
	return fmt.Sprintf(`i=0
while [ $i -lt %d ]; do read -r line; i=$((i+1)); done
sleep 0.2
echo '{"jsonrpc":"2.0","id":1,"result":{}}'
exec cat >/dev/null`, lines)
}

// A panic in the transport actor while it handles a run of frames (with
// our mailbox, on the reader's own goroutine: the inline path) stops the
// actor as any other panic does: each pending call fails once with the
// panic, the process is reaped, the reader ends (goleak), and the owner is
// told. Under protoactor's default mailbox (TestStdioUnderTheOtherMailbox)
// the same holds, on a goroutine of the mailbox's.
func TestReaderPathPanicStopsTheTransport(t *testing.T) {
	const pending = 5
	sys := harness.ActorSystem(t)
	r, owner := newRecorder(t, sys)
	var logs harness.Log
	// The server reads call 1, its cancellation and the pending calls,
	// then answers call 1, late.
	mark := fmt.Sprintf("late-%d-%d", os.Getpid(), marks.Add(1))
	conn := SpawnStdio(sys.Root, sys.Root, owner, StdioConfig{
		Server: "late", Command: "/bin/sh", Args: []string{"-c", lateAnswerAfter(2 + pending)},
		Env:    map[string]string{markVar: mark},
		Logger: logs.Logger(), CloseGrace: 200 * time.Millisecond, TermGrace: 200 * time.Millisecond,
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), harness.Bound)
		defer cancel()
		conn.Close(ctx)
	})
	pid := proctest.WaitChild(t, markVar+"="+mark)
	obs := &panickingObserver{}
	if _, err := conn.Call(harness.Context(t), "tools/call", nil, RequestOptions{Timeout: 100 * time.Millisecond, Observer: obs}); !errors.Is(err, errkind.ErrTimeout) {
		t.Fatalf("call 1: %v, want a timeout", err)
	}
	errs := make(chan error, pending)
	for range pending {
		go func() {
			_, err := conn.Call(harness.Context(t), "tools/call", json.RawMessage(`{}`), RequestOptions{})
			errs <- err
		}()
	}
	for range pending {
		select {
		case err := <-errs:
			var pe *PanicError
			if !errors.Is(err, errkind.ErrTransportClosed) || !errors.As(err, &pe) || pe.Value != "late answer" {
				t.Errorf("pending call: %v, want the panic", err)
			}
		case <-time.After(harness.Bound):
			t.Fatal("a pending call never ended")
		}
	}
	select {
	case <-conn.Done():
	case <-time.After(harness.Bound):
		t.Fatal("the transport never ended")
	}
	if closed := recv[TransportClosed](t, r); !errors.Is(closed.Err, errkind.ErrTransportClosed) {
		t.Errorf("owner told %v", closed.Err)
	}
	if _, err := conn.Call(harness.Context(t), "ping", nil, RequestOptions{}); !errors.Is(err, errkind.ErrTransportClosed) {
		t.Errorf("a new call: %v", err)
	}
	stack := obs.stack.Load()
	if stack == nil {
		t.Fatal("the late answer never reached the observer")
	}
	// The test is about the inline path: make sure that is where the
	// panic was (with our mailbox), or where protoactor's runs it.
	want := []string{"(*process).read", "(*ownMailbox).PostUserMessage"}
	if useDefaultMailbox {
		want = []string{"(*defaultMailbox).processMessages"}
	}
	for _, w := range want {
		if !strings.Contains(*stack, w) {
			t.Errorf("the panic's stack has no %s:\n%s", w, *stack)
		}
	}
	proctest.WaitGone(t, pid)
	if !strings.Contains(logs.String(), "transport actor panicked") {
		t.Errorf("the panic was not logged:\n%.500s", logs.String())
	}
}
