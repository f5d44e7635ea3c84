package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
)

// metaCarrier adapts a _meta object to propagation.TextMapCarrier. Reads
// come from src until the first write, which copies src into dst, so the
// caller's map is never modified.
type metaCarrier struct {
	src, dst messages.Meta
	wrote    [3]bool // traceparent, tracestate, baggage written by us
}

func (c *metaCarrier) m() messages.Meta {
	if c.dst != nil {
		return c.dst
	}
	return c.src
}

func (c *metaCarrier) Get(key string) string {
	s, _ := c.m()[key].(string)
	return s
}

func (c *metaCarrier) Set(key, value string) {
	if c.dst == nil {
		c.dst = make(messages.Meta, len(c.src)+3)
		maps.Copy(c.dst, c.src)
	}
	c.dst[key] = value
	switch key {
	case messages.MetaKeyTraceparent:
		c.wrote[0] = true
	case messages.MetaKeyTracestate:
		c.wrote[1] = true
	case messages.MetaKeyBaggage:
		c.wrote[2] = true
	}
}

func (c *metaCarrier) Keys() []string {
	return slices.Collect(maps.Keys(c.m()))
}

// hasTraceKeys reports whether meta carries a trace context or baggage.
func hasTraceKeys(meta messages.Meta) bool {
	if meta == nil {
		return false
	}
	if _, ok := meta[messages.MetaKeyTraceparent]; ok {
		return true
	}
	_, ok := meta[messages.MetaKeyBaggage]
	return ok
}

// Inject returns meta with the Op's trace context written by the configured
// propagators (with the default W3C ones: traceparent, tracestate and
// baggage, unprefixed, as the MCP conventions ask). A non-nil meta is copied
// first, never modified. When there is nothing to inject (nil Op, no-op
// propagator) meta itself is returned and nothing is allocated.
//
// A tracestate the caller left in meta is dropped when a new traceparent is
// written without one: it belonged to another trace position.
func (o *Op) Inject(meta messages.Meta) messages.Meta {
	if o == nil {
		return meta
	}
	c := metaCarrier{src: meta}
	o.t.propagator().Inject(o.ctx, &c)
	if c.dst == nil {
		return meta
	}
	if c.wrote[0] && !c.wrote[1] {
		delete(c.dst, messages.MetaKeyTracestate)
	}
	return c.dst
}

// InjectParams is Inject for params already encoded as a JSON object: it
// returns params with the trace fields merged into its "_meta" member
// (created if missing). params is returned unchanged when there is nothing
// to inject, or when it is not a JSON object (nil or empty params become
// {"_meta":{...}}).
func (o *Op) InjectParams(params json.RawMessage) json.RawMessage {
	if o == nil {
		return params
	}
	fields := o.Inject(nil)
	if len(fields) == 0 {
		return params
	}
	trimmed := bytes.TrimSpace(params)
	if out, ok := appendMetaMember(trimmed, fields); ok {
		return out
	}
	var top map[string]json.RawMessage
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		top = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(trimmed, &top); err != nil || top == nil {
		return params
	}
	meta := map[string]any{}
	if raw, ok := top["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
			return params
		}
		if _, ok := fields[messages.MetaKeyTraceparent]; ok {
			if _, ok := fields[messages.MetaKeyTracestate]; !ok {
				delete(meta, messages.MetaKeyTracestate)
			}
		}
	}
	maps.Copy(meta, fields)
	rawMeta, err := json.Marshal(meta)
	if err != nil {
		return params
	}
	top["_meta"] = rawMeta
	out, err := json.Marshal(top)
	if err != nil {
		return params
	}
	return out
}

// appendMetaMember is the common case of InjectParams made cheap: params
// (obj) is a JSON object without a "_meta" member, so the trace fields are
// appended as a new member without decoding and re-encoding the rest.
// Anything else (a _meta to merge into, a key that merely looks like one,
// not an object) reports false and takes the general path.
func appendMetaMember(obj []byte, fields messages.Meta) ([]byte, bool) {
	n := len(obj)
	if n < 2 || obj[0] != '{' || obj[n-1] != '}' || bytes.Contains(obj, []byte(`"_meta"`)) || !json.Valid(obj) {
		return nil, false
	}
	meta, err := json.Marshal(fields)
	if err != nil {
		return nil, false
	}
	body := bytes.TrimSpace(obj[1 : n-1])
	out := make([]byte, 0, len(body)+len(meta)+12)
	out = append(out, '{')
	if len(body) > 0 {
		out = append(out, body...)
		out = append(out, ',')
	}
	out = append(out, `"_meta":`...)
	out = append(out, meta...)
	return append(out, '}'), true
}

