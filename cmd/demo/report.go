package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/telemetry"
)

// report prints the demo's steps, keeps a tally per server for the summary
// table, and gives each step a span of its own, so that a trace viewer
// shows one trace per step with every call of the step inside it.
type report struct {
	w      io.Writer
	tracer trace.Tracer

	mu       sync.Mutex
	failures []string
	servers  map[string]*tally
	order    []string // servers in the order first seen
}

func newReport(w io.Writer, tracer trace.Tracer) *report {
	return &report{w: w, tracer: tracer, servers: make(map[string]*tally)}
}

// step prints a step's heading and starts its span, a root: every call
// made with the returned context is in the step's trace. end ends the span,
// with an ERROR status if the step recorded a failure.
func (r *report) step(ctx context.Context, name, format string, args ...any) (_ context.Context, end func()) {
	r.heading(format, args...)
	ctx, span := r.tracer.Start(ctx, "demo "+name, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal))
	r.mu.Lock()
	before := len(r.failures)
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		failed := r.failures[before:]
		r.mu.Unlock()
		if len(failed) > 0 {
			span.SetStatus(codes.Error, strings.Join(failed, "; "))
		}
		span.End()
	}
}

// heading prints a section heading.
func (r *report) heading(format string, args ...any) {
	fmt.Fprintf(r.w, "\n== "+format+"\n", args...)
}

// intro says in plain words what the demo is about to do, before its
// first step: a newcomer should not read the intended failures as bugs.
func (r *report) intro() {
	fmt.Fprint(r.w, `
mcpactor demo: this program starts MCP servers of its own (subprocesses
over stdio, and one over HTTP in this process), connects to them
through one mcpactor runtime, and exercises them step by step. Two steps
fail on purpose (a call that times out, a server that crashes) and say so;
the demo exits non-zero only if something that should work did not.
`)
}

func (r *report) line(format string, args ...any) {
	fmt.Fprintf(r.w, "   "+format+"\n", args...)
}

// table prints rows in aligned columns, under header if there is one.
func (r *report) table(header []string, rows [][]string) {
	tw := tabwriter.NewWriter(r.w, 0, 0, 2, ' ', 0)
	if header != nil {
		fmt.Fprintf(tw, "   %s\n", strings.Join(header, "\t"))
	}
	for _, row := range rows {
		for len(row) > 0 && row[len(row)-1] == "" {
			row = row[:len(row)-1] // no trailing blanks
		}
		fmt.Fprintf(tw, "   %s\n", strings.Join(row, "\t"))
	}
	tw.Flush()
}

// fail records something that should have worked and did not.
func (r *report) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.mu.Lock()
	r.failures = append(r.failures, msg)
	r.mu.Unlock()
	fmt.Fprintf(r.w, "   FAIL: %s\n", msg)
}

func (r *report) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failures) == 0 {
		return nil
	}
	return fmt.Errorf("%d check(s) failed: %s", len(r.failures), strings.Join(r.failures, "; "))
}

// Error kinds of the summary, from telemetry.ErrorType: the same
// classification as error.type on the spans.
const (
	kindTimeout = iota
	kindCancelled
	kindRPC
	kindTool
	kindClosed
	kindOther
	numKinds
)

// kindNames head the summary's error columns: error.type's words, with
// rpc_error for any JSON-RPC error code.
var kindNames = [numKinds]string{"timeout", "cancelled", "rpc_error", "tool_error", "transport_closed", "other"}

// errorKind classifies a call's outcome; -1 for success.
func errorKind(err error, toolError bool) int {
	switch telemetry.ErrorType(err, toolError) {
	case "":
		return -1
	case telemetry.ErrorTypeTimeout:
		return kindTimeout
	case telemetry.ErrorTypeCancelled:
		return kindCancelled
	case telemetry.ErrorTypeToolError:
		return kindTool
	case telemetry.ErrorTypeTransportClosed:
		return kindClosed
	case telemetry.ErrorTypeOther:
		return kindOther
	}
	return kindRPC // a JSON-RPC error code
}

// tally is what the summary says about one server.
type tally struct {
	state    string
	protocol string
	tools    int // -1: not listed
	calls    int
	errs     [numKinds]int
	lat      latencies
}

// server returns the tally of name, creating it. Call with r.mu held.
func (r *report) server(name string) *tally {
	t, ok := r.servers[name]
	if !ok {
		t = &tally{tools: -1}
		r.servers[name] = t
		r.order = append(r.order, name)
	}
	return t
}

// setState records a server's state for the summary ("ready", "failed to
// connect", "crashed (as intended)", ...), and its protocol version if
// known.
func (r *report) setState(name, state, protocol string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.server(name)
	t.state = state
	if protocol != "" {
		t.protocol = protocol
	}
}

func (r *report) setTools(name string, n int) {
	r.mu.Lock()
	r.server(name).tools = n
	r.mu.Unlock()
}

// record counts one request made to server: its latency and, if it
// failed, its error kind.
func (r *report) record(server string, d time.Duration, err error, toolError bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.server(server)
	t.calls++
	t.lat = append(t.lat, d)
	if k := errorKind(err, toolError); k >= 0 {
		t.errs[k]++
	}
}

// summary prints the table: per server its state, era and protocol
// version, tools, calls made, errors by kind and call latency.
func (r *report) summary() {
	r.mu.Lock()
	defer r.mu.Unlock()
	tw := tabwriter.NewWriter(r.w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "   server\tstate\tera\tprotocol\ttools\tcalls\t%s\tp50\tp99\n", strings.Join(kindNames[:], "\t"))
	for _, name := range r.order {
		t := r.servers[name]
		tools := "-"
		if t.tools >= 0 {
			tools = fmt.Sprint(t.tools)
		}
		errs := make([]string, numKinds)
		for k, n := range t.errs {
			errs[k] = fmt.Sprint(n)
		}
		p50, p99 := "-", "-"
		if len(t.lat) > 0 {
			p50, p99 = round(t.lat.quantile(0.5)).String(), round(t.lat.quantile(0.99)).String()
		}
		fmt.Fprintf(tw, "   %s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", name, t.state, protocolOf(t.protocol), dash(t.protocol), tools, t.calls, strings.Join(errs, "\t"), p50, p99)
	}
	tw.Flush()
}

// round keeps three significant figures or so of a latency.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// latencies summarises call durations.
type latencies []time.Duration

func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// errorKinds counts errors by kind name, for a step's own line.
type errorKinds map[string]int

func (k errorKinds) String() string {
	if len(k) == 0 {
		return "none"
	}
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, k[n])
	}
	return strings.Join(parts, " ")
}
