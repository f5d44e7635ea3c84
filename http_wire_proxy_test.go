package mcpactor_test

// The recording reverse proxy the HTTP peer tests put between the runtime
// and the peer (http_peer_fixture_test.go), and the helpers that read what
// it recorded: tests assert what went on the wire, not only what came back.

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

// ---------------------------------------------------------------------------
// The recording proxy.

// connHeader marks each connection's requests, so that a proxy shared by
// several connections tells whose an exchange is.
const connHeader = "X-Mcpactor-Test-Conn"

// wireProxy is a reverse proxy that records every exchange: the request's
// method, URL, headers and body, the answer's status, headers and body (the
// first MiB), and whether the client went away before the answer ended. SSE
// streams pass through as they come (FlushInterval -1).
type wireProxy struct {
	srv      *httptest.Server
	upstream *http.Transport

	mu   sync.Mutex
	seq  int // orders the starts and ends of exchanges
	exs  []*exchange
	wake chan struct{}
	cuts map[string]func(*exchange) int // by connection: where to break an answer off
}

// exchange is one HTTP request through the proxy. Its fields are written
// under the proxy's lock; tests read copies (wireProxy.exchanges).
type exchange struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
	Msg    jsonrpc.Message // the JSON-RPC message the body holds, if any
	IsMsg  bool

	Status     int
	RespHeader http.Header
	Resp       []byte // the first respCap bytes of the answer's body

	StartSeq, EndSeq int  // positions in the proxy's order of events; EndSeq 0 while running
	Done             bool // the proxy finished the exchange
	ClientGone       bool // the client's request ended before the answer did
	Cut              bool // the proxy broke the answer off (wireProxy.cutOnce); Resp is what got through
}

const respCap = 1 << 20

func newWireProxy(upstream string) (*wireProxy, error) {
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	p := &wireProxy{wake: make(chan struct{}), cuts: map[string]func(*exchange) int{}}
	p.upstream = &http.Transport{
		DialContext:        (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		DisableCompression: true,
		// Node closes a keep-alive connection after 5 s idle; a POST
		// that the proxy sent on one just as Node closed it would fail
		// (a POST is not retried) and reach the client as a 502 of the
		// proxy's, not the server's. Idle upstream connections are let
		// go well before that.
		IdleConnTimeout: time.Second,
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
		},
		Transport:     p.upstream,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		ex := &exchange{Method: r.Method, URL: r.URL, Header: r.Header.Clone(), Body: body}
		if len(bytes.TrimSpace(body)) > 0 {
			if m, err := jsonrpc.DecodeMessage(body); err == nil {
				ex.Msg, ex.IsMsg = m, true
			}
		}
		p.mu.Lock()
		p.seq++
		ex.StartSeq = p.seq
		p.exs = append(p.exs, ex)
		p.notifyLocked()
		p.mu.Unlock()
		rw := &recordingWriter{ResponseWriter: w, p: p, ex: ex}
		defer func() {
			// Runs also when ReverseProxy aborts a copy with
			// http.ErrAbortHandler (the client left mid-stream).
			p.mu.Lock()
			p.seq++
			ex.EndSeq, ex.Done = p.seq, true
			ex.ClientGone = r.Context().Err() != nil
			if ex.Status == 0 {
				ex.Status = rw.status
			}
			p.notifyLocked()
			p.mu.Unlock()
		}()
		rp.ServeHTTP(rw, r)
	}))
	return p, nil
}

func (p *wireProxy) notifyLocked() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// cutOnce makes the proxy break off, once, an answer to connection conn,
// as a network failure would: after each piece of an answer arrives from
// the server, keep is called with the exchange (its Resp including that
// piece) and returns how many bytes of the answer reach the client before
// the connection is closed, or -1 to go on. The server sees its stream end.
func (p *wireProxy) cutOnce(conn string, keep func(*exchange) int) {
	p.mu.Lock()
	p.cuts[conn] = keep
	p.mu.Unlock()
}

