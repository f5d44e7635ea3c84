package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// fleet is the sessions one client holds: n of them, each reached by its
// index.
type fleet interface {
	// call makes tools/call of tool on session i and returns the text of
	// the result's first content item (a tool error, or a first item that
	// is not text, is an error).
	call(ctx context.Context, i int, tool string, args json.RawMessage) (string, error)
	// protocol is the protocol version the sessions negotiated.
	protocol() string
	close(ctx context.Context) error
}

// upFunc brings up sp.Sessions sessions, at most sp.Parallel at a time,
// and returns when each is up or has failed; failed holds the error of
// each session that did not come up (nil where it did), and the fleet is
// what came up, to be closed.
type upFunc func(ctx context.Context, sp spec, env *environment) (f fleet, failed []error, err error)

// environment is what the sessions connect to: the stdio server's command,
// or the HTTP server's URL.
type environment struct {
	stdio measure.StdioServer
	url   string
}

// spread is a measure.Caller that sends each call to the next session in
// turn, so that the calls go to all of them alike.
type spread struct {
	f    fleet
	live []int // the sessions that came up
	next atomic.Uint64
}

func (s *spread) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	i := s.live[int(s.next.Add(1)%uint64(len(s.live)))]
	return s.f.call(ctx, i, tool, args)
}

// limited runs f(i) for i in [0, n), at most p at once (all at once when
// p <= 0), and waits for them.
func limited(n, p int, f func(i int)) {
	if p <= 0 || p > n {
		p = n
	}
	sem := make(chan struct{}, p)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

// mem is a reading of this process's memory after garbage collection and
// after returning free memory to the OS.
type mem struct {
	heapInuse, stacks uint64
	rss               int64
	goroutines        int
}

func readFloor() mem {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, _ := measure.ProcStatus()
	return mem{heapInuse: ms.HeapInuse, stacks: ms.StackInuse, rss: rss, goroutines: runtime.NumGoroutine()}
}

// measureHere performs one measurement in this process: start what the
// scenario connects to, read the memory, bring up the sessions (each has
// answered one call when it is up), rest, read the memory again, then
// spread calls over every session for sp.Duration, and close.
func measureHere(sp spec) result {
	r := result{Scenario: sp.Scenario, Client: sp.Client, Sessions: sp.Sessions}
	sc, ok := scenarioByName(sp.Scenario)
	if !ok {
		r.fail(sp.Sessions, fmt.Errorf("unknown scenario %q", sp.Scenario))
		return r
	}
	up, ok := sc.up[sp.Client]
	if !ok {
		r.fail(sp.Sessions, fmt.Errorf("no client %q in scenario %s", sp.Client, sp.Scenario))
		return r
	}
	env, stop, err := sc.start(sp)
	if err != nil {
		r.fail(sp.Sessions, err)
		return r
	}
	defer stop()
	timeout := sp.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	before := readFloor()
	cpu0 := measure.ProcessCPU()
	start := time.Now()
	f, failed, err := up(ctx, sp, env)
	r.BringUp = time.Since(start)
	r.BringUpCPU = measure.ProcessCPU() - cpu0
	if err != nil {
		r.fail(sp.Sessions, err)
		if f == nil {
			return r
		}
	}
	var live []int
	for i, ferr := range failed {
		if ferr != nil {
			r.fail(1, fmt.Errorf("session %d: %w", i, ferr))
		} else {
			live = append(live, i)
		}
	}
	if f != nil {
		r.Protocol = f.protocol()
	}

	time.Sleep(sp.Rest)
	rest, _ := measure.ProcStatus()
	after := readFloor()
	r.RSSRest = rest - before.rss
	r.Floor = after.rss - before.rss
	r.HeapInuse = int64(after.heapInuse) - int64(before.heapInuse)
	r.Stacks = int64(after.stacks) - int64(before.stacks)
	r.Goroutines = after.goroutines - before.goroutines

	if sp.Duration > 0 && len(live) > 0 {
		s, err := measure.MeasureCalls(ctx, &spread{f: f, live: live}, measure.CallSpec{
			Load: measure.EchoUnique, InFlight: sp.InFlight, Warmup: sp.Warmup, Duration: sp.Duration,
		})
		if err != nil {
			r.fail(0, err)
		}
		r.Calls = s
		r.Errors += int(s.Errors + s.Mismatches)
		if r.FirstErr == "" {
			r.FirstErr = s.FirstErr
		}
	}

	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	if err := f.close(cctx); err != nil {
		// Reported, not counted: some clients report a server's exit on
		// close as an error.
		fmt.Fprintf(os.Stderr, "  %s close: %s\n", sp.Client, measure.OneLine(err.Error()))
	}
	runtime.KeepAlive(f)
	return r
}

// firstCall is the call every session answers as part of its bring-up:
// an echo whose answer is checked, so that a session counts as up only
// once it has served a call.
func firstCall(ctx context.Context, call func(ctx context.Context, tool string, args json.RawMessage) (string, error), i int) error {
	msg := fmt.Sprintf("up-%d", i)
	got, err := call(ctx, "echo", measure.AppendArgs(nil, "message", msg))
	if err != nil {
		return err
	}
	if got != msg {
		return fmt.Errorf("first call: want %q, got %q", msg, got)
	}
	return nil
}
