package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The kinds of server in the fleet.
const (
	kTest           = "test"            // internal/testserver over stdio (this binary re-executed)
	kFragile        = "fragile"         // the same, with a restart policy that a crash loop exhausts
	kFast           = "fast"            // bench/internal/fastserver over stdio (this binary re-executed)
	kGoSDK          = "gosdk"           // the go-sdk everything server over stdio; probed, it speaks 2026-07-28
	kEverything     = "everything"      // server-everything over stdio
	kTestHTTP       = "test-http"       // internal/testserver over Streamable HTTP, sessions, answers on SSE streams
	kGoSDKHTTP      = "gosdk-http"      // the go-sdk everything server over HTTP, stateless: 2026-07-28
	kEverythingHTTP = "everything-http" // server-everything over Streamable HTTP, sessions
	kEverythingSSE  = "everything-sse"  // server-everything over the legacy HTTP+SSE transport
)

// kindOrder is the order of the kinds in reports.
var kindOrder = []string{kTest, kFragile, kFast, kGoSDK, kEverything, kTestHTTP, kGoSDKHTTP, kEverythingHTTP, kEverythingSSE}

func isHTTPKind(k string) bool {
	switch k {
	case kTestHTTP, kGoSDKHTTP, kEverythingHTTP, kEverythingSSE:
		return true
	}
	return false
}

// composition splits n servers among the kinds: the dozen of the short
// mode has every kind, and the rest goes mostly to the cheap servers
// (Go processes), a node process being ~60 MB and slow to start.
func composition(n int) map[string]int {
	c := map[string]int{kTest: 2, kFragile: 1, kFast: 2, kGoSDK: 1, kEverything: 1, kTestHTTP: 2, kGoSDKHTTP: 1, kEverythingHTTP: 1, kEverythingSSE: 1}
	// Beyond 12, in turn: 10 of every 38 test, 1 fragile, 8 fast, 5
	// gosdk, 3 everything, 6 test-http, 4 gosdk-http, 1 everything-http.
	cycle := []string{kTest, kFast, kTestHTTP, kGoSDK, kTest, kFast, kGoSDKHTTP, kTestHTTP, kTest, kFast, kEverything,
		kTest, kGoSDK, kFast, kTestHTTP, kTest, kGoSDKHTTP, kFast, kTest, kEverythingHTTP, kGoSDK, kTestHTTP, kFast,
		kTest, kFragile, kEverything, kGoSDKHTTP, kTest, kFast, kTestHTTP, kGoSDK, kTest, kFast, kGoSDKHTTP, kEverything, kTestHTTP, kTest, kGoSDK}
	for i := 0; i < n-12; i++ {
		c[cycle[i%len(cycle)]]++
	}
	return c
}

// The supervision every server gets: a restart soon after a death, pings
// that find a stalled server, timeouts short enough for a soak.
const (
	connectTimeout = 20 * time.Second
	requestTimeout = 8 * time.Second
	keepalive      = 2 * time.Second
	writeStall     = 5 * time.Second
	backoffMax     = 2 * time.Second
	breakerRetry   = 15 * time.Second
	// maxFrame is the test kinds' frame cap: above the 1 MiB answers,
	// below the oversized lines the faults send.
	maxFrame      = 4 << 20
	fastInFlight  = 32
	oversizedLine = 6 << 20
)

// restartPolicy: a soak's servers are killed again and again on purpose;
// only the fragile ones may exhaust their restarts (and open their
// breaker), and only when a crash loop is made of them.
func restartPolicy(kind string) mcpactor.RestartPolicy {
	if kind == kFragile {
		return mcpactor.RestartPolicy{MaxRestarts: 2, Window: 30 * time.Second, BackoffMin: 100 * time.Millisecond, BackoffMax: 500 * time.Millisecond}
	}
	return mcpactor.RestartPolicy{MaxRestarts: 10000, Window: time.Minute, BackoffMin: 100 * time.Millisecond, BackoffMax: backoffMax}
}

// envMarker is set in every stdio server's environment, with the
// server's name, so that the faults find its process in /proc.
const envMarker = "MCPACTOR_SOAK_SERVER"

// envBenchServer makes this binary the fast server when re-executed
// (measure.RunStdioServerIfChild).
const envBenchServer = "MCPACTOR_BENCH_SERVER"

// server is one member of the fleet.
type server struct {
	idx     int
	name    string
	kind    string
	cfg     mcpactor.ServerConfig
	backend *httpBackend // HTTP kinds: the server process the soak runs
	proxy   *faultProxy  // HTTP kinds: what the client reaches it through
	tools   map[string]string
	uri     string // a resource to read; "" if it lists none
	reload  int    // Reload faults made of it, for a changed config
}

// peerPaths are the peers' programs, checked before anything starts.
type peerPaths struct {
	node, everything, gosdk, self string
}

