package main

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/docpage"
)

// row is one line of a trace's waterfall: a span, or a summary of the
// siblings left out (s nil).
type row struct {
	depth      int
	s          *span
	label      string
	start, end time.Time
	hidden     int // spans a summary row stands for (with their descendants)
	failed     int // of those, how many have status Error
}

// flatten lists a trace's spans depth first, each parent's children by
// start time. A parent with more than maxChildren children shows the
// first maxChildren-1 and one summary row for the rest, so that a burst of
// thousands of calls stays readable.
func flatten(root *span, maxChildren int) []row {
	var rows []row
	var walk func(s *span, depth int)
	walk = func(s *span, depth int) {
		label := s.name
		if key := keyAttrs(s); key != "" {
			label += " · " + key
		}
		rows = append(rows, row{depth: depth, s: s, label: label, start: s.start, end: s.end})
		kids := s.children
		if maxChildren > 0 && len(kids) > maxChildren {
			shown := kids[:maxChildren-1]
			for _, k := range shown {
				walk(k, depth+1)
			}
			rows = append(rows, summary(kids[maxChildren-1:], depth+1))
			return
		}
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	walk(root, 0)
	return rows
}

// keyAttrs are the attributes a row's label shows, those that tell the
// rows of a trace apart: the server, why a connection was made (a
// restart), the members a hop goes between. The tooltip has them all.
func keyAttrs(s *span) string {
	var parts []string
	if v := s.attrs["mcpactor.server.name"]; v != "" {
		parts = append(parts, v)
	}
	if v := s.attrs["mcpactor.task.reason"]; v != "" {
		parts = append(parts, "reason="+v)
	}
	from, to := s.attrs["mcpactor.cluster.member"], s.attrs["mcpactor.cluster.owner"]
	if from != "" || to != "" {
		parts = append(parts, from+" → "+to)
	}
	return strings.Join(parts, " ")
}

// summary is the row of the spans rest (and their descendants): from the
// first start to the last end, named after their most frequent names.
func summary(rest []*span, depth int) row {
	r := row{depth: depth, start: rest[0].start, end: rest[0].end}
	names := map[string]int{}
	var count func(s *span)
	count = func(s *span) {
		r.hidden++
		names[s.name]++
		if s.status == "Error" {
			r.failed++
		}
		if s.start.Before(r.start) {
			r.start = s.start
		}
		if s.end.After(r.end) {
			r.end = s.end
		}
		for _, k := range s.children {
			count(k)
		}
	}
	for _, s := range rest {
		count(s)
	}
	type nc struct {
		name string
		n    int
	}
	var top []nc
	for name, n := range names {
		top = append(top, nc{name, n})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].name < top[j].name })
	var parts []string
	for i, t := range top {
		if i == 2 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%d × %s", t.n, t.name))
	}
	r.label = "… " + strings.Join(parts, ", ")
	return r
}

// The waterfall's geometry and colours: one colour per span kind, as a
// trace viewer shows them; red for a span whose status is Error.
const (
	chartWidth = 1240
	labelWidth = 440
	kindWidth  = 64  // the kind column, at the right of the labels
	rightPad   = 230 // room for the duration and error.type after a bar
	rowHeight  = 20
	indent     = 12
)

var kindColour = map[int]string{kindClient: "#1f77b4", kindServer: "#2ca02c", kindInternal: "#7f7f7f"}

const errorColour = "#d62728"

