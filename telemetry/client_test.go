package telemetry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

var httpPeer = Peer{
	Server:                 "weather",
	ProtocolVersion:        messages.Version20251125,
	SessionID:              "8267461134f24305af708e66b8eda71a",
	NetworkTransport:       TransportTCP,
	NetworkProtocolName:    ProtocolHTTP,
	NetworkProtocolVersion: "1.1",
	ServerAddress:          "mcp.example.com",
	ServerPort:             8443,
}

var stdioPeer = Peer{Server: "files", ProtocolVersion: messages.Version20250618, NetworkTransport: TransportPipe}

func TestClientSpanToolCall(t *testing.T) {
	r := newRig(t, Options{})
	ctx, parent := r.tp.Tracer("caller").Start(context.Background(), "agent step")

	_, op := r.tel.Start(ctx, &Request{Peer: httpPeer, Method: messages.MethodToolsCall, Target: "get-weather"})
	if op == nil {
		t.Fatal("Start returned a nil Op with a live provider")
	}
	op.SetRequestID(messages.Int64ID(3))
	op.Written()
	op.End(nil, false)
	parent.End()

	spans := r.sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("ended spans = %d, want 2", len(spans))
	}
	s := spans[0]
	if s.Name() != "tools/call get-weather" {
		t.Errorf("name = %q", s.Name())
	}
	if s.SpanKind() != trace.SpanKindClient {
		t.Errorf("kind = %v, want client", s.SpanKind())
	}
	if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("parent = %v, want the caller's span %v", s.Parent().SpanID(), parent.SpanContext().SpanID())
	}
	if s.Status().Code != codes.Unset {
		t.Errorf("status = %v, want unset", s.Status())
	}
	checkAttrs(t, "span", attrs(s.Attributes()), map[string]any{
		"mcp.method.name":          "tools/call",
		"gen_ai.tool.name":         "get-weather",
		"gen_ai.operation.name":    "execute_tool",
		"jsonrpc.request.id":       "3",
		"mcp.protocol.version":     "2025-11-25",
		"mcp.session.id":           "8267461134f24305af708e66b8eda71a",
		"network.transport":        "tcp",
		"network.protocol.name":    "http",
		"network.protocol.version": "1.1",
		"server.address":           "mcp.example.com",
		"server.port":              int64(8443),
		"mcpactor.server.name":     "weather",
	})
	if got := eventNames(s); !slices.Equal(got, []string{EventWritten}) {
		t.Errorf("events = %v", got)
	}
	if r.tel.OpenOps() != 0 {
		t.Errorf("OpenOps = %d after End", r.tel.OpenOps())
	}

	pts := r.histogram(t, MetricClientOperationDuration)
	if len(pts) != 1 {
		t.Fatalf("points = %d, want 1", len(pts))
	}
	p := pts[0]
	if p.Count != 1 {
		t.Errorf("count = %d", p.Count)
	}
	if !slices.Equal(p.Bounds, durationBuckets) {
		t.Errorf("bounds = %v, want %v", p.Bounds, durationBuckets)
	}
	// Metric attributes: no session or request id (high cardinality).
	checkAttrs(t, "metric", setAttrs(p.Attributes), map[string]any{
		"mcp.method.name":          "tools/call",
		"gen_ai.tool.name":         "get-weather",
		"gen_ai.operation.name":    "execute_tool",
		"mcp.protocol.version":     "2025-11-25",
		"network.transport":        "tcp",
		"network.protocol.name":    "http",
		"network.protocol.version": "1.1",
		"server.address":           "mcp.example.com",
		"server.port":              int64(8443),
		"mcpactor.server.name":     "weather",
	})
}

