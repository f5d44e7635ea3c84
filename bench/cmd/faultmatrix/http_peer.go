package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The HTTP matrix's server runs in the cell's process: the test server's
// HTTPHandler behind an httptest server. In process, the cell can read what
// the server received (HTTPHandler.Exchanges: methods, session ids,
// Last-Event-ID, statuses, start and end times) and which of its
// connections are open; each cell is still a process of its own.

// httpPeer is one in-process test server.
type httpPeer struct {
	h      *testserver.HTTPHandler
	srv    *httptest.Server
	url    string // the Streamable HTTP endpoint
	sseURL string // the legacy transport's event stream
	host   string // host:port, to see whether an error names the server
	stderr *syncBuffer

	mu    sync.Mutex
	conns map[net.Conn]http.ConnState
}

func startHTTPPeer(o testserver.Options) *httpPeer {
	p := &httpPeer{stderr: &syncBuffer{}, conns: make(map[net.Conn]http.ConnState)}
	p.h = testserver.NewHTTPHandler(o, p.stderr)
	p.srv = httptest.NewUnstartedServer(p.h)
	p.srv.Config.ConnState = p.track // httptest chains its own hook after it
	p.srv.Start()
	p.url = p.srv.URL + testserver.HTTPPath
	p.sseURL = p.srv.URL + testserver.SSEPath
	p.host = strings.TrimPrefix(p.srv.URL, "http://")
	return p
}

func (p *httpPeer) track(c net.Conn, st http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st == http.StateClosed || st == http.StateHijacked {
		delete(p.conns, c)
		return
	}
	p.conns[c] = st
}

// openConns counts the server's open connections: active (a request being
// read or answered), and idle: kept alive between requests, or opened and
// never used (net/http's transport may dial a connection for a request that
// another one serves, and pools it); either way the client's pool holds its
// end.
func (p *httpPeer) openConns() (active, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.conns {
		if st == http.StateActive {
			active++
		} else {
			idle++
		}
	}
	return active, idle
}

// close ends every session and request (HTTPHandler.Close), then the
// server and its connections.
func (p *httpPeer) close() {
	p.h.Close()
	p.srv.Close()
}

// exchanges returns the requests received that match keep.
func (p *httpPeer) exchanges(keep func(testserver.HTTPExchange) bool) []testserver.HTTPExchange {
	var out []testserver.HTTPExchange
	for _, e := range p.h.Exchanges() {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func (p *httpPeer) count(keep func(testserver.HTTPExchange) bool) int {
	return len(p.exchanges(keep))
}

func isRPC(method string) func(testserver.HTTPExchange) bool {
	return func(e testserver.HTTPExchange) bool { return e.Method == http.MethodPost && e.RPCMethod == method }
}

func isCallPost(e testserver.HTTPExchange) bool { return isRPC("tools/call")(e) }

// isListenGet is a GET opening the standalone stream (no Last-Event-ID).
func isListenGet(e testserver.HTTPExchange) bool {
	return e.Method == http.MethodGet && e.Path == testserver.HTTPPath && e.LastEventID == ""
}

// isResume is a GET resuming a stream with Last-Event-ID.
func isResume(e testserver.HTTPExchange) bool {
	return e.Method == http.MethodGet && e.LastEventID != ""
}

func isDelete(e testserver.HTTPExchange) bool { return e.Method == http.MethodDelete }

// statuses lists the statuses of exs in order ("-" for a request not
// answered with one).
func statuses(exs []testserver.HTTPExchange) string {
	var s []string
	for _, e := range exs {
		if e.Status == 0 {
			s = append(s, "-")
		} else {
			s = append(s, strconv.Itoa(e.Status))
		}
	}
	return strings.Join(s, ",")
}

// --- what a client leaves behind ---

// leakSettle is how long after Close the cell waits for a client's
// goroutines and connections to go; the test shortens it.
var leakSettle = 3 * time.Second

// goroutines returns this process's goroutines by id, each with its
// stack (runtime.Stack's format).
func goroutines() map[int]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[int]string)
	for _, block := range bytes.Split(buf, []byte("\n\n")) {
		f := strings.Fields(string(block))
		if len(f) < 2 || f[0] != "goroutine" {
			continue
		}
		if id, err := strconv.Atoi(f[1]); err == nil {
			out[id] = string(block)
		}
	}
	return out
}

