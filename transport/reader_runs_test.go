package transport

import (
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// TestReaderRunsNeverWaitForTheNextFrame checks the reader's batching: the
// frames read together reach the actor together, in order, and a frame is
// never held back because the one after it is still arriving.
func TestReaderRunsNeverWaitForTheNextFrame(t *testing.T) {
	sys := harness.ActorSystem(t)
	got := make(chan any, 16)
	pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *inbound, readerDone:
			got <- m
		}
	}))
	t.Cleanup(func() { sys.Root.Stop(pid) })

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{stats: &Counters{}, stdout: r, credits: make(chan struct{}, inboundCredits), bytes: newByteCredits(defaultInboundBytes)}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.read(&StdioConfig{Limits: Limits{MaxFrameSize: 1 << 20}, Logger: slog.New(slog.DiscardHandler)}, sys.Root, pid, quit)
	}()
	defer func() { close(quit); <-done }()

	next := func() any {
		t.Helper()
		select {
		case m := <-got:
			return m
		case <-time.After(harness.Bound):
			t.Fatal("the reader sent nothing")
			return nil
		}
	}
	// ids collects the ids of the next n frames, whatever runs they come in.
	ids := func(n int) []int64 {
		t.Helper()
		var out []int64
		for len(out) < n {
			in, ok := next().(*inbound)
			if !ok || len(in.msgs) == 0 {
				t.Fatalf("want a run of frames, got %#v", in)
			}
			for _, m := range in.msgs {
				id, _ := m.ID.Int64()
				out = append(out, id)
			}
		}
		return out
	}

	// Two whole frames (a blank line between them) and the start of a
	// third, in one write: the two must arrive while the third is stuck.
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n \n"+`{"jsonrpc":"2.0","id":2,"result":{}}`+"\n"+`{"jsonrpc":"2.0","id":3,`)
	if got := ids(2); got[0] != 1 || got[1] != 2 {
		t.Fatalf("ids %v, want [1 2]", got)
	}
	io.WriteString(w, `"result":{}}`+"\n")
	if got := ids(1); got[0] != 3 {
		t.Fatalf("ids %v, want [3]", got)
	}
	w.Close()
	if _, ok := next().(readerDone); !ok {
		t.Fatal("want readerDone after the stream ended")
	}
}