// cutAt reports how many bytes of ex's answer to let through before
// breaking it off, or -1.
func (p *wireProxy) cutAt(ex *exchange) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	conn := ex.Header.Get(connHeader)
	keep := p.cuts[conn]
	if keep == nil {
		return -1
	}
	n := keep(ex)
	if n < 0 {
		return -1
	}
	delete(p.cuts, conn)
	ex.Cut = true
	ex.Resp = ex.Resp[:min(n, len(ex.Resp))]
	return n
}

// url is the proxy's address with path.
func (p *wireProxy) url(path string) string { return p.srv.URL + path }

// close shuts the proxy down. It waits for the exchanges still running,
// which the clients should have ended by now: after waitLimit it cuts them
// off and reports it.
func (p *wireProxy) close() error {
	done := make(chan struct{})
	go func() {
		p.srv.Close()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-time.After(waitLimit):
		err = fmt.Errorf("the proxy still had exchanges running %v after the clients stopped: %s", waitLimit, p.running())
		p.srv.CloseClientConnections()
		<-done
	}
	p.upstream.CloseIdleConnections()
	return err
}

func (p *wireProxy) running() string {
	var s []string
	for _, ex := range p.exchanges("") {
		if !ex.Done {
			s = append(s, ex.String())
		}
	}
	return strings.Join(s, "; ")
}

// exchanges returns copies of the exchanges of the connection marked conn
// ("" for all), in the order they started.
func (p *wireProxy) exchanges(conn string) []exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []exchange
	for _, ex := range p.exs {
		if conn != "" && ex.Header.Get(connHeader) != conn {
			continue
		}
		c := *ex
		c.Resp = bytes.Clone(ex.Resp)
		out = append(out, c)
	}
	return out
}

// waitFor waits until an exchange of conn satisfies match, and returns it.
func (p *wireProxy) waitFor(t *testing.T, conn, what string, match func(exchange) bool) exchange {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		p.mu.Lock()
		wake := p.wake
		p.mu.Unlock()
		for _, ex := range p.exchanges(conn) {
			if match(ex) {
				return ex
			}
		}
		select {
		case <-wake:
		case <-deadline:
			t.Fatalf("no %s on the wire within %v; exchanges:\n%s", what, waitLimit, dumpExchanges(p.exchanges(conn)))
			return exchange{}
		}
	}
}

// recordingWriter keeps the status, headers and the first MiB of the body
// of an answer on its way to the client. It flushes as ReverseProxy asks,
// so that SSE streams are not held back.
type recordingWriter struct {
	http.ResponseWriter
	p      *wireProxy
	ex     *exchange
	status int
}

func (w *recordingWriter) WriteHeader(code int) {
	w.p.mu.Lock()
	if w.status == 0 {
		w.status = code
		w.ex.Status = code
		w.ex.RespHeader = w.ResponseWriter.Header().Clone()
	}
	w.p.notifyLocked()
	w.p.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.p.mu.Lock()
	before := len(w.ex.Resp)
	if room := respCap - before; room > 0 {
		w.ex.Resp = append(w.ex.Resp, b[:min(room, len(b))]...)
	}
	w.p.notifyLocked()
	w.p.mu.Unlock()
	if keep := w.p.cutAt(w.ex); keep >= 0 {
		w.ResponseWriter.Write(b[:max(0, min(len(b), keep-before))])
		w.Flush()
		// net/http closes the connection and stays quiet about it;
		// ReverseProxy closes the server's answer on the way out.
		panic(http.ErrAbortHandler)
	}
	n, err := w.ResponseWriter.Write(b)
	w.Flush()
	return n, err
}

func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// rpcMethod is the JSON-RPC method of an exchange's body ("" if none).
func (ex exchange) rpcMethod() string {
	if !ex.IsMsg {
		return ""
	}
	return ex.Msg.Method
}

// isPost reports whether ex is a POST of method.
func (ex exchange) isPost(method string) bool {
	return ex.Method == http.MethodPost && ex.rpcMethod() == method
}

