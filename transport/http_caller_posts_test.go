package transport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
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
	harness.WaitFor(t, "the write budget to be whole again", func() bool {
		b := c.conn.budget
		if !b.sem.TryAcquire(b.size) {
			return false
		}
		b.sem.Release(b.size)
		return true
	})
	c.mustEcho("after the canceled ones")
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
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
// has given back its in-flight slot, the transport goes on, and Close
// does not wait for the POST that panicked.
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
	c.mustEcho("after the panic")
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
}
