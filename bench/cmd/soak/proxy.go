package main

import (
	"bytes"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// faultProxy stands between the runtime and an HTTP server process: it
// passes everything through, except the tools/call POSTs the HTTP faults
// pick, which it answers 503, resets mid-answer, cuts before the answer
// event of their SSE stream, or holds longer than the call's timeout. The
// proxy's address is the server's URL for the runtime, so a backend
// restarted on its port is the same server to the client.
type faultProxy struct {
	backend *httpBackend
	ln      net.Listener
	srv     *http.Server
	rp      *httputil.ReverseProxy
	tr      *http.Transport

	mu        sync.Mutex
	fail5xx   int // the next n tools/call POSTs answered 503
	reset     int // the next n tools/call answers aborted in the middle
	cut       int // the next n tools/call SSE streams cut before their answer
	slowUntil time.Time
	slowBy    time.Duration
	// What was done, for the fault log: faults armed but not applied
	// (no call came, no stream to cut) are not faults that happened.
	did map[string]int
}

func newProxy(b *httpBackend) (*faultProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &faultProxy{backend: b, ln: ln, did: map[string]int{}}
	p.tr = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     30 * time.Second,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(b.port)})
			r.Out.Host = r.In.Host
		},
		Transport:     p.tr,
		FlushInterval: -1,
		// The proxy shares the soak's process with the runtime it
		// measures: a 32 KiB buffer made for every request was a fifth
		// of the process's garbage, and the collections it caused
		// slowed every call in flight.
		BufferPool: proxyBuffers,
		// A backend that is down refuses connections: the client must
		// see no answer (as it would without the proxy), not a 502.
		ErrorHandler: func(http.ResponseWriter, *http.Request, error) { panic(http.ErrAbortHandler) },
		ErrorLog:     log.New(io.Discard, "", 0),
	}
	p.srv = &http.Server{Handler: p, ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// proxyBuffers lends the proxies their copy buffers.
var proxyBuffers = &bufferPool{}

// bufferPool is an httputil.BufferPool of 32 KiB buffers.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }

// url is the endpoint the runtime is configured with.
func (p *faultProxy) url(path string) string { return "http://" + p.ln.Addr().String() + path }

// close stops the proxy, aborting the connections still open.
func (p *faultProxy) close() {
	_ = p.srv.Close()
	p.tr.CloseIdleConnections()
}

// arm sets one HTTP fault on the next tools/call POSTs (n of them) or, for
// "http-slow", on every one until d has passed.
func (p *faultProxy) arm(kind string, n int, slowBy, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch kind {
	case fHTTP5xx:
		p.fail5xx = n
	case fHTTPReset:
		p.reset = n
	case fHTTPCut:
		p.cut = n
	case fHTTPSlow:
		p.slowBy, p.slowUntil = slowBy, time.Now().Add(d)
	}
}

// disarm drops what is left of the faults armed, and returns what was
// done since the last disarm.
func (p *faultProxy) disarm() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail5xx, p.reset, p.cut, p.slowUntil = 0, 0, 0, time.Time{}
	did := p.did
	p.did = map[string]int{}
	return did
}

// pick takes the fault for a tools/call POST, if one is armed.
func (p *faultProxy) pick() (string, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.fail5xx > 0:
		p.fail5xx--
		p.did[fHTTP5xx]++
		return fHTTP5xx, 0
	case p.reset > 0:
		p.reset--
		p.did[fHTTPReset]++
		return fHTTPReset, 0
	case p.cut > 0:
		p.cut--
		return fHTTPCut, 0
	case time.Now().Before(p.slowUntil):
		p.did[fHTTPSlow]++
		return fHTTPSlow, p.slowBy
	}
	return "", 0
}

func (p *faultProxy) count(kind string) {
	p.mu.Lock()
	p.did[kind]++
	p.mu.Unlock()
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		p.rp.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte(`"method":"tools/call"`)) {
		p.rp.ServeHTTP(w, r)
		return
	}
	fault, slow := p.pick()
	switch fault {
	case fHTTP5xx:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "soak: injected 503\n")
	case fHTTPReset:
		p.rp.ServeHTTP(&resetWriter{ResponseWriter: w}, r)
	case fHTTPCut:
		cw := &cutWriter{ResponseWriter: w, p: p}
		p.rp.ServeHTTP(cw, r)
		if !cw.sse {
			// Nothing to cut (a JSON answer): the fault goes to the
			// next call.
			p.mu.Lock()
			p.cut++
			p.mu.Unlock()
		}
	case fHTTPSlow:
		t := time.NewTimer(slow)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		p.rp.ServeHTTP(w, r)
	default:
		p.rp.ServeHTTP(w, r)
	}
}

// resetWriter sends the status and the first half of the first write of
// the body, then aborts the connection: an answer broken mid-way.
type resetWriter struct{ http.ResponseWriter }

func (w *resetWriter) Write(b []byte) (int, error) {
	if len(b) > 1 {
		_, _ = w.ResponseWriter.Write(b[:len(b)/2])
	}
	http.NewResponseController(w.ResponseWriter).Flush()
	panic(http.ErrAbortHandler)
}

func (w *resetWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// cutWriter passes an SSE stream's events through until the one that
// carries a JSON-RPC response, and aborts the connection before it: the
// stream ends before its answer, which a client must resume (GET with
// Last-Event-ID) or report.
type cutWriter struct {
	http.ResponseWriter
	p    *faultProxy
	sse  bool
	seen bool // WriteHeader was called
	buf  []byte
}

func (w *cutWriter) WriteHeader(code int) {
	w.seen = true
	w.sse = code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream")
	w.ResponseWriter.WriteHeader(code)
}

func (w *cutWriter) Write(b []byte) (int, error) {
	if !w.seen {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sse {
		return w.ResponseWriter.Write(b)
	}
	w.buf = append(w.buf, b...)
	for {
		i := bytes.Index(w.buf, []byte("\n\n"))
		if i < 0 {
			return len(b), nil
		}
		ev := w.buf[:i+2]
		if isResponseEvent(ev) {
			w.p.count(fHTTPCut)
			http.NewResponseController(w.ResponseWriter).Flush()
			panic(http.ErrAbortHandler)
		}
		if _, err := w.ResponseWriter.Write(ev); err != nil {
			return 0, err
		}
		http.NewResponseController(w.ResponseWriter).Flush()
		w.buf = w.buf[i+2:]
	}
}

func (w *cutWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// isResponseEvent: an SSE event whose data is a JSON-RPC response (a
// result or an error, with an id), not a request or notification.
func isResponseEvent(ev []byte) bool {
	for line := range bytes.SplitSeq(ev, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		if bytes.Contains(data, []byte(`"method"`)) {
			return false
		}
		if bytes.Contains(data, []byte(`"result"`)) || bytes.Contains(data, []byte(`"error"`)) {
			return true
		}
	}
	return false
}