func TestClientSpanNamesAndAttributes(t *testing.T) {
	tests := []struct {
		name     string
		req      Request
		wantName string
		want     map[string]any
	}{
		{
			name:     "prompt",
			req:      Request{Peer: stdioPeer, Method: messages.MethodPromptsGet, Target: "summarize", ID: messages.Int64ID(7)},
			wantName: "prompts/get summarize",
			want: map[string]any{
				"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "summarize", "jsonrpc.request.id": "7",
				"mcp.protocol.version": "2025-06-18", "network.transport": "pipe", "mcpactor.server.name": "files",
			},
		},
		{
			name:     "resource",
			req:      Request{Peer: stdioPeer, Method: messages.MethodResourcesRead, ResourceURI: "file:///tmp/a.txt", ID: messages.StringID("r-1")},
			wantName: "resources/read",
			want: map[string]any{
				"mcp.method.name": "resources/read", "mcp.resource.uri": "file:///tmp/a.txt", "jsonrpc.request.id": "r-1",
				"mcp.protocol.version": "2025-06-18", "network.transport": "pipe", "mcpactor.server.name": "files",
			},
		},
		{
			name:     "target ignored for other methods",
			req:      Request{Peer: stdioPeer, Method: messages.MethodToolsList, Target: "page-2"},
			wantName: "tools/list",
			want: map[string]any{
				"mcp.method.name": "tools/list", "mcp.protocol.version": "2025-06-18",
				"network.transport": "pipe", "mcpactor.server.name": "files",
			},
		},
		{
			name:     "notification has no request id",
			req:      Request{Peer: stdioPeer, Method: "notifications/initialized", Notification: true, ID: messages.Int64ID(1)},
			wantName: "notifications/initialized",
			want: map[string]any{
				"mcp.method.name": "notifications/initialized", "mcp.protocol.version": "2025-06-18",
				"network.transport": "pipe", "mcpactor.server.name": "files",
			},
		},
		{
			name: "no session id for the stateless version",
			req: Request{Peer: Peer{Server: "s", ProtocolVersion: messages.Version20260728, SessionID: "sid", NetworkTransport: TransportTCP},
				Method: messages.MethodToolsCall, Target: "echo"},
			wantName: "tools/call echo",
			want: map[string]any{
				"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version": "2026-07-28", "network.transport": "tcp", "mcpactor.server.name": "s",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Options{})
			_, op := r.tel.Start(context.Background(), &tc.req)
			op.End(nil, false)
			s := r.ended(t)
			if s.Name() != tc.wantName {
				t.Errorf("name = %q, want %q", s.Name(), tc.wantName)
			}
			checkAttrs(t, "span", attrs(s.Attributes()), tc.want)
		})
	}
}

