package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// The legacy HTTP+SSE transport (2024-11-05): the stream's endpoint event
// names where to POST; every POST is answered 202 and every answer,
// notification and server request arrives on the stream.
func TestLegacySSE(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, p.legacyURL(), clientOpts{legacy: true, answer: func(InboundRequest) json.RawMessage {
		return json.RawMessage(`{"roots":[]}`)
	}})
	// Sent at once: it waits for the endpoint event.
	c.initialize(messages.Version20241105)

	texts, errs := concurrently(t, 30, func(i int) (string, error) { return c.echo(fmt.Sprint("legacy ", i)) })
	for i := range texts {
		if errs[i] != nil || texts[i] != fmt.Sprint("legacy ", i) {
			t.Fatalf("call %d: %q, %v", i, texts[i], errs[i])
		}
	}
	if _, err := c.call(harness.Context(t), "notify", map[string]any{"method": "notifications/resources/list_changed"}, RequestOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := ownerNext[InboundNotification](t, c.owner); n.Method != "notifications/resources/list_changed" {
		t.Errorf("notification %s", n.Method)
	}
	if text, err := c.call(harness.Context(t), "ask-client", map[string]any{"method": "roots/list"}, RequestOptions{}); err != nil || !strings.Contains(text, "roots") {
		t.Fatalf("ask-client: %q, %v", text, err)
	}

	streams := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Path == testserver.SSEPath })
	if len(streams) != 1 || streams[0].Method != http.MethodGet || streams[0].Status != http.StatusOK {
		t.Fatalf("streams %+v", streams)
	}
	session := streams[0].SessionID
	// A POST's exchange is noted as ended when the server's handler
	// returns, which may be after the server has used what it carried:
	// the answer to roots/list reaches ask-client, whose call can end
	// before its POST's 202 is recorded.
	isPost := func(e testserver.HTTPExchange) bool { return e.Path == testserver.MessagesPath }
	harness.WaitFor(t, "every POST to end", func() bool {
		for _, e := range p.exchanges(isPost) {
			if e.End.IsZero() {
				return false
			}
		}
		return true
	})
	posts := p.exchanges(isPost)
	if len(posts) < 33 {
		t.Errorf("%d POSTs", len(posts))
	}
	for _, e := range posts {
		if e.Method != http.MethodPost || e.SessionID != session || e.Status != http.StatusAccepted {
			t.Errorf("POST %+v, want 202 for session %s", e, session)
		}
	}
	if c.conn.SessionID() != "" {
		t.Errorf("a legacy transport reports session %q", c.conn.SessionID())
	}

	if err := c.close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	harness.WaitFor(t, "the stream, and the session with it, to end", func() bool {
		return len(p.h.Sessions()) == 0 && p.h.Active() == 0
	})
	c.noConnectionLeft()
}

// An endpoint on another origin is refused: nothing is POSTed there, and
// the requests waiting for the endpoint fail with the reason.
func TestLegacySSEEndpointOnAnotherOrigin(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPLegacyOtherOrigin: true})
	c := dialHTTP(t, p.legacyURL(), clientOpts{legacy: true})
	_, errs := concurrently(t, 3, func(i int) (string, error) { return c.echo("x") })
	for _, err := range errs {
		var tc *callerr.Error
		if !(errors.As(err, &tc) && callerr.TransportClosed(tc) == tc) || !errors.Is(err, errEndpointOrigin) || tc.Closed {
			t.Fatalf("got %v, want the endpoint refused", err)
		}
	}
	select {
	case <-c.conn.Done():
	case <-time.After(harness.Bound):
		t.Fatal("the transport did not end")
	}
	if !errors.Is(c.conn.Err(), errEndpointOrigin) {
		t.Errorf("transport error %v", c.conn.Err())
	}
	if tc := ownerNext[TransportClosed](t, c.owner); !errors.Is(tc.Err, errEndpointOrigin) {
		t.Errorf("owner told %v", tc.Err)
	}
	if posts := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodPost }); len(posts) != 0 {
		t.Errorf("POSTs sent: %+v", posts)
	}
}

// The stream ending (the server dropped the session) ends the connection:
// pending requests fail once with Transport closed, the owner is told once.
func TestLegacySSEStreamEnds(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{NeverAnswer: true})
	c := dialHTTP(t, p.legacyURL(), clientOpts{legacy: true})
	c.initialize(messages.Version20241105)
	go func() {
		harness.WaitFor(t, "the calls to reach the server", func() bool { return len(p.exchanges(isCall)) == 10 })
		p.h.EndSessions()
	}()
	_, errs := concurrently(t, 10, func(i int) (string, error) { return c.echo("x") })
	for i, err := range errs {
		var tc *callerr.Error
		if !(errors.As(err, &tc) && callerr.TransportClosed(tc) == tc) || tc.Closed {
			t.Errorf("call %d: %v, want Transport closed by the server", i, err)
		}
	}
	if n := ownerCount[TransportClosed](c.owner, 100*time.Millisecond); n != 1 {
		t.Errorf("owner told %d times", n)
	}
	c.noConnectionLeft()
}

// A legacy server's answer over the frame cap fails its request; the
// stream lives on.
func TestLegacySSEFrameOverCap(t *testing.T) {
	const limit = 64 << 10
	p := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, p.legacyURL(), clientOpts{legacy: true, tune: func(cfg *HTTPConfig) { cfg.MaxFrameSize = limit }})
	c.initialize(messages.Version20241105)
	_, err := c.call(harness.Context(t), "big", map[string]any{"bytes": limit}, RequestOptions{})
	if !errors.Is(err, errkind.ErrBadResponse) {
		t.Fatalf("got %v, want FrameTooLargeError", err)
	}
	c.mustEcho("after")
}
