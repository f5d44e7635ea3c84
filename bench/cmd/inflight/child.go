package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// envChild, when set ("client n ms server"), makes this program one
// measurement's process: n calls in flight, or the idle measurement when
// n is 0.
const envChild = "MCPACTOR_INFLIGHT_CHILD"

// sample is what one measurement's process reports.
type sample struct {
	Elapsed time.Duration `json:"elapsed"` // from the first call started to the last answered
	HWM     int64         `json:"hwm"`     // peak RSS of the process, bytes
	Base    int64         `json:"base"`    // RSS once connected, before the calls, bytes
	// Stack and Heap are the growth of the goroutine stacks in use and of
	// the heap in use from before the calls to halfway through them, when
	// every call is waiting for its answer (runtime.MemStats), bytes.
	Stack    int64  `json:"stack"`
	Heap     int64  `json:"heap"`
	Calls    uint64 `json:"calls"`    // answered as expected
	Errors   uint64 `json:"errors"`   // failed or wrong answers, and failures to connect
	FirstErr string `json:"firstErr"` // the first of them
	Protocol string `json:"protocol"`
}

func (s sample) String() string {
	line := fmt.Sprintf("%6d calls in %8s  peak RSS %s (connected %s)  %s", s.Calls, measure.Dur(s.Elapsed), measure.Bytes(float64(s.HWM)), measure.Bytes(float64(s.Base)), s.Protocol)
	if s.Errors > 0 {
		line += fmt.Sprintf("  errors=%d first: %s", s.Errors, s.FirstErr)
	}
	return line
}

// measureInChild runs one measurement in a process of its own.
func measureInChild(cfg *config, client string, n int) sample {
	var s sample
	if err := runChild(cfg, client, n, &s); err != nil {
		return sample{Errors: 1, FirstErr: err.Error()}
	}
	return s
}

// runChild runs this program as one measurement's process and decodes
// what it prints into out: n calls in flight, or the idle measurement
// when n is 0.
func runChild(cfg *config, client string, n int, out any) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %s", envChild, client, n, cfg.ms, cfg.server))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("measurement process: %v: %s", err, measure.OneLine(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("measurement process's output: %v: %q", err, stdout.String())
	}
	return nil
}

// runIfChild makes one measurement and exits, when this program was
// started for one.
func runIfChild() {
	v := os.Getenv(envChild)
	if v == "" {
		return
	}
	f := strings.Fields(v)
	if len(f) != 4 {
		fatalf("bad %s=%q", envChild, v)
	}
	n, err1 := strconv.Atoi(f[1])
	ms, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		fatalf("bad %s=%q", envChild, v)
	}
	var out []byte
	if n == 0 {
		out, _ = json.Marshal(idleHere(f[0], ms, measure.StdioServerOf(f[3], "")))
	} else {
		out, _ = json.Marshal(measureHere(f[0], n, ms, measure.StdioServerOf(f[3], "")))
	}
	os.Stdout.Write(append(out, '\n'))
	os.Exit(0)
}

// measureHere is one measurement, in this process: client connects,
// warms up with one call, then makes n calls of the tool at once.
func measureHere(client string, n, ms int, srv measure.StdioServer) sample {
	load := measure.Sleep(ms)
	// Generous: the calls take ms, and a client that stops answering must
	// fail its calls rather than hang the run.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute+time.Duration(ms)*time.Millisecond)
	defer cancel()
	if client == measure.EventLoopName {
		e, err := measure.StartEventLoop(ctx, srv)
		if err != nil {
			return sample{Errors: 1, FirstErr: "connect: " + err.Error()}
		}
		defer closeQuietly(e.Close)
		rl := measure.RefLoad(load)
		e.RunCount(ctx, rl, 1, nil)
		s := sample{Protocol: e.Protocol()}
		s.Base, _ = measure.ProcStatus()
		mid := readHalfway(&s, ms)
		r := e.RunCount(ctx, rl, n, nil)
		mid()
		s.Elapsed, s.Calls, s.Errors, s.FirstErr = r.Elapsed, r.Calls, r.Errors+r.Mismatches, r.FirstErr
		_, s.HWM = measure.ProcStatus()
		return s
	}
	prof := startProfile(client, n)
	c, err := measure.DialStdio(ctx, client, srv)
	if err != nil {
		return sample{Errors: 1, FirstErr: "connect: " + err.Error()}
	}
	defer closeQuietly(c.Close)
	args, want := load.Call(0, 0)
	if got, err := c.Call(ctx, load.Tool, args); err != nil || got != want {
		return sample{Errors: 1, FirstErr: fmt.Sprintf("warm-up call: %q, %v", got, err)}
	}
	s := sample{Protocol: c.Protocol()}
	s.Base, _ = measure.ProcStatus()
	mid := readHalfway(&s, ms)
	prof.calls(ms)
	var calls, errs atomic.Uint64
	var firstErr sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range n {
		wg.Go(func() {
			got, err := c.Call(ctx, load.Tool, args)
			if err == nil && got == want {
				calls.Add(1)
				return
			}
			errs.Add(1)
			firstErr.Do(func() { s.FirstErr = fmt.Sprintf("%q, %v", got, err) })
		})
	}
	wg.Wait()
	s.Elapsed = time.Since(start)
	prof.end()
	mid()
	s.Calls, s.Errors = calls.Load(), errs.Load()
	_, s.HWM = measure.ProcStatus()
	return s
}

// readHalfway reads the stacks and heap in use now and again halfway
// through the tool's ms, and sets their growth in s when the returned
// function is called (after the calls).
func readHalfway(s *sample, ms int) func() {
	var before, during runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	t := time.AfterFunc(time.Duration(ms)*time.Millisecond/2, func() {
		runtime.ReadMemStats(&during)
		close(done)
	})
	return func() {
		if !t.Stop() {
			<-done
			s.Stack = int64(during.StackInuse) - int64(before.StackInuse)
			s.Heap = int64(during.HeapInuse) - int64(before.HeapInuse)
		}
	}
}

func closeQuietly(close func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = close(ctx)
}