func TestErrorType(t *testing.T) {
	rpcErr := &callerr.RPCError{Server: "s", Method: "tools/call", Code: messages.CodeInvalidParams, Message: "Invalid params: city"}
	tests := []struct {
		name       string
		err        error
		toolError  bool
		wantType   string
		wantCode   string // rpc.response.status_code, "" for none
		wantStatus string
	}{
		{"rpc error", rpcErr, false, "-32602", "-32602", "Invalid params: city"},
		{"wrapped rpc error", fmt.Errorf("call: %w", rpcErr), false, "-32602", "-32602", "Invalid params: city"},
		{"wire error", &messages.Error{Code: -32601, Message: "Method not found"}, false, "-32601", "-32601", "Method not found"},
		{"tool error", nil, true, "tool_error", "", "tool result has isError"},
		{"timeout", callerr.NewTimeout(&callerr.Error{Server: "s", Method: "tools/call", After: time.Second}), false, "timeout", "", `MCP server "s": tools/call: Request timeout after 1000ms`},
		{"connect timeout", callerr.NewConnectTimeout(&callerr.Error{Server: "s", After: time.Second}), false, "timeout", "", ""},
		{"context canceled", context.Canceled, false, "cancelled", "", "context canceled"},
		{"caller deadline", callerr.NewCanceled(&callerr.Error{Cause: context.DeadlineExceeded}), false, "timeout", "", "context deadline exceeded"},
		{"context deadline", fmt.Errorf("wait: %w", context.DeadlineExceeded), false, "timeout", "", "wait: context deadline exceeded"},
		{"canceled error with another cause", callerr.NewCanceled(&callerr.Error{Cause: errors.New("gone")}), false, "cancelled", "", "gone"},
		{"transport closed", callerr.NewTransportClosed(&callerr.Error{Server: "s", ExitStatus: "exit status 1"}), false, "transport_closed", "", `MCP server "s": Transport closed: exit status 1`},
		{"other", errors.New("boom"), false, "_OTHER", "", "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Options{})
			_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "t"})
			op.End(tc.err, tc.toolError)
			s := r.ended(t)
			got := attrs(s.Attributes())
			if got["error.type"] != tc.wantType {
				t.Errorf("error.type = %v, want %s", got["error.type"], tc.wantType)
			}
			if code, ok := got["rpc.response.status_code"]; tc.wantCode == "" && ok || tc.wantCode != "" && code != tc.wantCode {
				t.Errorf("rpc.response.status_code = %v, want %q", code, tc.wantCode)
			}
			if s.Status().Code != codes.Error {
				t.Errorf("status = %v, want error", s.Status().Code)
			}
			if tc.wantStatus != "" && s.Status().Description != tc.wantStatus {
				t.Errorf("status description = %q, want %q", s.Status().Description, tc.wantStatus)
			}
			if ErrorType(tc.err, tc.toolError) != tc.wantType {
				t.Errorf("ErrorType = %q", ErrorType(tc.err, tc.toolError))
			}
			pts := r.histogram(t, MetricClientOperationDuration)
			m := setAttrs(pts[0].Attributes)
			if m["error.type"] != tc.wantType {
				t.Errorf("metric error.type = %v, want %s", m["error.type"], tc.wantType)
			}
			if code, ok := m["rpc.response.status_code"]; tc.wantCode == "" && ok || tc.wantCode != "" && code != tc.wantCode {
				t.Errorf("metric rpc.response.status_code = %v, want %q", code, tc.wantCode)
			}
		})
	}
	if ErrorType(nil, false) != "" {
		t.Error("success has an error.type")
	}
}

func TestEvents(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "slow"})
	op.Queued(QueueHandshake)
	time.Sleep(2 * time.Millisecond)
	op.Queued(QueueConcurrency) // ends the handshake wait
	op.Written()                // ends the concurrency wait
	total := 10.0
	op.Progress(1, &total, "step one")
	op.Progress(2, nil, "")
	op.Cancelling("Request timeout after 1000ms", nil)
	op.Retry(1, "session_expired")
	op.Resume("stream_broken")
	op.Reinitialize("session_expired")
	op.Event("custom", attribute.String("k", "v"))
	op.LateResponse() // still open: an event on the span
	op.End(callerr.NewTimeout(&callerr.Error{}), false)
	op.Progress(3, nil, "after end") // ignored
	op.Written()                     // ignored

	// The notifications/cancelled span (see TestCancellingSpan) ended
	// first; the request's span is the last one.
	spans := r.sr.Ended()
	if len(spans) != 2 || spans[0].Name() != messages.NotificationCancelled {
		t.Fatalf("ended spans = %d, want notifications/cancelled and the call", len(spans))
	}
	s := spans[1]
	want := []string{EventQueued, EventDequeued, EventQueued, EventDequeued, EventWritten, EventProgress, EventProgress,
		EventCancelSent, EventRetry, EventResume, EventReinitialize, "custom", EventLateResponse}
	if got := eventNames(s); !slices.Equal(got, want) {
		t.Fatalf("events = %v\nwant %v", got, want)
	}
	ev := s.Events()
	checkAttrs(t, "queued", attrs(ev[0].Attributes), map[string]any{"mcpactor.queue.reason": "handshake"})
	deq := attrs(ev[1].Attributes)
	if deq["mcpactor.queue.reason"] != "handshake" || deq["mcpactor.queue.wait"].(float64) < 0.002 {
		t.Errorf("dequeued = %v", deq)
	}
	checkAttrs(t, "progress", attrs(ev[5].Attributes), map[string]any{
		"mcpactor.progress.value": 1.0, "mcpactor.progress.total": 10.0, "mcpactor.progress.message": "step one"})
	checkAttrs(t, "progress 2", attrs(ev[6].Attributes), map[string]any{"mcpactor.progress.value": 2.0})
	checkAttrs(t, "cancel", attrs(ev[7].Attributes), map[string]any{"mcpactor.cancel.reason": "Request timeout after 1000ms"})
	checkAttrs(t, "retry", attrs(ev[8].Attributes), map[string]any{"mcpactor.retry.attempt": int64(1), "mcpactor.retry.reason": "session_expired"})

	pts := r.histogram(t, MetricQueueWait)
	reasons := map[string]uint64{}
	for _, p := range pts {
		reasons[setAttrs(p.Attributes)["mcpactor.queue.reason"].(string)] += p.Count
		if !slices.Equal(p.Bounds, queueWaitBuckets) {
			t.Errorf("queue wait bounds = %v", p.Bounds)
		}
		if setAttrs(p.Attributes)["mcpactor.server.name"] != "files" {
			t.Errorf("queue wait attributes = %v", setAttrs(p.Attributes))
		}
	}
	if reasons["handshake"] != 1 || reasons["concurrency"] != 1 {
		t.Errorf("queue waits by reason = %v", reasons)
	}
}

