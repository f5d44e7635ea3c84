package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// A caller's context that ends around the hand-over of its POST, before
// the caller takes it or while it runs: every request ends canceled, once,
// and gives back its in-flight slot and its write budget, and Close waits
// for no POST left behind.
func TestCallerPOSTCanceledAnyTime(t *testing.T) {
	peer := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, peer.url, clientOpts{})
	c.initialize(messages.Version20251125)
	params := json.RawMessage(`{"name":"sleep","arguments":{"ms":2000}}`)
	for i := range 40 {
		ctx, cancel := context.WithCancel(context.Background())
		opts := RequestOptions{}
		p, err := c.conn.Start(ctx, "tools/call", params, &opts)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			cancel() // the POST is in the reply channel, or being handed over
		} else {
			time.AfterFunc(time.Duration(i)*time.Millisecond, cancel) // it runs
		}
		out, woke := c.conn.Await(ctx, p, &opts)
		_, err = c.conn.Finish(ctx, p, &out, woke)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("call %d: got %v, want canceled", i, err)
		}
	}
	if n := c.conn.InFlight(); n != 0 {
		t.Errorf("%d requests in flight after all ended", n)
	}
	harness.WaitFor(t, "the write budget to be whole again", func() bool { return budgetWhole(c.conn) })
	c.mustEcho("after the canceled ones")
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
}

// budgetWhole reports whether nothing holds any of c's write budget.
func budgetWhole(c *Conn) bool {
	b := c.budget
	if !b.sem.TryAcquire(b.size) {
		return false
	}
	b.sem.Release(b.size)
	return true
}

// panickyTransport panics in RoundTrip for a request with the header
// X-Test-Panic.
type panickyTransport struct{ http.RoundTripper }

func (p *panickyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("X-Test-Panic") != "" {
		panic("the configuration's RoundTripper")
	}
	return p.RoundTripper.RoundTrip(r)
}

// A POST that panics on its caller's goroutine (a RoundTripper of the
// configuration's) panics in the caller, which may recover: the request
// has given back its in-flight slot and its write budget, the transport
// goes on, and Close does not wait for the POST that panicked.
func TestCallerPOSTPanicGivesBackItsSlot(t *testing.T) {
	peer := startHTTPPeer(t, testserver.Options{})
	rt := new(panickyTransport)
	c := dialHTTP(t, peer.url, clientOpts{tune: func(cfg *HTTPConfig) {
		rt.RoundTripper = cfg.Client.Transport
		cfg.Client = &http.Client{Transport: rt}
	}})
	c.initialize(messages.Version20251125)
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("the call returned; want the RoundTripper's panic")
			}
		}()
		_, _ = c.conn.Call(harness.Context(t), "tools/call", json.RawMessage(`{"name":"echo","arguments":{"message":"x"}}`),
			RequestOptions{Header: map[string]string{"X-Test-Panic": "1"}})
	}()
	if n := c.conn.InFlight(); n != 0 {
		t.Errorf("%d requests in flight after the panic, want 0", n)
	}
	if !budgetWhole(c.conn) {
		t.Error("the write budget is not whole after the POST panicked")
	}
	c.mustEcho("after the panic")
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
}

// A request held behind notifications/initialized whose answer comes
// first, on the server's own stream, ends with that answer and is never
// sent: neither its POST nor the hand-over to its caller outlives its
// end, and Close does not wait for it.
func TestHeldRequestAnsweredBeforeItIsSent(t *testing.T) {
	initialized := make(chan struct{}) // the notification's POST waits for it
	push := make(chan struct{})        // the GET stream answers id 2 on it
	var posted sync.Map                // the POSTs' JSON-RPC ids
	var acknowledged atomic.Bool       // the notification's POST was answered
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-push:
				fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\n")
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
			<-r.Context().Done()
		case http.MethodPost:
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.NewDecoder(r.Body).Decode(&m)
			posted.Store(string(m.ID), m.Method)
			switch m.Method {
			case messages.MethodInitialize:
				w.Header().Set("Mcp-Session-Id", "s1")
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"held","version":"1"}}}`,
					m.ID, messages.Version20251125)
			case messages.NotificationInitialized:
				select {
				case <-initialized:
				case <-r.Context().Done():
				}
				w.WriteHeader(http.StatusAccepted)
				acknowledged.Store(true)
			default:
				w.WriteHeader(http.StatusInternalServerError)
			}
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(srv.Close)
	c := dialHTTP(t, srv.URL, clientOpts{})
	c.initialize(messages.Version20251125)
	c.conn.Listen(harness.Context(t))
	done := make(chan error, 1)
	go func() {
		_, err := c.conn.Call(harness.Context(t), "tools/call", toolParams("echo", map[string]any{"message": "x"}), RequestOptions{})
		done <- err
	}()
	harness.WaitFor(t, "the call to be held", func() bool { return c.conn.InFlight() == 1 })
	close(push)
	if err := <-done; err != nil {
		t.Fatalf("the call answered on the server's stream: %v", err)
	}
	close(initialized)
	harness.WaitFor(t, "notifications/initialized to be answered", acknowledged.Load)
	// What was held behind it is released as the client reads that
	// answer; a request that had ended must not be sent then.
	time.Sleep(100 * time.Millisecond)
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if m, ok := posted.Load("2"); ok {
		t.Errorf("the request answered before it was sent was sent after: %v", m)
	}
	if !budgetWhole(c.conn) {
		t.Error("the write budget is not whole")
	}
}
