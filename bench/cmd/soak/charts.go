package main

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/docpage"
)

// chart is one SVG file of the page.
type chart struct {
	file, title, svg string
}

// line is one series of a time chart: (seconds, value) points.
type line struct {
	name   string
	colour string
	xs, ys []float64
}

// The charts' geometry (as benchrun's charts).
const (
	chartW, chartH                       = 760, 360
	padLeft, padRight, padTop, padBottom = 70, 150, 40, 50
)

// drawCharts draws the run's time series, each with the faults as
// vertical marks (red: processes killed or restarted; orange: the
// others).
func drawCharts(r *report) []chart {
	var calls, rss, heap, gor, p50, p99 line
	calls = line{name: "calls/s", colour: "#1f77b4"}
	rss = line{name: "RSS (MiB)", colour: "#d62728"}
	heap = line{name: "live heap (MiB)", colour: "#2ca02c"}
	gor = line{name: "goroutines", colour: "#9467bd"}
	for _, s := range r.samples {
		x := s.At.Seconds()
		calls.xs, calls.ys = append(calls.xs, x), append(calls.ys, s.Rate)
		rss.xs, rss.ys = append(rss.xs, x), append(rss.ys, float64(s.RSS)/(1<<20))
		heap.xs, heap.ys = append(heap.xs, x), append(heap.ys, float64(s.HeapLive)/(1<<20))
		gor.xs, gor.ys = append(gor.xs, x), append(gor.ys, float64(s.Goroutines))
	}
	p50 = line{name: "echo p50 (ms)", colour: "#1f77b4"}
	p99 = line{name: "echo p99 (ms)", colour: "#d62728"}
	probe := line{name: "probe p99 (ms)", colour: "#7f7f7f"}
	for _, w := range r.windows {
		x := (w.From + w.To).Seconds() / 2
		if !math.IsNaN(w.EchoP50) {
			p50.xs, p50.ys = append(p50.xs, x), append(p50.ys, w.EchoP50)
			p99.xs, p99.ys = append(p99.xs, x), append(p99.ys, w.EchoP99)
		}
		if !math.IsNaN(w.ProbeP99) {
			probe.xs, probe.ys = append(probe.xs, x), append(probe.ys, w.ProbeP99)
		}
	}
	return []chart{
		{"reliability-calls.svg", "calls/s over the run, faults marked", timeChart("calls/s (faults marked)", "calls/s", r, []line{calls})},
		{"reliability-memory.svg", "RSS and live heap over the run, faults marked", timeChart("RSS and live heap (faults marked)", "MiB", r, []line{rss, heap})},
		{"reliability-goroutines.svg", "goroutines over the run, faults marked", timeChart("goroutines (faults marked)", "goroutines", r, []line{gor})},
		{"reliability-latency.svg", "echo latency p50 and p99 and the control probe's p99 by window, faults marked", timeChart("echo and control probe latency by window (faults marked)", "ms", r, []line{p50, p99, probe})},
	}
}

// killing faults are marked red.
func killing(kind string) bool {
	switch kind {
	case fKill, fHTTPRestart, fCrashLoop, fRemoveAdd, fReload:
		return true
	}
	return false
}

func timeChart(title, ylabel string, r *report, lines []line) string {
	xmax := (r.loadEnd + r.cfg.grace).Seconds()
	ymax := 0.0
	for _, l := range lines {
		for _, y := range l.ys {
			ymax = math.Max(ymax, y)
		}
	}
	step := docpage.NiceStep(ymax / 5)
	ytop := math.Ceil(ymax/step) * step
	if ytop == 0 {
		ytop = 1
	}
	plotW, plotH := float64(chartW-padLeft-padRight), float64(chartH-padTop-padBottom)
	x := func(v float64) float64 { return float64(padLeft) + v/xmax*plotW }
	y := func(v float64) float64 { return float64(chartH-padBottom) - v/ytop*plotH }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartW, chartH, chartW, chartH)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", padLeft, html.EscapeString(title))
	for v := 0.0; v <= ytop+step/2; v += step {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", padLeft, chartW-padRight, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", padLeft-6, y(v)+4, docpage.Tick(v))
	}
	xstep := docpage.NiceStep(xmax / 8)
	for v := 0.0; v <= xmax; v += xstep {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(v), chartH-padBottom+16, clock(v))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">time since start (quiet baseline until %s, load until %s)</text>`+"\n",
		float64(padLeft)+plotW/2, chartH-12, clock(r.quietEnd.Seconds()), clock(r.loadEnd.Seconds()))
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", chartH/2, html.EscapeString(ylabel))
	// The quiet baseline, shaded; the faults, marked.
	fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%.1f" fill="#eef6ee"/>`+"\n", x(r.loadStart.Seconds()), padTop, x(r.quietEnd.Seconds())-x(r.loadStart.Seconds()), plotH)
	for _, f := range r.faults {
		c := "#ff7f0e"
		if killing(f.Kind) {
			c = "#d62728"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-opacity="0.45"><title>%s %s at %s</title></line>`+"\n",
			x(f.At.Seconds()), x(f.At.Seconds()), padTop, chartH-padBottom, c, f.Kind, html.EscapeString(f.Server), clock(f.At.Seconds()))
	}
	for i, l := range lines {
		var pts []string
		for j := range l.xs {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(l.xs[j]), y(l.ys[j])))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), l.colour)
		ly := padTop + 10 + 20*i
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="14" height="14" fill="%s"/>`+"\n", chartW-padRight+12, ly, l.colour)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", chartW-padRight+32, ly+12, html.EscapeString(l.name))
	}
	ly := padTop + 10 + 20*len(lines) + 10
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#d62728"/><text x="%d" y="%d">kill/restart</text>`+"\n", chartW-padRight+12, chartW-padRight+26, ly+7, ly+7, chartW-padRight+32, ly+12)
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#ff7f0e"/><text x="%d" y="%d">other fault</text>`+"\n", chartW-padRight+12, chartW-padRight+26, ly+27, ly+27, chartW-padRight+32, ly+32)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="14" height="14" fill="#eef6ee"/><text x="%d" y="%d">quiet baseline</text>`+"\n", chartW-padRight+12, ly+40, chartW-padRight+32, ly+52)
	b.WriteString("</svg>\n")
	return b.String()
}

// clock formats seconds as m:ss.
func clock(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
