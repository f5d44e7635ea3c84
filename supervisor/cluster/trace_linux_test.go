//go:build linux

package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// TestTraceCrossesMembers: the caller's trace context reaches the owner,
// on another member, whose runtime sends it on to the server in the
// request's _meta: one trace across members and the server.
func TestTraceCrossesMembers(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled})
	ctx, cancel := context.WithTimeout(trace.ContextWithSpanContext(context.Background(), sc), waitLimit)
	defer cancel()
	res, err := c.driver.CallTool(ctx, "alpha", "trace-meta", nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := ""
	if len(res.Content) > 0 {
		meta = res.Content[0].Text
	}
	t.Logf("the server saw _meta %s", meta)
	if !strings.Contains(meta, traceID.String()) {
		t.Errorf("the server's _meta %q does not carry trace %s", meta, traceID)
	}
}
