package supervisor_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/telemetry"
)

// TestManagerBackgroundWorkTraces: the manager's own requests, its list
// refreshes and keepalive pings, are each the child of a task span
// (mcpactor.refresh, mcpactor.keepalive), and a connection's handshake of
// its connect task: no request the manager makes on its own is a root
// trace. They used to be one-span root traces.
func TestManagerBackgroundWorkTraces(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tel := telemetry.New(telemetry.Options{TracerProvider: tp, Propagator: propagation.TraceContext{}})
	t.Cleanup(func() { _ = tel.Close() })

	srv := testServer(t, "ka", testserver.Options{}, "ka")
	srv.Keepalive = 50 * time.Millisecond
	manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{srv}, Env: actors.Env{Instruments: tel}})

	childOf := func(task, method string) bool {
		byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
		for _, s := range rec.Ended() {
			byID[s.SpanContext().SpanID()] = s
		}
		for _, s := range rec.Ended() {
			if s.Name() != method {
				continue
			}
			if p, ok := byID[s.Parent().SpanID()]; ok && p.Name() == task {
				return true
			}
		}
		return false
	}
	harness.WaitFor(t, "a keepalive ping under its task span", func() bool {
		return childOf(telemetry.TaskKeepalive, messages.MethodPing)
	})
	harness.WaitFor(t, "the tools list under a refresh span", func() bool {
		return childOf(telemetry.TaskRefresh, messages.MethodToolsList)
	})

	ended := rec.Ended()
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range ended {
		byID[s.SpanContext().SpanID()] = s
	}
	tasks := map[string]bool{telemetry.TaskConnect: true, telemetry.TaskRefresh: true, telemetry.TaskKeepalive: true}
	children := map[trace.SpanID]int{}
	for _, s := range ended {
		if !s.Parent().IsValid() {
			if !tasks[s.Name()] {
				t.Errorf("%s is a root trace of its own", s.Name())
			}
			continue
		}
		children[s.Parent().SpanID()]++
		if p, ok := byID[s.Parent().SpanID()]; ok && p.SpanContext().TraceID() != s.SpanContext().TraceID() {
			t.Errorf("%s is not in its parent's trace", s.Name())
		}
	}
	for _, s := range ended {
		switch s.Name() {
		case telemetry.TaskRefresh, telemetry.TaskKeepalive:
			if n := children[s.SpanContext().SpanID()]; n != 1 {
				t.Errorf("%s has %d children, want its one request", s.Name(), n)
			}
			if got := attrOf(s.Attributes(), telemetry.KeyServerName); got != "ka" {
				t.Errorf("%s: server name %q", s.Name(), got)
			}
		}
	}
}

func attrOf(kv []attribute.KeyValue, key attribute.Key) string {
	for _, a := range kv {
		if a.Key == key {
			return a.Value.String()
		}
	}
	return ""
}
