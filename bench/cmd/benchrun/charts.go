package main

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/docpage"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// chart is one SVG file of the page.
type chart struct {
	file, title, svg string
}

// series is one client's values, one per x (or group); NaN where not
// measured.
type series struct {
	name   string
	values []float64
}

// drawCharts draws the page's charts from the results; a chart without
// data is left out.
func drawCharts(all suite) []chart {
	var cs []chart
	levels := []int{1, 16, 256}
	clients := measure.StdioClients
	pick := func(step, server, load string, ns []int, f func(measure.Result) float64) []series {
		var ss []series
		for _, c := range clients {
			s := series{name: c}
			measured := false
			for _, n := range ns {
				r, ok := all.find(step, server, load, c, n)
				v := math.NaN()
				if ok {
					v, measured = f(r), true
				}
				s.values = append(s.values, v)
			}
			if measured {
				ss = append(ss, s)
			}
		}
		return ss
	}
	rate := func(r measure.Result) float64 { return r.Rate }
	if ss := pick("stdio-echo", "fast", "echo-fixed", levels, rate); len(ss) > 0 {
		cs = append(cs, chart{"throughput-stdio.svg", "stdio echo: calls/s against calls in flight (fast server, echo-fixed)",
			lineChart("stdio echo: calls/s against calls in flight", "calls in flight", "calls/s", levels, ss)})
	}
	if ss := pick("stdio-echo", "fast", "echo-fixed", levels, func(r measure.Result) float64 { return r.CPU }); len(ss) > 0 {
		cs = append(cs, chart{"cpu-per-call.svg", "stdio echo: client CPU per call (µs; fast server, echo-fixed)",
			barChart("stdio echo: client CPU per call", "µs per call", levelNames(levels), ss)})
	}
	if ss := pick("stdio-servers", measure.ServerFastStateless, "echo-fixed", levels, rate); len(ss) > 0 {
		cs = append(cs, chart{"throughput-stdio-2026.svg", "stdio echo in the 2026-07-28 revision: calls/s against calls in flight (the fast server offering it, echo-fixed)",
			lineChart("stdio echo, 2026-07-28: calls/s against calls in flight", "calls in flight", "calls/s", levels, ss)})
	}
	if ss := pick("stdio-servers", measure.ServerFastStateless, "echo-fixed", levels, func(r measure.Result) float64 { return r.Allocs }); len(ss) > 0 {
		cs = append(cs, chart{"allocs-stdio-2026.svg", "stdio echo in the 2026-07-28 revision: allocations per call (the fast server offering it, echo-fixed)",
			barChart("stdio echo, 2026-07-28: allocations per call", "allocations per call", levelNames(levels), ss)})
	}
	if ss := pick("inflight", "fast", "sleep-1000ms", []int{10000}, func(r measure.Result) float64 { return r.Extra["bytesPerInFlightCall"] / 1e3 }); len(ss) > 0 {
		cs = append(cs, chart{"memory-inflight.svg", "memory per in-flight call (KB; 1,000 to 10,000 calls of a 1 s tool in flight)",
			barChart("memory per in-flight call", "KB per call", []string{"1,000 → 10,000 in flight"}, ss)})
	}
	clients = append(append([]string(nil), measure.LibraryClients...), measure.WireName)
	if ss := pick("http", "testserver", "echo-unique", levels, rate); len(ss) > 0 {
		cs = append(cs, chart{"throughput-http.svg", "Streamable HTTP echo: calls/s against calls in flight (mcpactor's test server)",
			lineChart("Streamable HTTP echo: calls/s against calls in flight", "calls in flight", "calls/s", levels, ss)})
	}
	if ss := pick("http", "gosdk-stateless", "echo-unique", levels, rate); len(ss) > 0 {
		cs = append(cs, chart{"throughput-http-2026.svg", "Streamable HTTP echo in the 2026-07-28 revision: calls/s against calls in flight (the go-sdk server, Stateless: true)",
			lineChart("Streamable HTTP echo, 2026-07-28: calls/s against calls in flight", "calls in flight", "calls/s", levels, ss)})
	}
	return cs
}

func levelNames(levels []int) []string {
	var names []string
	for _, n := range levels {
		names = append(names, fmt.Sprintf("%d in flight", n))
	}
	return names
}

// The charts' geometry and colours (one per series, in order).
const (
	width, height = 720, 400
	// The plot's margins: the y axis's labels on the left, the legend on
	// the right, the title above, the x axis's labels below.
	left, right, above, below = 80, 160, 40, 50
)

var colours = []string{"#d62728", "#1f77b4", "#2ca02c", "#7f7f7f", "#111111", "#9467bd"}

// frame starts an SVG with its title and y axis (ticks up to ymax) and
// returns the builder and the y scale.
func frame(title, ylabel string, ymax float64) (*strings.Builder, func(float64) float64) {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	step := docpage.NiceStep(ymax / 5)
	yTop := math.Ceil(ymax/step) * step
	if yTop == 0 {
		yTop = 1
	}
	plotH := float64(height - above - below)
	y := func(v float64) float64 { return float64(height-below) - v/yTop*plotH }
	for v := 0.0; v <= yTop+step/2; v += step {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-right, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, docpage.Tick(v))
	}
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", height/2, html.EscapeString(ylabel))
	return &b, y
}

func legend(b *strings.Builder, ss []series) {
	for i, s := range ss {
		y := above + 10 + 20*i
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="14" height="14" fill="%s"/>`+"\n", width-right+16, y, colours[i%len(colours)])
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", width-right+36, y+12, html.EscapeString(s.name))
	}
}

// lineChart draws series against xs, spaced evenly (log scale for
// levels like 1, 16, 256).
func lineChart(title, xlabel, ylabel string, xs []int, ss []series) string {
	b, y := frame(title, ylabel, maxOf(ss))
	plotW := float64(width - left - right)
	x := func(i int) float64 {
		if len(xs) == 1 {
			return float64(left) + plotW/2
		}
		return float64(left) + 20 + float64(i)*(plotW-40)/float64(len(xs)-1)
	}
	for i, v := range xs {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(i), height-below+18, v)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+plotW/2, height-12, html.EscapeString(xlabel))
	for si, s := range ss {
		c := colours[si%len(colours)]
		var pts []string
		for i, v := range s.values {
			if math.IsNaN(v) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`+"\n", x(i), y(v), c)
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), c)
	}
	legend(b, ss)
	b.WriteString("</svg>\n")
	return b.String()
}

// barChart draws one bar per series in each group.
func barChart(title, ylabel string, groups []string, ss []series) string {
	b, y := frame(title, ylabel, maxOf(ss))
	plotW := float64(width - left - right)
	gw := plotW / float64(len(groups))
	bw := gw * 0.8 / float64(len(ss))
	for g, name := range groups {
		x0 := float64(left) + float64(g)*gw + gw*0.1
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x0+gw*0.4, height-below+18, html.EscapeString(name))
		for si, s := range ss {
			v := s.values[g]
			if math.IsNaN(v) {
				continue
			}
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s</title></rect>`+"\n",
				x0+float64(si)*bw, y(v), bw*0.9, y(0)-y(v), colours[si%len(colours)], html.EscapeString(s.name), docpage.Tick(v))
		}
	}
	legend(b, ss)
	b.WriteString("</svg>\n")
	return b.String()
}

func maxOf(ss []series) float64 {
	m := 0.0
	for _, s := range ss {
		for _, v := range s.values {
			if !math.IsNaN(v) && v > m {
				m = v
			}
		}
	}
	return m
}
