package transport

import (
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

// A server that refuses an expired session as the reference TypeScript
// server does, with 400 "Bad Request: No valid session ID provided": each
// request that meets it fails with a messages.SessionExpiredError carrying the 400
// (its text says so, not 404), and the owner is told once, as for a 404.
func TestHTTPSessionRefused400(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPExpireAfter: 1, HTTPSessionRefusal400: true})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	session := c.conn.SessionID()
	c.mustEcho("the one call the session answers")

	_, errs := concurrently(t, 4, func(i int) (string, error) { return c.echo(fmt.Sprint(i)) })
	for i, err := range errs {
		var se *callerr.Error
		if !(errors.As(err, &se) && callerr.SessionExpired(se) == se) || !errors.Is(err, errkind.ErrHTTP) || se.SessionID != session || se.Status != http.StatusBadRequest {
			t.Fatalf("call %d: %v, want a messages.SessionExpiredError with status 400", i, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "HTTP 400") || strings.Contains(msg, "404") || !strings.Contains(msg, `"ts-http"`) {
			t.Errorf("call %d: text %q, want the server's name and HTTP 400", i, msg)
		}
	}
	if n := ownerCount[SessionExpired](c.owner, 200*time.Millisecond); n != 1 {
		t.Errorf("the owner was told %d times, want once", n)
	}
}

// The GET listener meeting the TypeScript server's 400 for its session:
// the owner is told, so that an idle client reconnects.
func TestHTTPListenerSessionRefused400(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPSessionRefusal400: true})
	c := dialHTTP(t, p.url, clientOpts{tune: func(cfg *HTTPConfig) { cfg.RetryDelay = 10 * time.Millisecond }})
	c.initialize(messages.Version20251125)
	c.conn.Listen(harness.Context(t))
	p.h.EndSessions()
	ownerNext[SessionExpired](t, c.owner)
	if _, err := c.echo("x"); !errors.Is(err, errkind.ErrHTTP) {
		t.Errorf("a call after: %v", err)
	}
}

// A 400 that does not name the session is an ordinary error: the request
// fails with it, and nobody starts a new session.
func TestHTTPBadRequestIsNoExpiry(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{HTTPFailCalls: 1, HTTPFailStatus: http.StatusBadRequest})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	_, err := c.echo("refused")
	var he *callerr.Error
	if !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) || he.Status != http.StatusBadRequest || callerr.SessionExpired(err) != nil {
		t.Fatalf("got %v, want HTTP 400 and no expiry", err)
	}
	if n := ownerCount[SessionExpired](c.owner, 100*time.Millisecond); n != 0 {
		t.Errorf("SessionExpired on a plain 400")
	}
	c.mustEcho("the session lives")
}

// The rule itself, on the answers servers give.
func TestSessionRefusedRule(t *testing.T) {
	rpc := func(msg string) *messages.Error { return &messages.Error{Code: -32000, Message: msg} }
	for _, tc := range []struct {
		e    callerr.Error
		want bool
	}{
		{callerr.Error{Status: 404, Body: "Not Found"}, true},
		{callerr.Error{Status: 400, Body: "Bad Request: No valid session ID provided"}, true},
		{callerr.Error{Status: 400, Body: "{}", RPC: rpc("Bad Request: No valid session ID provided")}, true},
		{callerr.Error{Status: 400, Body: "Invalid or expired session"}, true},
		{callerr.Error{Status: 410, Body: "session terminated"}, true},
		{callerr.Error{Status: 400, Body: "SESSION NOT FOUND"}, true},
		{callerr.Error{Status: 400, Body: "Bad Request: Mcp-Session-Id header is required"}, false},
		{callerr.Error{Status: 400, Body: "Invalid params"}, false},
		{callerr.Error{Status: 401, Body: "invalid session token"}, false},
		{callerr.Error{Status: 403, Body: "session invalid for this user"}, false},
		{callerr.Error{Status: 429, Body: "too many sessions, unknown client"}, false},
		{callerr.Error{Status: 500, Body: "session not found"}, false},
		{callerr.Error{Status: 503, Body: "Service Unavailable"}, false},
	} {
		if got := sessionRefused(&tc.e); got != tc.want {
			t.Errorf("%d %q (rpc %v): %v, want %v", tc.e.Status, tc.e.Body, tc.e.RPC, got, tc.want)
		}
	}
}
