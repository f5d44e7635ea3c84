package actors_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

func TestTimeoutTellsTheServer(t *testing.T) {
	s := connect(t, testserver.Options{NeverAnswer: true, ReportCancels: true}, actors.Env{}, nil)
	start := time.Now()
	_, err := s.c.CallToolWith(harness.Context(t), "echo", map[string]any{"message": "x"}, actors.Call{Timeout: 200 * time.Millisecond})
	var te *callerr.Error
	if !(errors.As(err, &te) && callerr.Timeout(te) == te) || !errors.Is(err, errkind.ErrTimeout) || err.Error() != `MCP server "ts": tools/call (id `+te.ID.String()+`): Request timeout after 200ms` ||
		te.Server != "ts" || te.Method != messages.MethodToolsCall || !te.ID.IsValid() {
		t.Fatalf("got %#v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 200 ms timeout took %v", d)
	}
	line := s.stderr.Wait(t, "cancelled "+te.ID.String()+" ")
	if !strings.HasSuffix(line, "Request timeout after 200ms") {
		t.Errorf("the server was told %q", line)
	}
	// The connection is unharmed.
	if _, err := s.c.ListTools(harness.Context(t)); err != nil {
		t.Errorf("tools/list: %v", err)
	}
}

func TestServerRequestTimeoutDefault(t *testing.T) {
	s := connect(t, testserver.Options{NeverAnswer: true}, actors.Env{}, func(c *actors.Spec) {
		c.Limits.RequestTimeout = 150 * time.Millisecond
	})
	if _, err := s.c.CallTool(harness.Context(t), "echo", nil); err == nil || !strings.HasPrefix(err.Error(), `MCP server "ts": tools/call (id `) || !strings.HasSuffix(err.Error(), "): Request timeout after 150ms") {
		t.Errorf("got %v", err)
	}
}

func TestCancellationTellsTheServer(t *testing.T) {
	s := connect(t, testserver.Options{NeverAnswer: true, ReportCancels: true}, actors.Env{}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := s.c.CallTool(ctx, "echo", map[string]any{"message": "x"})
	var ce *callerr.Error
	if !(errors.As(err, &ce) && callerr.Canceled(ce) == ce) || !errors.Is(err, context.Canceled) || errors.Is(err, errkind.ErrTimeout) || !ce.ID.IsValid() {
		t.Fatalf("got %#v", err)
	}
	line := s.stderr.Wait(t, "cancelled "+ce.ID.String())
	if !strings.HasSuffix(line, "context canceled") {
		t.Errorf("the server was told %q", line)
	}
	// Every cancellation named a tools/call: initialize never is.
	for _, l := range s.stderr.WithPrefix("cancelled ") {
		if l != line {
			t.Errorf("unexpected %q", l)
		}
	}
}

// goid returns the calling goroutine's id, to check where callbacks run.
func goid() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := bytes.Fields(b)
	return string(f[1]) // "goroutine 123 [running]:..."
}

func TestProgressArrivesInOrderOnTheCallingGoroutine(t *testing.T) {
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	me := goid()
	// Many short runs: the last progress and the answer arrive together,
	// and none may be lost to the race between them.
	for run := range 20 {
		var got []float64
		res, err := s.c.CallToolWith(harness.Context(t), "progress", map[string]any{"steps": 5, "intervalMs": 0}, actors.Call{
			OnProgress: func(p messages.ProgressParams) {
				if g := goid(); g != me {
					t.Errorf("progress on goroutine %s, caller is %s", g, me)
				}
				got = append(got, p.Progress)
			},
		})
		if err != nil || text(t, res) != "done" {
			t.Fatalf("run %d: %+v, %v", run, res, err)
		}
		if len(got) != 5 {
			t.Fatalf("run %d: progress %v, want 1..5", run, got)
		}
		for i, p := range got {
			if p != float64(i+1) {
				t.Fatalf("run %d: progress %v, want 1..5 in order", run, got)
			}
		}
	}
	if st := s.c.Stats(); st.DroppedProgress != 0 || st.UnknownIDs != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestProgressTokensAreSeparate(t *testing.T) {
	// Concurrent calls each see only their own progress.
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	errs := concurrently(t, 10, func(i int) error {
		var tokens = map[string]bool{}
		n := 0
		_, err := s.c.CallToolWith(harness.Context(t), "progress", map[string]any{"steps": 4, "intervalMs": 5}, actors.Call{
			OnProgress: func(p messages.ProgressParams) {
				key, _ := messages.ProgressTokenKey(p.ProgressToken)
				tokens[key] = true
				n++
			},
		})
		if err == nil && (n != 4 || len(tokens) != 1) {
			err = errors.New("call " + strconv.Itoa(i) + " saw " + strconv.Itoa(n) + " notifications with several tokens")
		}
		return err
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestResetTimeoutOnProgress(t *testing.T) {
	// 40 steps 20 ms apart take at least 800 ms; the timeout is 400 ms.
	// Progress keeps the call alive only when it is asked to.
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	args := map[string]any{"steps": 40, "intervalMs": 20}
	steps := 0
	res, err := s.c.CallToolWith(harness.Context(t), "progress", args, actors.Call{
		Timeout: 400 * time.Millisecond, ResetTimeoutOnProgress: true,
		OnProgress: func(messages.ProgressParams) { steps++ },
	})
	if err != nil || text(t, res) != "done" || steps != 40 {
		t.Fatalf("with reset: %+v, %v after %d steps", res, err, steps)
	}
	_, err = s.c.CallToolWith(harness.Context(t), "progress", args, actors.Call{
		Timeout: 400 * time.Millisecond, OnProgress: func(messages.ProgressParams) {},
	})
	if err == nil || !strings.HasPrefix(err.Error(), `MCP server "ts": tools/call (id `) || !strings.HasSuffix(err.Error(), "): Request timeout after 400ms") {
		t.Fatalf("without reset: %v", err)
	}
}

func TestMaxTotalTimeoutCapsProgress(t *testing.T) {
	s := connect(t, testserver.Options{ReportCancels: true}, actors.Env{}, nil)
	start := time.Now()
	_, err := s.c.CallToolWith(harness.Context(t), "progress", map[string]any{"steps": 1000, "intervalMs": 20}, actors.Call{
		Timeout: 400 * time.Millisecond, ResetTimeoutOnProgress: true, MaxTotalTimeout: 700 * time.Millisecond,
		OnProgress: func(messages.ProgressParams) {},
	})
	took := time.Since(start)
	var te *callerr.Error
	if !(errors.As(err, &te) && callerr.Timeout(te) == te) || err.Error() != `MCP server "ts": tools/call (id `+te.ID.String()+`): Request timeout after 700ms` {
		t.Fatalf("got %v", err)
	}
	if took < 700*time.Millisecond || took > 10*time.Second {
		t.Errorf("capped at 700 ms, ended after %v", took)
	}
	s.stderr.Wait(t, "cancelled "+te.ID.String())
}
