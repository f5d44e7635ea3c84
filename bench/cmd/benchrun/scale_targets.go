package main

import (
	"fmt"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// The sizes of the scale step's full run (steps.go): its results are
// found by them.
const (
	scaleRestServers  = 100
	scaleStdioServers = 500
	scaleHTTPSessions = 1000
)

// The names bench/cmd/scale gives its numbers in Result.Extra.
const (
	scaleBringUp = "bringUpSeconds"
	scaleRSSRest = "rssAtRestPerSession"
)

// scaleTargets are the targets of one runtime at scale: the memory each
// server or session holds no more than the leaner peer's, and a bring-up
// no slower than the hand-written client's at the same parallelism.
func scaleTargets() []target {
	rss := func(r measure.Result) float64 { return r.Extra[scaleRSSRest] }
	up := func(r measure.Result) float64 { return r.Extra[scaleBringUp] }
	overLeaner := func(load, server string, n int) func(suite) (float64, bool) {
		return func(all suite) (float64, bool) {
			a, ok := all.find("scale", server, load, ours, n)
			lean, ok2 := leanerPeer(all, "scale", server, load, n, rss)
			if !ok || !ok2 || lean <= 0 {
				return 0, false
			}
			return rss(a) / lean, true
		}
	}
	return []target{
		{what: fmt.Sprintf("%d stdio servers at rest under one Manager: resident memory per server vs the leaner peer's, each peer holding %d sessions", scaleRestServers, scaleRestServers),
			value: overLeaner("rest", "fast", scaleRestServers), limit: 1, atMost: true, format: ratio},
		{what: fmt.Sprintf("%d stdio servers under one Manager: resident memory per server vs the leaner peer's", scaleStdioServers),
			value: overLeaner("stdio", "fast", scaleStdioServers), limit: 1, atMost: true, format: ratio},
		{what: fmt.Sprintf("%d stdio servers under one Manager: bring-up time vs the blocking-API reference's, at the same parallelism", scaleStdioServers),
			value: fieldRatio("scale", "fast", "stdio", ours, blocking, scaleStdioServers, up), limit: 1, atMost: true, format: ratio},
		{what: fmt.Sprintf("%d Streamable HTTP sessions, one per identity: resident memory per session vs the leaner peer's", scaleHTTPSessions),
			value: overLeaner("http", "testserver-http", scaleHTTPSessions), limit: 1, atMost: true, format: ratio},
		{what: fmt.Sprintf("%d Streamable HTTP sessions, one per identity: bring-up time vs the hand-written net/http client's, at the same parallelism", scaleHTTPSessions),
			value: fieldRatio("scale", "testserver-http", "http", ours, measure.WireName, scaleHTTPSessions, up), limit: 1, atMost: true, format: ratio},
	}
}
