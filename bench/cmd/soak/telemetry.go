package main

import (
	"context"
	"sync"
	"sync/atomic"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// soakScope is the tracer of the soak's own spans: one per call, the
// parent of the runtime's span of that call, so that the runtime's spans
// are told apart by call without keeping them (an exporter in memory
// would be what the RSS check measures after an hour).
const soakScope = "github.com/mcpactor/mcpactor/bench/cmd/soak"

// spanCheck is a span processor that counts, for each open call, the
// runtime's CLIENT spans whose parent is the call's span and that have
// ended, with the error.type of the last one; and, for the runtime's
// spans as a whole, how many started and ended, and how many ended under a
// call that had already returned (late).
type spanCheck struct {
	mu      sync.Mutex
	calls   map[trace.SpanID]*spanTally
	done    map[trace.SpanID]struct{} // calls returned lately (a ring of them)
	ring    []trace.SpanID
	ringPos int

	started, ended, late atomic.Int64
}

type spanTally struct {
	n       int
	errType string
}

func newSpanCheck() *spanCheck {
	return &spanCheck{calls: map[trace.SpanID]*spanTally{}, done: map[trace.SpanID]struct{}{}, ring: make([]trace.SpanID, 1<<16)}
}

// open registers a call's span before the call.
func (s *spanCheck) open(id trace.SpanID) {
	s.mu.Lock()
	s.calls[id] = &spanTally{}
	s.mu.Unlock()
}

// close ends a call's registration and returns what its spans said.
func (s *spanCheck) close(id trace.SpanID) spanTally {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.calls[id]
	delete(s.calls, id)
	if old := s.ring[s.ringPos]; old.IsValid() {
		delete(s.done, old)
	}
	s.ring[s.ringPos] = id
	s.ringPos = (s.ringPos + 1) % len(s.ring)
	s.done[id] = struct{}{}
	if t == nil {
		return spanTally{}
	}
	return *t
}

func (s *spanCheck) OnStart(_ context.Context, sp sdktrace.ReadWriteSpan) {
	if sp.InstrumentationScope().Name != soakScope {
		s.started.Add(1)
	}
}

func (s *spanCheck) OnEnd(sp sdktrace.ReadOnlySpan) {
	if sp.InstrumentationScope().Name == soakScope {
		return
	}
	s.ended.Add(1)
	if sp.SpanKind() != trace.SpanKindClient || !sp.Parent().IsValid() {
		return
	}
	errType := ""
	for _, kv := range sp.Attributes() {
		if kv.Key == "error.type" {
			errType = kv.Value.String()
		}
	}
	pid := sp.Parent().SpanID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.calls[pid]; t != nil {
		t.n++
		t.errType = errType
		return
	}
	if _, ok := s.done[pid]; ok {
		s.late.Add(1)
	}
}

func (s *spanCheck) Shutdown(context.Context) error   { return nil }
func (s *spanCheck) ForceFlush(context.Context) error { return nil }