// waterfall draws the traces of roots, one section each with its own time
// axis (the traces are seconds apart; each is drawn from its root's start).
func waterfall(title string, roots []*span, maxChildren int) string {
	type section struct {
		root *span
		rows []row
	}
	var secs []section
	height := 70 // title and legend
	for _, r := range roots {
		rows := flatten(r, maxChildren)
		secs = append(secs, section{r, rows})
		height += (len(rows)+2)*rowHeight + 14
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartWidth, height, chartWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	legend(&b, 44)
	y := 70
	for _, sec := range secs {
		y = drawSection(&b, sec.root, sec.rows, y)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func legend(b *strings.Builder, y int) {
	x := 10
	item := func(fill, opacity, text string) {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="14" height="12" fill="%s" fill-opacity="%s"/>`+"\n", x, y-10, fill, opacity)
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", x+18, y, html.EscapeString(text))
		x += 24 + 7*len(text)
	}
	item(kindColour[kindClient], "1", "CLIENT")
	item(kindColour[kindServer], "1", "SERVER")
	item(kindColour[kindInternal], "1", "INTERNAL")
	item(errorColour, "1", "status Error")
	item(kindColour[kindClient], "0.3", "waiting before the send (mcpactor.written)")
	fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", x, y, html.EscapeString("↖ parent span from the peer (_meta)"))
}

// drawSection draws one trace from y down and returns the y after it.
func drawSection(b *strings.Builder, root *span, rows []row, y int) int {
	t0, t1 := root.start, root.end
	for _, r := range rows {
		if r.end.After(t1) {
			t1 = r.end
		}
	}
	total := t1.Sub(t0)
	if total <= 0 {
		total = time.Microsecond
	}
	plotW := float64(chartWidth - labelWidth - rightPad)
	x := func(t time.Time) float64 { return float64(labelWidth) + float64(t.Sub(t0))/float64(total)*plotW }

	fmt.Fprintf(b, `<text x="10" y="%d" font-weight="bold">%s (trace %s, %s)</text>`+"\n", y+14, html.EscapeString(rows[0].label), short(root.traceID), dur(total))
	y += rowHeight
	// The time axis: ticks at a round step, labelled in the unit that
	// suits the trace's length.
	step := time.Duration(docpage.NiceStep(float64(total) / 6))
	top, bottom := y+4, y+rowHeight*(len(rows)+1)
	for tk := time.Duration(0); tk <= total+step/2; tk += step {
		tx := x(t0.Add(tk))
		if tx > float64(labelWidth)+plotW+1 {
			break
		}
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#e4e4e4"/>`+"\n", tx, tx, top, bottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", tx, y+14, dur(tk))
	}
	y += rowHeight
	for _, r := range rows {
		drawRow(b, r, y, x)
		y += rowHeight
	}
	return y + 14
}

func drawRow(b *strings.Builder, r row, y int, x func(time.Time) float64) {
	lx := 10 + indent*r.depth
	colour, kind := "#bbbbbb", ""
	var tip []string
	if r.s != nil {
		colour = kindColour[r.s.kind]
		if colour == "" {
			colour = kindColour[kindInternal]
		}
		kind = map[int]string{kindClient: "CLIENT", kindServer: "SERVER", kindInternal: "INTERNAL"}[r.s.kind]
		if r.s.status == "Error" {
			colour = errorColour
		}
		tip = append(tip, kind+" "+r.s.name)
		keys := make([]string, 0, len(r.s.attrs))
		for k := range r.s.attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			tip = append(tip, k+"="+r.s.attrs[k])
		}
		if r.s.desc != "" {
			tip = append(tip, "status: "+r.s.desc)
		}
	} else {
		tip = append(tip, fmt.Sprintf("%d spans left out, %d with status Error", r.hidden, r.failed))
	}
	label := r.label
	if r.s != nil && r.s.remote {
		kind += " ↖" // its parent came from the peer, through _meta
	}
	// The row's span and its parent's, for a reader of the SVG (and the
	// tests): the nesting the indent shows.
	ids := ""
	if r.s != nil {
		ids = fmt.Sprintf(` data-span="%s" data-parent="%s"`, html.EscapeString(r.s.id), html.EscapeString(r.s.parentID))
	}
	fmt.Fprintf(b, `<g data-depth="%d"%s><title>%s</title>`+"\n", r.depth, ids, html.EscapeString(strings.Join(tip, "\n")))
	weight := ""
	if r.s == nil {
		weight = ` font-style="italic" fill="#555"`
	}
	fmt.Fprintf(b, `<text x="%d" y="%d"%s>%s</text>`+"\n", lx, y+14, weight, html.EscapeString(clip(label, (labelWidth-kindWidth-lx-4)/7)))
	if kind != "" {
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="10" fill="#666">%s</text>`+"\n", labelWidth-kindWidth+2, y+13, kind)
	}
	x0, x1 := x(r.start), x(r.end)
	w := math.Max(x1-x0, 1.5)
	if r.s != nil && r.s.kind == kindClient && !r.s.written.IsZero() && r.s.written.After(r.start) {
		// The wait before the send: in the span, not in
		// mcp.client.operation.duration.
		xw := math.Min(x(r.s.written), x0+w)
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="12" fill="%s" fill-opacity="0.3"/>`+"\n", x0, y+4, xw-x0, colour)
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="12" fill="%s"/>`+"\n", xw, y+4, math.Max(x0+w-xw, 1.5), colour)
	} else {
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="12" fill="%s"/>`+"\n", x0, y+4, w, colour)
	}
	note := dur(r.end.Sub(r.start))
	if r.s != nil {
		if et := r.s.attrs["error.type"]; et != "" {
			note += "  error.type=" + et
		}
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="#333">%s</text>`+"\n", x0+w+4, y+14, html.EscapeString(note))
	b.WriteString("</g>\n")
}

// dur formats a duration for the chart: µs, ms or s, three figures.
func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Millisecond:
		return trim(float64(d)/1e3) + " µs"
	case d < time.Second:
		return trim(float64(d)/1e6) + " ms"
	}
	return trim(float64(d)/1e9) + " s"
}

func trim(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if strings.Contains(s, "e") {
		s = fmt.Sprintf("%.0f", v)
	}
	return s
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// clip shortens s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if n < 2 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