// serverSide says whether a goroutine's stack belongs to the in-process
// test server (its handler, net/http's server side, httptest).
func serverSide(stack string) bool {
	for _, m := range []string{
		"mcpactor/internal/testserver.",
		"net/http.(*conn).serve",
		"net/http.(*Server).Serve",
		"net/http.(*connReader).backgroundRead",
		"net/http/httptest.",
	} {
		if strings.Contains(stack, m) {
			return true
		}
	}
	return false
}

// poolSide says whether a goroutine runs one of net/http's client
// connections (two per connection, idle in the pool or busy).
func poolSide(stack string) bool {
	return strings.Contains(stack, "net/http.(*persistConn).readLoop") ||
		strings.Contains(stack, "net/http.(*persistConn).writeLoop")
}

// entry names the function a goroutine was started with: the last
// function frame of its stack, module path cut to its last element.
func entry(stack string) string {
	lines := strings.Split(stack, "\n")
	name := ""
	for _, l := range lines[1:] {
		if l == "" || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "created by ") {
			continue
		}
		name = l
	}
	if i := strings.LastIndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		name = name[:i] // the arguments: "f(0xc000...)"
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// leftovers is what a client left running after Close returned.
type leftovers struct {
	client []string // goroutines of the client (entry functions), net/http's connections aside
	pool   int      // goroutines of net/http client connections
	active int      // server connections still busy
	idle   int      // server connections idle or never used (held by the client's pool)
	after  time.Duration
}

// clean: nothing but idle keep-alive connections, each with its two
// goroutines.
func (l leftovers) clean() bool {
	return len(l.client) == 0 && l.active == 0 && l.pool <= 2*l.idle
}

// none: the client left nothing at all.
func (l leftovers) none() bool {
	return len(l.client) == 0 && l.pool == 0 && l.active == 0 && l.idle == 0
}

// leftAfterClose waits up to leakSettle for the goroutines started since
// base (the test server's aside) and the server's connections to go, and
// returns what is left then.
func leftAfterClose(p *httpPeer, base map[int]string, closed time.Time) leftovers {
	deadline := closed.Add(leakSettle)
	for {
		var l leftovers
		for id, stack := range goroutines() {
			if _, ok := base[id]; ok || serverSide(stack) {
				continue
			}
			if poolSide(stack) {
				l.pool++
			} else {
				l.client = append(l.client, entry(stack))
			}
		}
		l.active, l.idle = p.openConns()
		l.after = time.Since(closed)
		if l.none() || time.Now().After(deadline) {
			slices.Sort(l.client)
			return l
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// describe renders leftovers for the details, and for the table a suffix
// that is empty when the client left nothing, and says "leak" when it
// left more than idle keep-alive connections.
func (l leftovers) describe() (short, detail string) {
	detail = fmt.Sprintf("%s after Close returned: %d client goroutines%s, %d of net/http client connections; server connections: %d busy, %d idle or never used",
		ms(l.after), len(l.client), groupNames(l.client), l.pool, l.active, l.idle)
	if l.clean() {
		if l.idle > 0 {
			short = fmt.Sprintf("; %d idle keep-alive conn(s) left in the pool", l.idle)
		}
		return short, detail
	}
	var parts []string
	if n := len(l.client); n > 0 {
		parts = append(parts, fmt.Sprintf("%d goroutine(s)%s", n, groupNames(l.client)))
	}
	if extra := l.pool - 2*l.idle; extra > 0 {
		parts = append(parts, fmt.Sprintf("%d net/http connection goroutine(s)", extra))
	}
	if l.active > 0 {
		parts = append(parts, fmt.Sprintf("%d busy connection(s)", l.active))
	}
	short = fmt.Sprintf("; leak %s after Close: %s", secs(l.after.Round(100*time.Millisecond)), strings.Join(parts, ", "))
	if l.idle > 0 {
		short += fmt.Sprintf(" (and %d idle keep-alive conn(s))", l.idle)
	}
	return short, detail
}

// groupNames renders sorted names as " (2× a, b)"; "" for none.
func groupNames(names []string) string {
	if len(names) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(names); {
		j := i
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%d× %s", j-i, names[i]))
		} else {
			parts = append(parts, names[i])
		}
		i = j
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
