package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// exposed is the manager's name of one of the server's tools.
func (s *server) exposed(tool string) string {
	if e, ok := s.tools[tool]; ok {
		return e
	}
	return "mcp__" + s.name + "__" + tool
}

// runLoad runs the callers until ctx ends; each finishes the call it is
// in (bounded by the call's own deadline, never by ctx) and returns. It
// returns when every caller has, or when grace has passed after ctx
// ended: the callers still in a call then are calls that did not end in
// time, and the history misses them, which the checks report.
func (r *runner) runLoad(ctx context.Context) (stuck int) {
	var wg sync.WaitGroup
	var active atomic.Int64
	for i := range r.cfg.callers {
		wg.Add(1)
		active.Add(1)
		rng := rand.New(rand.NewPCG(uint64(r.cfg.seed), uint64(i)+1))
		go func() {
			defer wg.Done()
			defer active.Add(-1)
			// Spread the first calls over a second.
			select {
			case <-time.After(time.Duration(rng.Int64N(int64(time.Second)))):
			case <-ctx.Done():
				return
			}
			for ctx.Err() == nil {
				s := r.fleet[rng.IntN(len(r.fleet))]
				op := pickOp(s.kind, rng)
				if op == opRead && s.uri == "" {
					op = opEcho
				}
				rec := r.call(s, op, buildOp(s.kind, op, r.cfg.slow, rng))
				// Each caller makes a call every pace or so (a slow
				// call: the next at once), so the rate stays what a
				// shared machine can take with thousands of callers.
				cycle := time.Duration((0.5 + rng.Float64()) * float64(r.cfg.pace))
				pause := cycle - time.Duration(rec.End-rec.Start)
				if pause < 0 {
					pause = 0
				}
				select {
				case <-time.After(pause):
				case <-ctx.Done():
				}
			}
		}()
	}
	<-ctx.Done()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return 0
	case <-time.After(r.cfg.grace):
		return int(active.Load())
	}
}

// call makes one operation under a span of the soak's own and records it.
func (r *runner) call(s *server, op uint8, c opCall) callRec {
	id := r.ids.Add(1)
	limit := r.cfg.callLimit
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	ctx, span := r.tracer.Start(ctx, "soak call")
	sid := span.SpanContext().SpanID()
	r.spans.open(sid)
	var gen uint32
	if cl, ok := r.m.Client(s.name); ok {
		gen = uint32(cl.Generation().Number)
	}
	var late atomic.Int32
	var done atomic.Bool
	start := time.Now()
	r.inflight.Add(1)
	res, err := perform(ctx, r.m, s, op, c, &late, &done)
	r.inflight.Add(-1)
	end := time.Now()
	done.Store(true)
	tally := r.spans.close(sid)
	span.End()
	cl, ca := classify(res, err)
	if cl == cUnknown {
		r.noteUnknown(s.name, err)
	}
	if ca == causeStreamBroken {
		r.noteFinding(findStreamBroken, s.name, err)
	}
	rec := callRec{
		ID: id, Server: uint16(s.idx), Op: op, Class: cl, Cause: ca,
		Spans: uint8(min(tally.n, 255)), SpanType: spanTypeCode(tally.errType),
		Gen:   gen,
		Start: int64(start.Sub(r.start)), End: int64(end.Sub(r.start)), Limit: int64(limit),
	}
	// Progress after the return can only come in while the callback is
	// still referenced: look once more, a moment later, off the path.
	if c.progress {
		time.AfterFunc(100*time.Millisecond, func() {
			if n := late.Load(); n > 0 {
				r.lateProgress.Add(int64(n))
			}
		})
	}
	rec.Late = uint8(min(late.Load(), 255))
	r.hist.add(&rec)
	return rec
}

// faultCall is a call the fault injector makes through the manager, on
// the callers' path, recorded as theirs are.
func (r *runner) faultCall(s *server, tool string, args any) callRec {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return r.call(s, opFault, opCall{tool: tool, args: raw, timeout: 20 * time.Second})
}

// noteUnknown keeps the first unclassified errors for the report.
func (r *runner) noteUnknown(server string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.unknowns) < 20 {
		r.unknowns = append(r.unknowns, server+": "+errText(err))
	}
}

// noteFinding keeps the first errors of a finding for the report.
func (r *runner) noteFinding(what, server string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.findings[what]) < 5 {
		r.findings[what] = append(r.findings[what], server+": "+errText(err))
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