func TestQueueWaitRecordedWhenEndedInQueue(t *testing.T) {
	r := newRig(t, Options{})
	_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsList})
	op.Queued(QueueConcurrency)
	op.End(context.Canceled, false)
	pts := r.histogram(t, MetricQueueWait)
	if len(pts) != 1 || pts[0].Count != 1 {
		t.Fatalf("queue wait points = %+v", pts)
	}
}

func TestEndExactlyOnce(t *testing.T) {
	r := newRig(t, Options{})
	const n = 50
	ops := make([]*Op, n)
	for i := range ops {
		_, ops[i] = r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodPing})
	}
	if r.tel.OpenOps() != n {
		t.Fatalf("OpenOps = %d, want %d", r.tel.OpenOps(), n)
	}
	// Racing ends: resolve, timeout and transport close all try to End.
	done := make(chan struct{})
	for _, op := range ops {
		for _, err := range []error{nil, errkind.ErrTimeout, callerr.NewTransportClosed(&callerr.Error{})} {
			go func() {
				op.End(err, false)
				done <- struct{}{}
			}()
		}
	}
	for range 3 * n {
		<-done
	}
	if got := len(r.sr.Ended()); got != n {
		t.Errorf("ended spans = %d, want %d", got, n)
	}
	if got := len(r.sr.Started()); got != n {
		t.Errorf("started spans = %d, want %d", got, n)
	}
	for _, s := range r.sr.Started() {
		if s.EndTime().IsZero() {
			t.Errorf("span %s left open", s.Name())
		}
	}
	if r.tel.OpenOps() != 0 {
		t.Errorf("OpenOps = %d after End", r.tel.OpenOps())
	}
	var count uint64
	for _, p := range r.histogram(t, MetricClientOperationDuration) {
		count += p.Count
	}
	if count != n {
		t.Errorf("duration points = %d, want %d", count, n)
	}
}