// findPeers locates the peers `make peers` installs; a missing one is an
// error naming the fix (the soak never drops a kind silently).
func findPeers() (peerPaths, error) {
	var p peerPaths
	var err error
	if p.self, err = os.Executable(); err != nil {
		return p, err
	}
	p.everything = peers.ServerEverythingScript()
	p.gosdk = peers.GoSDKServerPath()
	for _, f := range []string{p.everything, p.gosdk} {
		if _, err := os.Stat(f); err != nil {
			return p, fmt.Errorf("peer missing (%v): run `make peers`", err)
		}
	}
	if p.node, err = lookNode(); err != nil {
		return p, err
	}
	return p, nil
}

func lookNode() (string, error) {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		f := filepath.Join(d, "node")
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	return "", fmt.Errorf("no `node` on PATH (server-everything runs on the machine's Node): install Node and run `make peers`")
}

// buildFleet makes the fleet's servers, names and configurations; the
// HTTP ones get their process and proxy later (startBackends).
func buildFleet(n int, p peerPaths) []*server {
	comp := composition(n)
	var fleet []*server
	for _, k := range kindOrder {
		for i := 1; i <= comp[k]; i++ {
			s := &server{idx: len(fleet), name: k + "-" + strconv.Itoa(i), kind: k}
			s.cfg = stdioConfig(s, p)
			fleet = append(fleet, s)
		}
	}
	return fleet
}

// stdioConfig is a server's configuration; for the HTTP kinds the URL
// is set once their proxy listens.
func stdioConfig(s *server, p peerPaths) mcpactor.ServerConfig {
	cfg := mcpactor.ServerConfig{
		ConnectTimeout: connectTimeout,
		RequestTimeout: requestTimeout,
		Keepalive:      keepalive,
		Restart:        restartPolicy(s.kind),
		Env:            map[string]string{envMarker: s.name},
	}
	switch s.kind {
	case kTest, kFragile:
		path, args, _ := testserver.Command(testserver.Options{})
		cfg.Command, cfg.Args = path, args
		cfg.Env[testserver.EnvChild] = "1"
		cfg.MaxFrameSize = maxFrame
		cfg.WriteStallTimeout = writeStall
	case kFast:
		cfg.Command = p.self
		cfg.Env[envBenchServer] = kFast
		// A small in-flight window: the slow calls fill it, and the
		// calls beyond it meet the queue timeout.
		cfg.MaxInFlight, cfg.QueueTimeout = fastInFlight, time.Second
	case kGoSDK:
		cfg.Command = p.gosdk
	case kEverything:
		cfg.Command, cfg.Args = p.node, []string{p.everything, "stdio"}
	default:
		cfg.Env = nil
	}
	return cfg
}

// configs is the fleet's configurations by name, for Manage and Reload.
func configs(fleet []*server) map[string]mcpactor.ServerConfig {
	m := make(map[string]mcpactor.ServerConfig, len(fleet))
	for _, s := range fleet {
		m[s.name] = s.cfg
	}
	return m
}

// fleetTable describes the fleet for the report: kinds and counts.
func fleetTable(fleet []*server) []kindCount {
	counts := map[string]int{}
	for _, s := range fleet {
		counts[s.kind]++
	}
	var out []kindCount
	keys := slices.Collect(maps.Keys(counts))
	sort.Slice(keys, func(i, j int) bool { return slices.Index(kindOrder, keys[i]) < slices.Index(kindOrder, keys[j]) })
	for _, k := range keys {
		out = append(out, kindCount{k, counts[k]})
	}
	return out
}

type kindCount struct {
	Kind  string
	Count int
}

// kindDesc says what a kind is, for the page.
var kindDesc = map[string]string{
	kTest:           "internal/testserver over stdio (the soak binary re-executed); frame cap 4 MiB, write stall 5 s",
	kFragile:        "the same, with a restart policy of 2 restarts in 30 s: the only servers whose breaker may open (crash loops)",
	kFast:           "bench/internal/fastserver over stdio (the soak binary re-executed); at most 32 requests in flight, queue timeout 1 s",
	kGoSDK:          "the go-sdk v1.8.0 conformance everything-server over stdio (bin/gosdk-everything-server); probed, it speaks 2026-07-28",
	kEverything:     "@modelcontextprotocol/server-everything over stdio (node)",
	kTestHTTP:       "internal/testserver over Streamable HTTP with sessions, answers on SSE streams, behind the soak's fault proxy",
	kGoSDKHTTP:      "the go-sdk everything-server over Streamable HTTP, stateless: the 2026-07-28 era, behind the fault proxy",
	kEverythingHTTP: "server-everything over Streamable HTTP (sessions), behind the fault proxy",
	kEverythingSSE:  "server-everything over the legacy HTTP+SSE transport, behind the fault proxy",
}
