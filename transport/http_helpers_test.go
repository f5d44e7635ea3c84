package transport

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// httpPeer is our test server's HTTP handler behind an httptest server.
// Its cleanup closes the handler (which ends what never ends on its own),
// then the server, whose Close waits for every handler.
type httpPeer struct {
	t   *testing.T
	h   *testserver.HTTPHandler
	ts  *httptest.Server
	url string // the Streamable HTTP endpoint
}

func startHTTPPeer(t *testing.T, opts testserver.Options) *httpPeer {
	t.Helper()
	h := testserver.NewHTTPHandler(opts, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	return &httpPeer{t: t, h: h, ts: ts, url: ts.URL + testserver.HTTPPath}
}

// startHandler serves h on an httptest server of its own and returns its
// URL; before is run first at cleanup (to end the streams the server's
// Close would wait for).
func startHandler(t *testing.T, h http.Handler, before ...func()) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	for _, f := range before {
		t.Cleanup(f)
	}
	return ts.URL
}

// startRedirector starts a server on another origin (another port) that
// redirects every request to target, keeping the method (307).
func startRedirector(t *testing.T, target string) string {
	t.Helper()
	return startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	})) + testserver.HTTPPath
}

// legacyURL is the event stream of the legacy transport.
func (p *httpPeer) legacyURL() string { return p.ts.URL + testserver.SSEPath }

// exchanges returns what the server received that matches keep.
func (p *httpPeer) exchanges(keep func(e testserver.HTTPExchange) bool) []testserver.HTTPExchange {
	var out []testserver.HTTPExchange
	for _, e := range p.h.Exchanges() {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// dialCounter counts the client's TCP connections that are open.
type dialCounter struct {
	open, total atomic.Int64
	writes      atomic.Int64 // Write calls on every connection
}

func (d *dialCounter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	d.open.Add(1)
	d.total.Add(1)
	return &countedConn{Conn: c, d: d}, nil
}

type countedConn struct {
	net.Conn
	d    *dialCounter
	once sync.Once
}

func (c *countedConn) Write(b []byte) (int, error) {
	c.d.writes.Add(1)
	return c.Conn.Write(b)
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.d.open.Add(-1) })
	return c.Conn.Close()
}

// httpOwner is an owner actor that records what the transport tells it
// and answers the server's requests with answer (when set).
type httpOwner struct {
	ch       chan any
	overflow atomic.Bool
	conn     atomic.Pointer[Conn]
	answer   func(InboundRequest) json.RawMessage
}

func (o *httpOwner) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case InboundRequest:
		if o.answer != nil {
			if c := o.conn.Load(); c != nil {
				c.RespondNow(m.ID, o.answer(m), nil)
			}
		}
		o.put(m)
	case InboundNotification, TransportClosed, SessionExpired:
		o.put(m)
	}
}

func (o *httpOwner) put(m any) {
	select {
	case o.ch <- m:
	default:
		o.overflow.Store(true)
	}
}

// count returns how many messages of type T the owner has received so far
// (draining them), after waiting settle for late ones.
func ownerCount[T any](o *httpOwner, settle time.Duration) int {
	time.Sleep(settle)
	n := 0
	for {
		select {
		case m := <-o.ch:
			if _, ok := m.(T); ok {
				n++
			}
		default:
			return n
		}
	}
}

// ownerNext returns the next message of type T, skipping others.
func ownerNext[T any](t *testing.T, o *httpOwner) T {
	t.Helper()
	timeout := time.After(harness.Bound)
	for {
		select {
		case m := <-o.ch:
			if v, ok := m.(T); ok {
				return v
			}
		case <-timeout:
			var zero T
			t.Fatalf("no %T received", zero)
			return zero
		}
	}
}

// httpClient is one HTTP transport under test, with its owner, its HTTP
// client and a count of its TCP connections.
type httpClient struct {
	t     *testing.T
	conn  *Conn
	owner *httpOwner
	tr    *http.Transport
	dials *dialCounter
}