func (ex exchange) String() string {
	s := fmt.Sprintf("#%d %s %s", ex.StartSeq, ex.Method, ex.URL.RequestURI())
	if m := ex.rpcMethod(); m != "" {
		s += " " + m
	} else if ex.IsMsg {
		s += " (" + ex.Msg.Kind().String() + " " + ex.Msg.ID.String() + ")"
	}
	s += fmt.Sprintf(" -> %d", ex.Status)
	if ex.Status != 0 && ex.RespHeader != nil {
		s += " " + ex.RespHeader.Get("Content-Type")
	}
	if ex.ClientGone {
		s += " (client gone)"
	}
	if ex.Cut {
		s += " (cut by the proxy)"
	}
	if !ex.Done {
		s += " (running)"
	}
	return s
}

func dumpExchanges(exs []exchange) string {
	var b strings.Builder
	for _, ex := range exs {
		b.WriteString("  " + ex.String() + "\n")
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// Reading the wire.

// sseEvent is one event of a recorded event stream.
type sseEvent struct {
	id, event, data string
	hasID           bool
}

// sseEvents parses a recorded event stream (the peers end lines with LF);
// an event cut off at the end is left out.
func sseEvents(b []byte) []sseEvent {
	var out []sseEvent
	var cur sseEvent
	var data []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			if cur.hasID || cur.event != "" || data != nil {
				cur.data = strings.Join(data, "\n")
				out = append(out, cur)
			}
			cur, data = sseEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			cur.id, cur.hasID = value, true
		case "event":
			cur.event = value
		case "data":
			data = append(data, value)
		}
	}
	return out
}

// streamed returns the JSON-RPC messages an answer carried: its events'
// data, or its JSON body.
func (ex exchange) streamed() []jsonrpc.Message {
	var out []jsonrpc.Message
	if ex.RespHeader != nil && strings.HasPrefix(ex.RespHeader.Get("Content-Type"), "application/json") {
		if m, err := jsonrpc.DecodeMessage(ex.Resp); err == nil {
			out = append(out, m)
		}
		return out
	}
	for _, ev := range sseEvents(ex.Resp) {
		if ev.data == "" {
			continue
		}
		if m, err := jsonrpc.DecodeMessage([]byte(ev.data)); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// carries returns the first message with method that ex's answer carried.
func (ex exchange) carries(method string) (jsonrpc.Message, bool) {
	for _, m := range ex.streamed() {
		if m.Method == method {
			return m, true
		}
	}
	return jsonrpc.Message{}, false
}

// lastEventID is the id of the last complete event an answer carried.
func (ex exchange) lastEventID() string {
	id := ""
	for _, ev := range sseEvents(ex.Resp) {
		if ev.hasID {
			id = ev.id
		}
	}
	return id
}

// afterFirstEvent is a cutOnce rule: break off the answer to the first
// POST of method right after its first event (the priming event of a
// resumable stream: an id and no data).
func afterFirstEvent(method string) func(*exchange) int {
	return afterEventWith(method, "")
}

// afterEventWith is a cutOnce rule: break off the answer to the first POST
// of method right after the first event that contains substr.
func afterEventWith(method, substr string) func(*exchange) int {
	return func(ex *exchange) int {
		if !ex.isPost(method) {
			return -1
		}
		i := bytes.Index(ex.Resp, []byte(substr))
		if i < 0 {
			return -1
		}
		if j := bytes.Index(ex.Resp[i:], []byte("\n\n")); j >= 0 {
			return i + j + 2
		}
		return -1
	}
}

// postsOf returns the POSTs of method among exs.
func postsOf(exs []exchange, method string) []exchange {
	var out []exchange
	for _, ex := range exs {
		if ex.isPost(method) {
			out = append(out, ex)
		}
	}
	return out
}

// responseTo returns the POST that carried our answer to the server's
// request id.
func responseTo(exs []exchange, id messages.ID) (exchange, bool) {
	for _, ex := range exs {
		if ex.Method == http.MethodPost && ex.IsMsg && ex.Msg.Kind() == jsonrpc.KindResponse && ex.Msg.ID.String() == id.String() {
			return ex, true
		}
	}
	return exchange{}, false
}

// sessionGiven is the Mcp-Session-Id the answer to initialize gave ("" if
// none).
func sessionGiven(exs []exchange) string {
	for _, ex := range postsOf(exs, messages.MethodInitialize) {
		if ex.RespHeader != nil {
			return ex.RespHeader.Get("Mcp-Session-Id")
		}
	}
	return ""
}