// Extract returns ctx with the trace context and baggage of a _meta object
// (as sent by an MCP peer), using t's propagator. StartServer does this
// itself; Extract is for messages answered without a span.
func (t *Telemetry) Extract(ctx context.Context, meta messages.Meta) context.Context {
	if t == nil || t.disabled || !hasTraceKeys(meta) {
		return ctx
	}
	return t.propagator().Extract(ctx, &metaCarrier{src: meta})
}

// Detach returns a context that carries the trace context of ctx (its span
// context and baggage) and nothing else: no deadline, no cancellation, no
// other values. It is for work a call starts that outlives the call, whose
// spans should still be children of the caller's span: the handshake a
// Connect starts, for instance, which runs on a context of the
// connection's own. Without a span context or baggage in ctx it returns
// context.Background(), allocating nothing.
func Detach(ctx context.Context) context.Context {
	out := context.Background()
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		out = trace.ContextWithSpanContext(out, sc)
	}
	if b := baggage.FromContext(ctx); b.Len() > 0 {
		out = baggage.ContextWithBaggage(out, b)
	}
	return out
}

type executeToolKey struct{}

// MarkExecuteToolSpan returns ctx noting that its current span is a GenAI
// execute_tool span. With Options.ReuseExecuteToolSpan, a tools/call
// started with such a context adds its MCP attributes and events to that
// span instead of starting its own CLIENT span. Spans made by the
// OpenTelemetry SDK are also recognised without the mark, by their
// gen_ai.operation.name = execute_tool attribute; the mark is for other
// span implementations.
func MarkExecuteToolSpan(ctx context.Context) context.Context {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ctx
	}
	return context.WithValue(ctx, executeToolKey{}, sc.SpanID())
}

// isExecuteToolSpan reports whether s, the span of ctx, is a GenAI
// execute_tool span that is not itself an MCP span of ours.
func isExecuteToolSpan(ctx context.Context, s trace.Span) bool {
	if id, ok := ctx.Value(executeToolKey{}).(trace.SpanID); ok && id == s.SpanContext().SpanID() {
		return true
	}
	ro, ok := s.(interface{ Attributes() []attribute.KeyValue })
	if !ok {
		return false
	}
	tool := false
	for _, kv := range ro.Attributes() {
		switch kv.Key {
		case KeyMCPMethodName:
			return false // an MCP span (ours): never reuse it
		case KeyGenAIOperationName:
			tool = kv.Value.AsString() == OperationExecuteTool
		}
	}
	return tool
}

// jsonValue converts a JSON document to a structured attribute value: maps
// become MAP values (keys sorted), arrays SLICE values. Invalid JSON is kept
// as a string. null gives the EMPTY value.
//
// The arguments and result of a tool call are the caller's data, returned
// to it unchanged; a span is not the caller's, so m masks the server's
// credentials in every string (and key) recorded of them.
func jsonValue(raw json.RawMessage, m *redact.Masker) attribute.Value {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return attribute.StringValue(m.Text(string(raw)))
	}
	return anyValue(v, m)
}

func anyValue(v any, m *redact.Masker) attribute.Value {
	switch x := v.(type) {
	case nil:
		return attribute.Value{}
	case bool:
		return attribute.BoolValue(x)
	case string:
		return attribute.StringValue(m.Text(x))
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return attribute.Int64Value(n)
		}
		if f, err := x.Float64(); err == nil {
			return attribute.Float64Value(f)
		}
		return attribute.StringValue(x.String())
	case []any:
		vals := make([]attribute.Value, len(x))
		for i, e := range x {
			vals[i] = anyValue(e, m)
		}
		return attribute.SliceValue(vals...)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		kvs := make([]attribute.KeyValue, len(keys))
		for i, k := range keys {
			kvs[i] = attribute.KeyValue{Key: attribute.Key(m.Text(k)), Value: anyValue(x[k], m)}
		}
		return attribute.MapValue(kvs...)
	}
	return attribute.Value{}
}