// clientOpts tune dialHTTP.
type clientOpts struct {
	legacy bool
	tune   func(*HTTPConfig)
	answer func(InboundRequest) json.RawMessage
}

// dialHTTP starts a transport (Streamable HTTP, or legacy with o.legacy)
// to url. It is closed when the test ends, and its idle connections with
// it.
func dialHTTP(t *testing.T, url string, o clientOpts) *httpClient {
	t.Helper()
	sys := harness.ActorSystem(t)
	c := &httpClient{t: t, dials: &dialCounter{}, owner: &httpOwner{ch: make(chan any, 4096), answer: o.answer}}
	c.tr = &http.Transport{DialContext: c.dials.dial, MaxIdleConnsPerHost: 64}
	pid := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return c.owner }))
	cfg := HTTPConfig{Server: "ts-http", URL: url, Client: &http.Client{Transport: c.tr}, Limits: Limits{RequestTimeout: harness.Bound}}
	if o.tune != nil {
		o.tune(&cfg)
	}
	if o.legacy {
		c.conn = SpawnLegacySSE(sys.Root, sys.Root, pid, cfg)
	} else {
		c.conn = SpawnHTTP(sys.Root, sys.Root, pid, cfg)
	}
	c.owner.conn.Store(c.conn)
	t.Cleanup(func() {
		c.close()
		sys.Root.Stop(pid)
		c.tr.CloseIdleConnections()
	})
	return c
}

// close closes the transport, failing the test if that hangs.
func (c *httpClient) close() error {
	c.t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.conn.Close(context.Background()) }()
	select {
	case err := <-done:
		return err
	case <-time.After(harness.Bound):
		c.t.Fatal("Close hung")
		return nil
	}
}

// initialize runs the handshake as the client actor does: initialize
// (never cancelled), the negotiated version, notifications/initialized.
func (c *httpClient) initialize(version string) {
	c.t.Helper()
	params, _ := json.Marshal(messages.InitializeParams{ProtocolVersion: version,
		ClientInfo: messages.Implementation{Name: "transport-test", Version: "1"}})
	raw, err := c.conn.Call(harness.Context(c.t), messages.MethodInitialize, params, RequestOptions{NoCancel: true})
	if err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	var res messages.InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil || res.ProtocolVersion != version {
		c.t.Fatalf("initialize result %s: %v", raw, err)
	}
	c.conn.Establish(Established{ProtocolVersion: res.ProtocolVersion})
	if err := c.conn.Notify(harness.Context(c.t), messages.NotificationInitialized, nil); err != nil {
		c.t.Fatalf("notifications/initialized: %v", err)
	}
}

// call calls a tool and returns its first text.
func (c *httpClient) call(ctx context.Context, tool string, args any, opts RequestOptions) (string, error) {
	raw, err := c.conn.Call(ctx, "tools/call", toolParams(tool, args), opts)
	if err != nil {
		return "", err
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		return "", &json.UnsupportedValueError{Str: string(raw)}
	}
	return res.Content[0].Text, nil
}

// echo calls echo and returns its text or the error.
func (c *httpClient) echo(msg string) (string, error) {
	return c.call(harness.Context(c.t), "echo", map[string]any{"message": msg}, RequestOptions{})
}

// mustEcho fails the test unless echo answers msg.
func (c *httpClient) mustEcho(msg string) {
	c.t.Helper()
	if got, err := c.echo(msg); err != nil || got != msg {
		c.t.Fatalf("echo %q = %q, %v", msg, got, err)
	}
}

// noConnectionLeft checks that once the idle ones are closed the client
// holds no TCP connection: none is left open by an aborted request.
func (c *httpClient) noConnectionLeft() {
	c.t.Helper()
	harness.WaitFor(c.t, "the client's connections to close", func() bool {
		c.tr.CloseIdleConnections()
		return c.dials.open.Load() == 0
	})
}

// isCall keeps the POSTs of tools/call.
func isCall(e testserver.HTTPExchange) bool {
	return e.Method == http.MethodPost && e.RPCMethod == "tools/call"
}
