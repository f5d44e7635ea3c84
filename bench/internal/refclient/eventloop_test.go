package refclient

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

func startEventLoop(t *testing.T, cmd *exec.Cmd) *EventLoop {
	t.Helper()
	return mustStart(t, "StartEventLoop", StartEventLoop, cmd)
}

// echoLoad calls echo with message(i) and wants it back, escaped as
// jsonscan.AppendString escapes it (fastserver returns the string as it came).
var echoLoad = Load{
	Tool: "echo",
	Args: func(b []byte, i uint64) []byte {
		b = append(b, `{"message":`...)
		return append(jsonscan.AppendString(b, message(int(i))), '}')
	},
	Want: func(b []byte, i uint64) []byte {
		q := jsonscan.AppendString(b, message(int(i)))
		return append(q[:len(b)], q[len(b)+1:len(q)-1]...)
	},
}

func sleepLoad(ms int) Load {
	want := "slept " + strconv.Itoa(ms) + "ms"
	return Load{
		Tool: "sleep",
		Args: func(b []byte, _ uint64) []byte { return append(b, `{"ms":`+strconv.Itoa(ms)+`}`...) },
		Want: func(b []byte, _ uint64) []byte { return append(b, want...) },
	}
}

func TestEventLoopEcho(t *testing.T) {
	e := startEventLoop(t, fastserver())
	if got := e.Protocol(); got != "2025-11-25" {
		t.Errorf("Protocol() = %q", got)
	}
	ctx := context.Background()
	for round := range 2 { // a second run on the same session: ids go on
		var recorded atomic.Uint64
		r := e.Run(ctx, echoLoad, 32, 200*time.Millisecond, func(d time.Duration) {
			if d <= 0 {
				t.Errorf("latency %v", d)
			}
			recorded.Add(1)
		})
		t.Logf("round %d: %+v", round, r)
		if r.Calls < 32 || r.Errors != 0 || r.Mismatches != 0 || r.FirstErr != "" {
			t.Errorf("round %d: %+v", round, r)
		}
		if recorded.Load() != r.Calls {
			t.Errorf("round %d: record called %d times for %d calls", round, recorded.Load(), r.Calls)
		}
		if r.Elapsed < 200*time.Millisecond || r.Elapsed > 5*time.Second {
			t.Errorf("round %d: Elapsed %v", round, r.Elapsed)
		}
	}

	// A wrong answer is a mismatch, not a good call.
	wrong := echoLoad
	wrong.Want = func(b []byte, i uint64) []byte { return append(b, "something else"...) }
	var recorded atomic.Uint64
	r := e.Run(ctx, wrong, 4, 50*time.Millisecond, func(time.Duration) { recorded.Add(1) })
	if r.Calls == 0 || r.Mismatches != r.Calls || r.Errors != 0 || !strings.Contains(r.FirstErr, "something else") || recorded.Load() != 0 {
		t.Errorf("mismatching run: %+v, %d recorded", r, recorded.Load())
	}
	closeOK(t, e)
}

func TestEventLoopBig(t *testing.T) {
	e := startEventLoop(t, fastserver())
	x := bytes.Repeat([]byte{'x'}, 65536)
	r := e.RunCount(context.Background(), Load{
		Tool: "big",
		Args: func(b []byte, _ uint64) []byte { return append(b, `{"bytes":65536}`...) },
		Want: func(b []byte, _ uint64) []byte { return append(b, x...) },
	}, 20, nil)
	if r.Calls != 20 || r.Errors != 0 || r.Mismatches != 0 {
		t.Errorf("big: %+v", r)
	}
	closeOK(t, e)
}

func TestEventLoopSleepCount(t *testing.T) {
	e := startEventLoop(t, fastserver())
	var recorded atomic.Uint64
	r := e.RunCount(context.Background(), sleepLoad(20), 1000, func(d time.Duration) {
		if d < 20*time.Millisecond {
			t.Errorf("latency %v of a 20ms sleep", d)
		}
		recorded.Add(1)
	})
	t.Logf("%+v", r)
	if r.Calls != 1000 || r.Errors != 0 || r.Mismatches != 0 || recorded.Load() != 1000 {
		t.Errorf("RunCount: %+v, %d recorded", r, recorded.Load())
	}
	if r.Elapsed < 20*time.Millisecond {
		t.Errorf("Elapsed %v", r.Elapsed)
	}
	closeOK(t, e)
}

