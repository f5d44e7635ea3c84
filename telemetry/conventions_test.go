package telemetry

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// An HTTP answer with an error status is classified by its body: a
// JSON-RPC error there is recorded as any JSON-RPC error (code as
// error.type and rpc.response.status_code, message as the status), and
// without one the HTTP status is error.type, not _OTHER.
func TestHTTPStatusErrorType(t *testing.T) {
	internal := callerr.NewHTTPStatus(&callerr.Error{Server: "weather", Method: messages.MethodToolsCall, URL: "https://mcp.example.com/mcp",
		Status: 500, Body: `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"database down"}}`,
		RPC: &messages.Error{Code: -32603, Message: "database down"}})
	tests := []struct {
		name       string
		err        error
		wantType   string
		wantCode   string // rpc.response.status_code; "" for none
		wantStatus string
	}{
		{"500 with a JSON-RPC error", internal, "-32603", "-32603", "database down"},
		{"wrapped", fmt.Errorf("call: %w", internal), "-32603", "-32603", "database down"},
		{"400 with a JSON-RPC error without message",
			callerr.NewHTTPStatus(&callerr.Error{Server: "weather", Status: 400, RPC: &messages.Error{Code: -32600}}),
			"-32600", "-32600", `MCP server "weather": HTTP 400`},
		{"502 without a body", callerr.NewHTTPStatus(&callerr.Error{Server: "weather", Status: 502, Body: "Bad Gateway"}), "502", "",
			`MCP server "weather": HTTP 502: Bad Gateway`},
		{"session expired", callerr.NewSessionExpired(&callerr.Error{Server: "weather", Method: messages.MethodToolsCall, Status: 404}), "404", "",
			`MCP server "weather": session expired (HTTP 404 to tools/call)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Options{})
			_, op := r.tel.Start(context.Background(), &Request{Peer: httpPeer, Method: messages.MethodToolsCall, Target: "forecast"})
			op.End(tc.err, false)
			s := r.ended(t)
			got := attrs(s.Attributes())
			if got["error.type"] != tc.wantType {
				t.Errorf("span error.type = %v, want %s", got["error.type"], tc.wantType)
			}
			if code, ok := got["rpc.response.status_code"]; ok != (tc.wantCode != "") || ok && code != tc.wantCode {
				t.Errorf("span rpc.response.status_code = %v (present %v), want %q", code, ok, tc.wantCode)
			}
			if s.Status().Code != codes.Error || s.Status().Description != tc.wantStatus {
				t.Errorf("status = %v %q, want Error %q", s.Status().Code, s.Status().Description, tc.wantStatus)
			}
			if ErrorType(tc.err, false) != tc.wantType {
				t.Errorf("ErrorType = %q, want %s", ErrorType(tc.err, false), tc.wantType)
			}
			pts := r.histogram(t, MetricClientOperationDuration)
			if len(pts) != 1 || pts[0].Count != 1 {
				t.Fatalf("duration points = %+v, want one of count 1", pts)
			}
			m := setAttrs(pts[0].Attributes)
			if m["error.type"] != tc.wantType {
				t.Errorf("metric error.type = %v, want %s", m["error.type"], tc.wantType)
			}
			if code, ok := m["rpc.response.status_code"]; ok != (tc.wantCode != "") || ok && code != tc.wantCode {
				t.Errorf("metric rpc.response.status_code = %v (present %v), want %q", code, ok, tc.wantCode)
			}
		})
	}
}

// mcp.client.operation.duration starts at the send (the first Written),
// not at Start: a request's queue waits are in its span, whose
// mcpactor.queue.wait says how long, but not in the metric.
func TestDurationFromSend(t *testing.T) {
	const wait = 30 * time.Millisecond
	for _, sent := range []bool{true, false} {
		t.Run(fmt.Sprintf("written=%v", sent), func(t *testing.T) {
			r := newRig(t, Options{})
			_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsList})
			op.Queued(QueueHandshake)
			time.Sleep(wait)
			op.Dequeued()
			op.Queued(QueueConcurrency)
			time.Sleep(wait)
			var err error
			if sent {
				op.Written() // ends the second wait
				time.Sleep(wait)
			} else {
				err = context.Canceled // ended while still queued
			}
			op.End(err, false)

			s := r.ended(t)
			spanDur := s.EndTime().Sub(s.StartTime()).Seconds()
			waited, ok := attrs(s.Attributes())["mcpactor.queue.wait"].(float64)
			if !ok || waited < 2*wait.Seconds() {
				t.Fatalf("span mcpactor.queue.wait = %v, want at least %v", attrs(s.Attributes())["mcpactor.queue.wait"], 2*wait.Seconds())
			}
			pts := r.histogram(t, MetricClientOperationDuration)
			if len(pts) != 1 || pts[0].Count != 1 {
				t.Fatalf("duration points = %+v, want one of count 1", pts)
			}
			d := pts[0].Sum
			// The metric leaves the waits out: it is at most the span's
			// length less the waits (the same clock readings bound both).
			if d < 0 || d > spanDur-waited+1e-6 {
				t.Errorf("duration = %vs; span %vs, waits %vs: the waits are counted", d, spanDur, waited)
			}
			if sent && d < wait.Seconds() {
				t.Errorf("duration = %vs, want at least the %v from the send to the end", d, wait)
			}
			waits := r.histogram(t, MetricQueueWait)
			var n uint64
			for _, p := range waits {
				n += p.Count
			}
			if n != 2 {
				t.Errorf("queue wait points = %d, want 2", n)
			}
		})
	}
}

func TestNetworkProtocolVersion(t *testing.T) {
	for _, tc := range []struct {
		major, minor int
		want         string
	}{{1, 0, "1.0"}, {1, 1, "1.1"}, {2, 0, "2"}, {3, 0, "3"}, {0, 0, ""}} {
		if got := HTTPProtocolVersion(tc.major, tc.minor); got != tc.want {
			t.Errorf("HTTPProtocolVersion(%d, %d) = %q, want %q", tc.major, tc.minor, got, tc.want)
		}
	}
	r := newRig(t, Options{})
	peer := HTTPPeer("weather", "http://127.0.0.1:8080/mcp")
	peer.ProtocolVersion = messages.Version20251125
	_, op := r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodToolsList})
	op.SetNetworkProtocolVersion(HTTPProtocolVersion(2, 0))
	op.End(nil, false)
	op.SetNetworkProtocolVersion("1.1") // after End: ignored
	want := map[string]any{
		"mcp.method.name": "tools/list", "mcp.protocol.version": "2025-11-25",
		"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "2",
		"server.address": "127.0.0.1", "server.port": int64(8080), "mcpactor.server.name": "weather",
	}
	checkAttrs(t, "span", attrs(r.ended(t).Attributes()), want)
	pts := r.histogram(t, MetricClientOperationDuration)
	if len(pts) != 1 {
		t.Fatalf("duration points = %d, want 1", len(pts))
	}
	checkAttrs(t, "metric", setAttrs(pts[0].Attributes), want)
}

func TestSchemaURL(t *testing.T) {
	if SchemaURL != semconv.SchemaURL {
		t.Fatalf("SchemaURL = %q, want semconv v1.43.0's %q", SchemaURL, semconv.SchemaURL)
	}
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodPing})
	op.End(nil, false)
	if got := r.ended(t).InstrumentationScope().SchemaURL; got != SchemaURL {
		t.Errorf("tracer schema URL = %q, want %q", got, SchemaURL)
	}
	rm := r.collect(t)
	if len(rm.ScopeMetrics) == 0 {
		t.Fatal("no metrics collected")
	}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name == ScopeName && sm.Scope.SchemaURL != SchemaURL {
			t.Errorf("meter schema URL = %q, want %q", sm.Scope.SchemaURL, SchemaURL)
		}
	}
}

// The server/discover probe offers a version; the span and metric record
// the version the connection then uses (SetProtocolVersion), and none when
// the probe found the session era.
func TestDiscoverProtocolVersion(t *testing.T) {
	peer := httpPeer
	peer.ProtocolVersion = messages.Version20260728
	peer.SessionID = ""

	t.Run("session era found", func(t *testing.T) {
		r := newRig(t, Options{})
		_, op := r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodServerDiscover})
		op.EndExpected(&callerr.RPCError{Code: messages.CodeMethodNotFound, Message: "Method not found"}, ProbeSessionEra)
		got := attrs(r.ended(t).Attributes())
		if v, ok := got["mcp.protocol.version"]; ok {
			t.Errorf("span mcp.protocol.version = %v on a probe that found the session era", v)
		}
		if got["mcpactor.probe.verdict"] != ProbeSessionEra || got["rpc.response.status_code"] != "-32601" {
			t.Errorf("span = %v", got)
		}
		pts := r.histogram(t, MetricClientOperationDuration)
		if len(pts) != 1 {
			t.Fatalf("duration points = %d, want 1", len(pts))
		}
		if v, ok := setAttrs(pts[0].Attributes)["mcp.protocol.version"]; ok {
			t.Errorf("metric mcp.protocol.version = %v", v)
		}
	})
	t.Run("version used", func(t *testing.T) {
		r := newRig(t, Options{})
		_, op := r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodServerDiscover})
		op.SetProtocolVersion(messages.Version20260728)
		op.End(nil, false)
		if v := attrs(r.ended(t).Attributes())["mcp.protocol.version"]; v != messages.Version20260728 {
			t.Errorf("span mcp.protocol.version = %v, want %s", v, messages.Version20260728)
		}
		pts := r.histogram(t, MetricClientOperationDuration)
		if v := setAttrs(pts[0].Attributes)["mcp.protocol.version"]; v != messages.Version20260728 {
			t.Errorf("metric mcp.protocol.version = %v", v)
		}
	})
	t.Run("other methods keep the peer's version", func(t *testing.T) {
		r := newRig(t, Options{})
		_, op := r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodToolsList})
		op.End(nil, false)
		if v := attrs(r.ended(t).Attributes())["mcp.protocol.version"]; v != messages.Version20260728 {
			t.Errorf("span mcp.protocol.version = %v, want %s", v, messages.Version20260728)
		}
	})
}

// A request sent again with a new id (an HTTP session-expiry replay) keeps
// both ids: the span's jsonrpc.request.id is the last one, and a
// mcpactor.resent event holds the earlier one.
func TestResentKeepsBothIDs(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: httpPeer, Method: messages.MethodToolsCall, Target: "forecast"})
	op.SetRequestID(messages.Int64ID(3))
	op.Written()
	op.SetRequestID(messages.Int64ID(3)) // the same id again: nothing to keep
	op.Reinitialize("HTTP session expired; the request is sent again on the new session")
	op.SetRequestID(messages.Int64ID(7))
	op.Written()
	op.End(nil, false)
	s := r.ended(t)
	if id := attrs(s.Attributes())["jsonrpc.request.id"]; id != "7" {
		t.Errorf("jsonrpc.request.id = %v, want 7", id)
	}
	var resent []map[string]any
	for _, e := range s.Events() {
		if e.Name == EventResent {
			resent = append(resent, attrs(e.Attributes))
		}
	}
	if len(resent) != 1 || resent[0]["jsonrpc.request.id"] != "3" {
		t.Errorf("resent events = %v, want one with jsonrpc.request.id 3", resent)
	}
}
