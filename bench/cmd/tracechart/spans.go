package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// span is one span of the trace file, with its children once the traces
// are built.
type span struct {
	name     string
	traceID  string
	id       string
	parentID string // "" for a root
	remote   bool   // the parent came from the peer (a SERVER span parented on _meta)
	kind     int    // trace.SpanKind: 1 internal, 2 server, 3 client
	start    time.Time
	end      time.Time
	attrs    map[string]string
	written  time.Time // the first mcpactor.written event, if any
	status   string    // "Error", "Ok" or "Unset"
	desc     string
	children []*span
}

// Span kinds as the stdout exporter writes them (trace.SpanKind).
const (
	kindInternal = 1
	kindServer   = 2
	kindClient   = 3
)

// rawSpan is a line of the file: the JSON the OpenTelemetry stdout trace
// exporter writes for a span (go.opentelemetry.io/otel/exporters/stdout/stdouttrace),
// which is what the demo's --trace FILE holds. Only what the chart uses.
type rawSpan struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct {
		TraceID, SpanID string
		Remote          bool
	}
	SpanKind   int
	StartTime  time.Time
	EndTime    time.Time
	Attributes []struct {
		Key   string
		Value struct{ Value any }
	}
	Events []struct {
		Name string
		Time time.Time
	}
	Status struct{ Code, Description string }
}

const noSpan = "0000000000000000"

// readSpans reads a trace file: one JSON span per line (blank lines are
// skipped).
func readSpans(r io.Reader) ([]*span, error) {
	var spans []*span
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var raw rawSpan
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			return nil, fmt.Errorf("line %d: not a span of the stdout exporter: %v", n, err)
		}
		if raw.SpanContext.SpanID == "" || raw.SpanContext.TraceID == "" {
			return nil, fmt.Errorf("line %d: a span without trace or span id", n)
		}
		s := &span{name: raw.Name, traceID: raw.SpanContext.TraceID, id: raw.SpanContext.SpanID,
			remote: raw.Parent.Remote, kind: raw.SpanKind, start: raw.StartTime, end: raw.EndTime,
			attrs: map[string]string{}, status: raw.Status.Code, desc: raw.Status.Description}
		if p := raw.Parent.SpanID; p != "" && p != noSpan {
			s.parentID = p
		}
		for _, a := range raw.Attributes {
			s.attrs[a.Key] = fmt.Sprint(a.Value.Value)
		}
		for _, e := range raw.Events {
			if e.Name == "mcpactor.written" && (s.written.IsZero() || e.Time.Before(s.written)) {
				s.written = e.Time
			}
		}
		spans = append(spans, s)
	}
	return spans, sc.Err()
}

// roots links every span to its parent and returns the roots, by start
// time. A span whose parent is not in the file (a remote parent that the
// other process recorded) counts as a root.
func roots(spans []*span) []*span {
	byID := make(map[string]*span, len(spans))
	for _, s := range spans {
		byID[s.traceID+"/"+s.id] = s
	}
	var rs []*span
	for _, s := range spans {
		if p, ok := byID[s.traceID+"/"+s.parentID]; ok && s.parentID != "" {
			p.children = append(p.children, s)
		} else {
			rs = append(rs, s)
		}
	}
	byStart := func(a, b *span) int { return a.start.Compare(b.start) }
	for _, s := range spans {
		slices.SortStableFunc(s.children, byStart)
	}
	slices.SortStableFunc(rs, byStart)
	return rs
}

// selector picks a root span: by name, and by one attribute if key is
// set ("mcpactor.connect[mcpactor.task.reason=restart]").
type selector struct {
	name, key, value string
}

func parseSelector(text string) (selector, error) {
	name, rest, ok := strings.Cut(text, "[")
	if !ok {
		return selector{name: text}, nil
	}
	kv, ok := strings.CutSuffix(rest, "]")
	key, value, hasEq := strings.Cut(kv, "=")
	if !ok || !hasEq || strings.TrimSpace(key) == "" {
		return selector{}, fmt.Errorf("-roots %q: want name or name[key=value]", text)
	}
	return selector{name: strings.TrimSpace(name), key: strings.TrimSpace(key), value: strings.TrimSpace(value)}, nil
}

func (sel selector) String() string {
	if sel.key == "" {
		return sel.name
	}
	return sel.name + "[" + sel.key + "=" + sel.value + "]"
}

func (sel selector) matches(s *span) bool {
	if s.name != sel.name {
		return false
	}
	if sel.key == "" {
		return true
	}
	v, ok := s.attrs[sel.key]
	return ok && v == sel.value
}

// pick returns, for each selector, the first root it matches.
func pick(rs []*span, sels []selector) ([]*span, error) {
	var out []*span
	for _, sel := range sels {
		i := slices.IndexFunc(rs, sel.matches)
		if i < 0 {
			var have []string
			for _, s := range rs {
				if !slices.Contains(have, s.name) {
					have = append(have, s.name)
				}
			}
			return nil, fmt.Errorf("no root span %q (the files' roots: %s)", sel.String(), strings.Join(have, ", "))
		}
		out = append(out, rs[i])
	}
	return out, nil
}
