package mcpactor_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestTelemetryInboundHTTPProtocolVersion: the SERVER spans of what a
// server sends over HTTP, its requests and its notifications, carry
// network.protocol.version of the response they came on (an httptest
// server speaks HTTP/1.1), as the client's own spans do.
func TestTelemetryInboundHTTPProtocolVersion(t *testing.T) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{{Name: "ask", Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		if err := c.Log(messages.LevelInfo, "ask", "asking"); err != nil {
			return nil, err
		}
		if _, err := c.Elicit(ctx, messages.ElicitParams{Message: "ok?", RequestedSchema: []byte(`{"type":"object"}`)}); err != nil {
			return nil, err
		}
		return &messages.CallToolResult{}, nil
	}}}}
	srv := fake.StartHTTP()
	defer srv.Close()
	tr := newTraced(t, mcpactor.Options{Handlers: mcpactor.Handlers{
		Elicitation: func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: messages.ElicitActionDecline}, nil
		},
		Notification: func(string, mcpactor.Notification) {},
	}})
	ctx := waitCtx(t)
	c, err := tr.rt.Connect(ctx, "web", srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	callOK(t, c, "ask", nil)
	// The notification's span ends once its handler has run, on a
	// goroutine of its own.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var note []string
		for _, s := range tr.spans.Ended() {
			if s.SpanKind() == trace.SpanKindServer && s.Name() == messages.NotificationMessage {
				note = append(note, s.Name())
			}
		}
		if len(note) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, name := range []string{messages.MethodElicitationCreate, messages.NotificationMessage} {
		s := tr.span(t, name)
		if s.SpanKind() != trace.SpanKindServer {
			t.Errorf("%s: kind %v, want SERVER", name, s.SpanKind())
		}
		wantAttrs(t, s, map[string]string{"network.protocol.version": "1.1", "network.protocol.name": "http"})
	}
}
