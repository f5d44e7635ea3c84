package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// The control probe is the yardstick of the isolation check: a goroutine
// of the soak process that makes a pipe round trip to a cat process every
// 20 ms, through os/exec pipes, without touching the runtime. What slows
// it down is the machine (its two cores shared by the fleet, the faults'
// restarts and whatever else runs there) and this process's own Go
// scheduler, never the runtime's actors, transports or queues. Its
// latency in each isolation window, against its own quiet baseline, says
// whether that window can judge the runtime at all (checks.go).
//
// It runs in every run, and its slots are kept in a file beside the call
// history (probe.bin), for the same reason as the calls: half an hour of
// them in memory would be what the RSS check measures.

// probeEvery is the probe's schedule.
const probeEvery = 20 * time.Millisecond

// probeRec is one slot of the probe's schedule: the time it was due
// (nanoseconds since the run's start) and how long after that its round
// trip came back.
type probeRec struct {
	At  int64
	Lat int64
}

// probeSlots answers every slot due by the time a round trip was sent
// (next, next+every, ... up to sent) with that trip's end, and returns
// the next slot due. The latency is counted from the slot, not from the
// send: a probe frozen with the machine, whether in its round trip or
// waiting for its next tick, comes back with every slot it missed late,
// so that a four-second freeze is two hundred slow slots of a window, as
// it is for the calls in flight then, and not one slow trip among three
// thousand, which a p99 would not see.
func probeSlots(start, next, sent, end time.Time, every time.Duration, f func(probeRec)) time.Time {
	for !next.After(sent) {
		f(probeRec{At: int64(next.Sub(start)), Lat: int64(end.Sub(next))})
		next = next.Add(every)
	}
	return next
}

// probeTap hands the probe's latencies (ms) since the last drain to the
// diagnostics (diag.go), which log them a second at a time.
type probeTap struct {
	mu  sync.Mutex
	lat []float64
}

func (t *probeTap) add(ms float64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.lat = append(t.lat, ms)
	t.mu.Unlock()
}

func (t *probeTap) drain() []float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	lat := t.lat
	t.lat = nil
	return lat
}

// startProbe starts the probe's cat process and file; the returned
// function runs the probe until ctx ends, then closes both. A probe that
// cannot start is an error of the run: without it, no window could be
// judged.
func (r *runner) startProbe(ctx context.Context, path string, tap *probeTap) (func(), error) {
	cmd := exec.CommandContext(ctx, "cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("control probe: %w", err)
	}
	return func() {
		w := bufio.NewWriter(f)
		defer func() {
			if err := errors.Join(w.Flush(), f.Close()); err != nil {
				r.logf("control probe: %v", err)
			}
		}()
		defer func() {
			in.Close()
			_ = cmd.Wait()
		}()
		rd := bufio.NewReader(out)
		timer := time.NewTimer(0)
		defer timer.Stop()
		next := time.Now()
		record := func(p probeRec) {
			_ = binary.Write(w, binary.LittleEndian, &p)
			tap.add(float64(p.Lat) / float64(time.Millisecond))
		}
		for {
			if d := time.Until(next); d > 0 {
				timer.Reset(d)
				select {
				case <-ctx.Done():
					return
				case <-timer.C:
				}
			} else if ctx.Err() != nil {
				return
			}
			sent := time.Now()
			if _, err := in.Write([]byte("probe\n")); err != nil {
				r.logProbeEnd(ctx, err)
				return
			}
			if _, err := rd.ReadString('\n'); err != nil {
				r.logProbeEnd(ctx, err)
				return
			}
			next = probeSlots(r.start, next, sent, time.Now(), probeEvery, record)
		}
	}, nil
}

// logProbeEnd logs a probe that ended before its run did: the windows
// after it are not judged, and the log says why.
func (r *runner) logProbeEnd(ctx context.Context, err error) {
	if ctx.Err() == nil {
		r.logf("control probe ended early: %v", err)
	}
}

// readProbe calls f for every slot of the probe's file, in order.
func readProbe(path string, f func(probeRec)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	rd := bufio.NewReader(file)
	var p probeRec
	for {
		if err := binary.Read(rd, binary.LittleEndian, &p); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		f(p)
	}
}
