package actors_test

import (
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// TestConnectIsOneTrace: with no caller span, a connection's handshake
// (server/discover, initialize, notifications/initialized) is one trace
// under one connect task span, and so is a reconnect's (initialize and
// notifications/initialized: the protocol is remembered), with its reason.
// They used to be three root traces per connection.
func TestConnectIsOneTrace(t *testing.T) {
	te := newTracedEnv(t)
	s := connect(t, testserver.Options{}, te.env, nil)
	handshake := []string{messages.MethodServerDiscover, messages.MethodInitialize, messages.NotificationInitialized}
	checkConnect := func(reason string, handshake ...string) {
		t.Helper()
		var found int
		for _, sp := range te.named(telemetry.TaskConnect) {
			if attr(sp.Attributes(), telemetry.KeyTaskReason) != reason {
				continue
			}
			found++
			if sp.Parent().IsValid() {
				t.Errorf("connect (%s) has parent %s, want a root", reason, sp.Parent().SpanID())
			}
			if sp.SpanKind() != trace.SpanKindInternal {
				t.Errorf("connect (%s) kind = %v", reason, sp.SpanKind())
			}
			if got := attr(sp.Attributes(), telemetry.KeyServerName); got != "ts" {
				t.Errorf("connect (%s): server name %q", reason, got)
			}
			children := map[string]int{}
			for _, c := range te.spans.Ended() {
				if c.Parent().SpanID() == sp.SpanContext().SpanID() {
					if c.SpanContext().TraceID() != sp.SpanContext().TraceID() {
						t.Errorf("%s is in another trace", c.Name())
					}
					children[c.Name()]++
				}
			}
			for _, name := range handshake {
				if children[name] != 1 {
					t.Errorf("connect (%s): %d %s children, want 1 (children: %v)", reason, children[name], name, children)
				}
			}
		}
		if found != 1 {
			t.Fatalf("%d connect task spans with reason %q, want 1", found, reason)
		}
	}
	checkConnect("first", handshake...)
	for _, name := range handshake {
		if n := len(te.named(name)); n != 1 {
			t.Errorf("%d %s spans after one connect, want 1", n, name)
		}
	}

	if err := s.c.Reconnect(harness.Context(t)); err != nil {
		t.Fatalf("reconnect: %v", err)
	}
	if err := s.c.WaitReady(harness.Context(t)); err != nil {
		t.Fatalf("after reconnect: %v", err)
	}
	harness.WaitFor(t, "the reconnect's task span", func() bool { return len(te.named(telemetry.TaskConnect)) == 2 })
	// The protocol is remembered: no probe this time.
	checkConnect("reconnect", messages.MethodInitialize, messages.NotificationInitialized)
	var roots int
	for _, sp := range te.spans.Ended() {
		if !sp.Parent().IsValid() {
			roots++
		}
	}
	if roots != 2 {
		t.Errorf("%d root spans for two connections, want 2", roots)
	}
}
