package main

import (
	"fmt"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// printStatus prints the manager's own view of its servers (Manager.Status):
// state, source, era and protocol of the current connection, its
// generation, restarts, requests in flight, tools, and the latency of the
// calls made through the manager.
func printStatus(r *report, st []mcpactor.ServerStatus) {
	header := []string{"server", "state", "source", "era", "protocol", "gen", "restarts", "in flight", "tools", "p50", "p99", "last error"}
	rows := make([][]string, 0, len(st))
	for _, s := range st {
		tools := fmt.Sprint(s.Tools)
		if s.Cached {
			tools += " cached"
		}
		last := "-"
		if s.LastError != nil {
			last = firstLine(s.LastError.Error())
		}
		rows = append(rows, []string{s.Name, string(s.State), sourceOf(s.Source), protocolOf(s.ProtocolVersion), dash(s.ProtocolVersion),
			fmt.Sprint(s.Generation), fmt.Sprint(s.Restarts), fmt.Sprint(s.InFlight), tools, latency(s.P50), latency(s.P99), last})
	}
	r.table(header, rows)
}

// protocolOf names the protocol a version belongs to, as the demo's
// "era" column shows it: "session" for the initialize handshake's
// versions up to 2025-11-25, "stateless" for 2026-07-28
// (docs/configuration.md, "Server entries", protocolVersion).
func protocolOf(version string) string {
	switch version {
	case "":
		return "-"
	case messages.Version20260728:
		return "stateless"
	}
	return "session"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// latency is "-" for no calls (the manager reports zeros).
func latency(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return round(d).String()
}