func TestStartInternalAndLateResponse(t *testing.T) {
	r := newRig(t, Options{})
	ctx, round := r.tel.Start(context.Background(), &Request{Peer: httpPeer, Method: messages.MethodToolsCall, Target: "book", ID: messages.Int64ID(9)})
	_, input := r.tel.StartInternal(ctx, &Request{Peer: httpPeer, Method: "sampling/createMessage"})
	input.End(nil, false)
	round.End(callerr.NewTimeout(&callerr.Error{}), false)
	round.LateResponse() // after End: a child span

	spans := r.sr.Ended()
	if len(spans) != 3 {
		t.Fatalf("ended spans = %d, want 3", len(spans))
	}
	in, call, late := spans[0], spans[1], spans[2]
	if in.Name() != "sampling/createMessage" || in.SpanKind() != trace.SpanKindInternal || in.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("input span = %q %v parent %v", in.Name(), in.SpanKind(), in.Parent().SpanID())
	}
	if late.Name() != SpanLateResponse || late.SpanKind() != trace.SpanKindInternal || late.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("late span = %q %v parent %v", late.Name(), late.SpanKind(), late.Parent().SpanID())
	}
	checkAttrs(t, "late", attrs(late.Attributes()), map[string]any{
		"mcp.method.name": "tools/call", "jsonrpc.request.id": "9", "mcpactor.server.name": "weather"})
	if got := eventNames(late); !slices.Equal(got, []string{EventLateResponse}) {
		t.Errorf("late events = %v", got)
	}
	// INTERNAL spans record no duration metric: one client point only.
	if pts := r.histogram(t, MetricClientOperationDuration); len(pts) != 1 || pts[0].Count != 1 {
		t.Errorf("client duration points = %+v", pts)
	}
	if _, ok := findMetric(r.collect(t), MetricServerOperationDuration); ok {
		t.Error("internal span recorded a server duration")
	}
}

func TestRecordToolArguments(t *testing.T) {
	args := []byte(`{"location":"San Francisco?","date":"2025-10-01","days":3,"units":["C"]}`)
	result := []byte(`{"content":[{"type":"text","text":"sunny"}],"isError":false}`)

	t.Run("off by default", func(t *testing.T) {
		r := newRig(t, Options{})
		_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "w", Arguments: args})
		if op.RecordsToolArguments() {
			t.Error("RecordsToolArguments without the option")
		}
		op.SetToolResult(result)
		op.End(nil, false)
		got := attrs(r.ended(t).Attributes())
		if _, ok := got["gen_ai.tool.call.arguments"]; ok {
			t.Error("arguments recorded without the option")
		}
		if _, ok := got["gen_ai.tool.call.result"]; ok {
			t.Error("result recorded without the option")
		}
	})
	t.Run("opt in", func(t *testing.T) {
		r := newRig(t, Options{RecordToolArguments: true})
		_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "w", Arguments: args})
		if !op.RecordsToolArguments() {
			t.Error("RecordsToolArguments = false with the option")
		}
		op.SetToolResult(result)
		op.End(nil, false)
		var a, res attribute.Value
		for _, kv := range r.ended(t).Attributes() {
			switch kv.Key {
			case KeyGenAIToolCallArguments:
				a = kv.Value
			case KeyGenAIToolCallResult:
				res = kv.Value
			}
		}
		if a.Type() != attribute.MAP {
			t.Fatalf("arguments type = %v, want MAP", a.Type())
		}
		am := attrs(a.AsMap())
		units, _ := am["units"].([]attribute.Value)
		if len(units) != 1 || units[0].AsString() != "C" {
			t.Errorf("units = %#v, want a SLICE of one string", am["units"])
		}
		delete(am, "units")
		checkAttrs(t, "arguments", am, map[string]any{
			"date": "2025-10-01", "days": int64(3), "location": "San Francisco?"})
		if res.Type() != attribute.MAP {
			t.Fatalf("result type = %v, want MAP", res.Type())
		}
	})
	t.Run("no result on tool error", func(t *testing.T) {
		r := newRig(t, Options{RecordToolArguments: true})
		_, op := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "w", Arguments: args})
		op.SetToolResult([]byte(`{"content":[],"isError":true}`))
		op.End(nil, true)
		if _, ok := attrs(r.ended(t).Attributes())["gen_ai.tool.call.result"]; ok {
			t.Error("result recorded for a failed call")
		}
	})
}