func TestEventLoopErrors(t *testing.T) {
	e := startEventLoop(t, fastserver())
	ctx := context.Background()
	r := e.RunCount(ctx, Load{Tool: "nope"}, 10, nil)
	if r.Calls != 10 || r.Errors != 10 || !strings.Contains(r.FirstErr, "-32602") {
		t.Errorf("unknown tool: %+v", r)
	}
	r = e.Run(ctx, Load{Tool: "echo"}, 4, 20*time.Millisecond, nil) // no message: a tool error
	if r.Calls == 0 || r.Errors != r.Calls || !strings.Contains(r.FirstErr, "tool error") {
		t.Errorf("tool error: %+v", r)
	}
	closeOK(t, e)
}

func TestEventLoopServerDies(t *testing.T) {
	cmd := fastserver()
	e := startEventLoop(t, cmd)
	time.AfterFunc(100*time.Millisecond, func() { cmd.Process.Kill() })
	start := time.Now()
	r := e.Run(context.Background(), sleepLoad(5000), 50, 10*time.Second, nil)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run against a killed server took %v", d)
	}
	if r.Calls != 50 || r.Errors != 50 || r.FirstErr == "" {
		t.Errorf("Run against a killed server: %+v", r)
	}
	// And a run after that returns at once.
	r = e.RunCount(context.Background(), sleepLoad(1), 5, nil)
	if r.Errors != 5 {
		t.Errorf("RunCount after the server died: %+v", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.Close(ctx)
	checkNoGoroutines(t)
}

func TestEventLoopCtx(t *testing.T) {
	e := startEventLoop(t, fastserver())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r := e.Run(ctx, sleepLoad(5000), 30, 10*time.Second, nil)
	if r.Calls != 30 || r.Errors != 30 || !strings.Contains(r.FirstErr, "deadline") {
		t.Errorf("Run bounded by ctx: %+v", r)
	}
	// The late answers of that run do not count in the next one.
	r = e.Run(context.Background(), echoLoad, 8, 50*time.Millisecond, nil)
	if r.Errors != 0 || r.Mismatches != 0 || r.Calls == 0 {
		t.Errorf("run after an abandoned one: %+v", r)
	}
	closeOK(t, e)
}

func TestEventLoopUnusualServer(t *testing.T) {
	e := startEventLoop(t, fake(t, "weird"))
	plain := Load{
		Tool: "echo",
		Args: func(b []byte, i uint64) []byte {
			b = strconv.AppendUint(append(b, `{"message":"m`...), i, 10)
			return append(b, `"}`...)
		},
		Want: func(b []byte, i uint64) []byte { return strconv.AppendUint(append(b, 'm'), i, 10) },
	}
	r := e.Run(context.Background(), plain, 8, 200*time.Millisecond, nil)
	if r.Calls == 0 || r.Errors != 0 || r.Mismatches != 0 {
		t.Errorf("Run against an unusual server: %+v", r)
	}
	closeOK(t, e)
}

func TestEventLoopCloseDuringRun(t *testing.T) {
	e := startEventLoop(t, fastserver())
	time.AfterFunc(100*time.Millisecond, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e.Close(ctx)
	})
	start := time.Now()
	r := e.Run(context.Background(), echoLoad, 16, 10*time.Second, nil)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run went on %v after Close", d)
	}
	if r.Calls == 0 {
		t.Errorf("Run interrupted by Close: %+v", r)
	}
	checkNoGoroutines(t)
	if r := e.RunCount(context.Background(), echoLoad, 3, nil); r.Calls != 3 || r.Errors != 3 || r.FirstErr == "" {
		t.Errorf("RunCount after Close: %+v", r)
	}
}
