package mcpactor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// Handlers.NotificationContext receives a server's notification with the
// context of its receipt: the SERVER span, a child of the trace context
// the server put in params._meta, and its baggage, so that the handler
// continues the server's trace (issue 36, item 7).
func TestNotificationContextContinuesTrace(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	type seen struct {
		sc     trace.SpanContext
		tenant string
	}
	got := make(chan seen, 1)
	plain := make(chan struct{}, 8)
	rt, err := mcpactor.Start(mcpactor.Options{
		Telemetry: telemetry.Options{TracerProvider: tp,
			Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})},
		Handlers: mcpactor.Handlers{
			Notification: func(string, mcpactor.Notification) { plain <- struct{}{} },
			NotificationContext: func(ctx context.Context, _ string, n mcpactor.Notification) {
				if n.Method == messages.NotificationMessage {
					got <- seen{sc: trace.SpanContextFromContext(ctx), tenant: baggage.FromContext(ctx).Member("tenant").Value()}
				}
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer func() {
		if err := rt.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
		_ = tp.Shutdown(ctx)
	}()
	path, args, env := testserver.Command(testserver.Options{})
	envs := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envs[k] = v
	}
	c, err := rt.Connect(ctx, "ts", mcpactor.ServerConfig{Command: path, Args: args, Env: envs})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"level": "info", "data": "hello", "_meta": map[string]any{
		"traceparent": "00-" + traceID + "-" + spanID + "-01",
		"baggage":     "tenant=acme",
	}}
	if _, err := c.CallTool(ctx, "notify", map[string]any{"method": messages.NotificationMessage, "params": params}); err != nil {
		t.Fatalf("notify: %v", err)
	}
	var h seen
	select {
	case h = <-got:
	case <-ctx.Done():
		t.Fatal("NotificationContext never got the notification")
	}
	if h.sc.TraceID().String() != traceID {
		t.Errorf("the handler's context is in trace %s, want the server's %s", h.sc.TraceID(), traceID)
	}
	if h.tenant != "acme" {
		t.Errorf("baggage tenant = %q in the handler's context, want acme", h.tenant)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var span sdktrace.ReadOnlySpan
		for _, s := range sr.Ended() {
			if s.SpanContext().SpanID() == h.sc.SpanID() {
				span = s
			}
		}
		if span != nil {
			if span.SpanKind() != trace.SpanKindServer || span.Parent().SpanID().String() != spanID {
				t.Errorf("the handler's span: %v, parent %s; want the SERVER span of the receipt, child of %s", span.SpanKind(), span.Parent().SpanID(), spanID)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the handler's span never ended")
		}
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if len(plain) != 0 {
		t.Errorf("Notification was called %d times beside NotificationContext", len(plain))
	}
}