func TestReuseExecuteToolSpan(t *testing.T) {
	start := func(r *rig, ctx context.Context) *Op {
		_, op := r.tel.Start(ctx, &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "get-weather", ID: messages.Int64ID(4)})
		return op
	}
	t.Run("reused", func(t *testing.T) {
		r := newRig(t, Options{ReuseExecuteToolSpan: true})
		ctx, tool := r.tp.Tracer("genai").Start(context.Background(), "execute_tool get-weather",
			trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool")))
		op := start(r, ctx)
		if !op.SpanContext().Equal(tool.SpanContext()) {
			t.Error("the Op does not use the execute_tool span")
		}
		meta := op.Inject(nil)
		op.Written()
		op.End(&callerr.RPCError{Code: -32603, Message: "internal"}, false)
		if len(r.sr.Ended()) != 0 {
			t.Fatal("End ended the execute_tool span it does not own")
		}
		op.Progress(1, nil, "") // after End: not on the outer span
		tool.End()
		s := r.ended(t)
		if len(r.sr.Started()) != 1 {
			t.Errorf("started spans = %d, want 1 (no MCP span of its own)", len(r.sr.Started()))
		}
		if s.Name() != "execute_tool get-weather" {
			t.Errorf("name = %q: the owner's name must stay", s.Name())
		}
		got := attrs(s.Attributes())
		for k, v := range map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "get-weather",
			"jsonrpc.request.id": "4", "network.transport": "pipe", "error.type": "-32603"} {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
		if got := eventNames(s); !slices.Equal(got, []string{EventWritten}) {
			t.Errorf("events = %v", got)
		}
		if want := traceparent(tool.SpanContext()); meta[messages.MetaKeyTraceparent] != want {
			t.Errorf("traceparent = %v, want %s", meta[messages.MetaKeyTraceparent], want)
		}
		if pts := r.histogram(t, MetricClientOperationDuration); len(pts) != 1 {
			t.Errorf("duration points = %d, want 1", len(pts))
		}
	})
	t.Run("marked", func(t *testing.T) {
		r := newRig(t, Options{ReuseExecuteToolSpan: true})
		ctx, tool := r.tp.Tracer("genai").Start(context.Background(), "tool")
		op := start(r, MarkExecuteToolSpan(ctx))
		op.End(nil, false)
		tool.End()
		if len(r.sr.Started()) != 1 {
			t.Errorf("started spans = %d, want 1", len(r.sr.Started()))
		}
	})
	// Each row starts an Op under an outer span it must not take over:
	// the Op has a span of its own, so two spans end.
	executeTool := func(name string) func(r *rig) (context.Context, func()) {
		return func(r *rig) (context.Context, func()) {
			ctx, tool := r.tp.Tracer("genai").Start(context.Background(), name,
				trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool")))
			return ctx, func() { tool.End() }
		}
	}
	for _, tc := range []struct {
		name   string
		opts   Options
		outer  func(r *rig) (context.Context, func())
		method string
	}{
		{"option off", Options{}, executeTool("execute_tool get-weather"), messages.MethodToolsCall},
		{"not an execute_tool span", Options{ReuseExecuteToolSpan: true}, func(r *rig) (context.Context, func()) {
			ctx, other := r.tp.Tracer("genai").Start(context.Background(), "chat")
			return ctx, func() { other.End() }
		}, messages.MethodToolsCall},
		{"never our own MCP span", Options{ReuseExecuteToolSpan: true}, func(r *rig) (context.Context, func()) {
			ctx, outer := r.tel.Start(context.Background(), &Request{Peer: stdioPeer, Method: messages.MethodToolsCall, Target: "a"})
			return ctx, func() { outer.End(nil, false) }
		}, messages.MethodToolsCall},
		{"only tools/call", Options{ReuseExecuteToolSpan: true}, executeTool("execute_tool x"), messages.MethodToolsList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.opts)
			ctx, endOuter := tc.outer(r)
			if tc.method == messages.MethodToolsCall {
				start(r, ctx).End(nil, false)
			} else {
				_, op := r.tel.Start(ctx, &Request{Peer: stdioPeer, Method: tc.method})
				op.End(nil, false)
			}
			endOuter()
			if len(r.sr.Ended()) != 2 {
				t.Errorf("ended spans = %d, want 2", len(r.sr.Ended()))
			}
		})
	}
}

func traceparent(sc trace.SpanContext) string {
	return fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags())
}
