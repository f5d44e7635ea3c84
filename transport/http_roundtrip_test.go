package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// The Streamable HTTP transport against our test server, answering with
// JSON and with event streams: the session id assigned at initialize and
// sent after, concurrent calls each answered once, progress reaching its
// call, notifications and server requests reaching the owner (on the GET
// stream beside JSON answers, on the request's stream otherwise), the
// answer to a server request POSTed back, and DELETE on Close.
func TestHTTPRoundTrip(t *testing.T) {
	for _, mode := range []string{"json", "sse"} {
		t.Run(mode, func(t *testing.T) {
			p := startHTTPPeer(t, testserver.Options{HTTPStream: mode == "sse"})
			c := dialHTTP(t, p.url, clientOpts{answer: func(m InboundRequest) json.RawMessage {
				return json.RawMessage(`{"roots":[{"uri":"file:///work","name":"work"}]}`)
			}})
			c.initialize(messages.Version20251125)
			sessions := p.h.Sessions()
			if len(sessions) != 1 || c.conn.SessionID() != sessions[0] {
				t.Fatalf("session %q, server has %q", c.conn.SessionID(), sessions)
			}
			c.conn.Listen(harness.Context(t))

			texts, errs := concurrently(t, 50, func(i int) (string, error) { return c.echo(fmt.Sprint("call ", i)) })
			for i := range texts {
				if errs[i] != nil || texts[i] != fmt.Sprint("call ", i) {
					t.Fatalf("call %d: %q, %v", i, texts[i], errs[i])
				}
			}

			// Progress travels beside the answer (on the request's stream,
			// or the GET stream) and reaches its call, in order, before the
			// answer.
			var steps atomic.Int64
			raw, _ := json.Marshal(map[string]any{"name": "progress", "arguments": map[string]any{"steps": 3},
				"_meta": map[string]any{"progressToken": "p2"}})
			if _, err := c.conn.Call(harness.Context(t), "tools/call", raw, RequestOptions{ProgressToken: "s:p2",
				OnProgress: func(json.RawMessage) { steps.Add(1) }}); err != nil {
				t.Fatal(err)
			}
			if mode == "sse" {
				if n := steps.Load(); n != 3 {
					t.Errorf("%d progress notifications reached the call, want 3", n)
				}
			} else {
				// On the GET stream, progress races the JSON answer on
				// another connection: what comes after it is dropped and
				// counted, never delivered late.
				harness.WaitFor(t, "every progress notification accounted for", func() bool {
					return steps.Load()+c.conn.Stats()[DroppedProgress] == 3
				})
			}

			if _, err := c.call(harness.Context(t), "notify", map[string]any{"method": "notifications/tools/list_changed"}, RequestOptions{}); err != nil {
				t.Fatal(err)
			}
			if n := ownerNext[InboundNotification](t, c.owner); n.Method != "notifications/tools/list_changed" {
				t.Errorf("notification %s", n.Method)
			}

			text, err := c.call(harness.Context(t), "ask-client", map[string]any{"method": "roots/list"}, RequestOptions{})
			if err != nil || !strings.Contains(text, "file:///work") {
				t.Fatalf("ask-client: %q, %v", text, err)
			}
			if r := ownerNext[InboundRequest](t, c.owner); r.Method != "roots/list" {
				t.Errorf("server request %s", r.Method)
			}

			session := c.conn.SessionID()
			if err := c.close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			deletes := p.exchanges(func(e testserver.HTTPExchange) bool { return e.Method == http.MethodDelete })
			if len(deletes) != 1 || deletes[0].SessionID != session || deletes[0].Status != http.StatusOK {
				t.Errorf("DELETEs %+v", deletes)
			}
			for _, e := range p.h.Exchanges() {
				if e.Method == http.MethodPost && e.RPCMethod != messages.MethodInitialize && e.SessionID != session {
					t.Errorf("%s %s sent without the session id", e.Method, e.RPCMethod)
				}
			}
			if st := c.conn.Stats(); st != (Stats{DroppedProgress: st[DroppedProgress], InboundRequests: 1}) {
				t.Errorf("stats %+v", st)
			}
			c.noConnectionLeft()
		})
	}
}

// The version header follows the negotiated version on every request
// after initialize.
func TestHTTPProtocolVersionHeader(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20250618)
	c.mustEcho("x")
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	// The server refuses a version header it does not know with 400, so
	// every answered request carried a good one; the initialized
	// notification and the call were taken.
	for _, e := range p.h.Exchanges() {
		if e.Status != http.StatusOK && e.Status != http.StatusAccepted {
			t.Errorf("%s %s answered %d", e.Method, e.RPCMethod, e.Status)
		}
	}
}

// A redirect to another origin is refused (the request carries the
// server's headers); the server behind it sees nothing.
func TestHTTPCrossOriginRedirect(t *testing.T) {
	target := startHTTPPeer(t, testserver.Options{})
	redirector := startRedirector(t, target.url)
	c := dialHTTP(t, redirector, clientOpts{tune: func(cfg *HTTPConfig) {
		cfg.Headers = map[string]string{"X-Api-Key": "secret"}
	}})
	params, _ := json.Marshal(messages.InitializeParams{ProtocolVersion: messages.Version20251125})
	_, err := c.conn.Call(harness.Context(t), messages.MethodInitialize, params, RequestOptions{NoCancel: true})
	var re *callerr.Error
	if !(errors.As(err, &re) && errors.Is(re, errkind.ErrHTTP)) || !errors.Is(err, errCrossOriginRedirect) {
		t.Fatalf("got %v, want the redirect refused", err)
	}
	if n := len(target.h.Exchanges()); n != 0 {
		t.Errorf("the other origin received %d requests", n)
	}
	if c.conn.Err() != nil {
		t.Errorf("the transport ended: %v", c.conn.Err())
	}
}

// A redirect on the same origin is followed.
func TestHTTPSameOriginRedirect(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{})
	mux := http.NewServeMux()
	mux.Handle(testserver.HTTPPath, p.h)
	mux.Handle("/old", http.RedirectHandler(testserver.HTTPPath, http.StatusPermanentRedirect))
	srv := startHandler(t, mux, p.h.Close)
	c := dialHTTP(t, srv+"/old", clientOpts{})
	c.initialize(messages.Version20251125)
	c.mustEcho("followed")
}

// notifications/initialized reaches the server before any later request,
// even when its POST is slow: servers built on the Python SDK refuse a
// request that comes first. Each message is a POST of its own, so only the
// transport can keep this order.
func TestHTTPInitializedBeforeRequests(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{RequireInitialized: true, HTTPNotifyDelay: 150 * time.Millisecond})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	texts, errs := concurrently(t, 5, func(i int) (string, error) { return c.echo(fmt.Sprint(i)) })
	for i := range texts {
		if errs[i] != nil || texts[i] != fmt.Sprint(i) {
			t.Errorf("call %d: %q, %v", i, texts[i], errs[i])
		}
	}
}

// Answers with the ids as strings ("7" for 7) and JSON-RPC errors reach
// their calls, over both kinds of answer.
func TestHTTPStringIDsAndErrors(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprint("sse=", sse), func(t *testing.T) {
			p := startHTTPPeer(t, testserver.Options{HTTPStream: sse, StringIDs: true})
			c := dialHTTP(t, p.url, clientOpts{})
			c.initialize(messages.Version20251125)
			c.mustEcho("quoted")
			_, err := c.call(harness.Context(t), "rpc-error", map[string]any{"code": -32042, "message": "nope"}, RequestOptions{})
			var re *callerr.RPCError
			if !errors.As(err, &re) || re.Code != -32042 || re.Message != "nope" {
				t.Fatalf("got %v, want the RPC error", err)
			}
			if st := c.conn.Stats(); st != (Stats{}) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// Requests held behind a slow notifications/initialized end once each,
// and are never sent, when they time out or the transport closes first.
func TestHTTPHeldBehindInitialized(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{RequireInitialized: true, HTTPNotifyDelay: time.Hour})
	c := dialHTTP(t, p.url, clientOpts{})
	c.initialize(messages.Version20251125)
	_, err := c.call(harness.Context(t), "echo", map[string]any{"message": "x"}, RequestOptions{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, errkind.ErrTimeout) {
		t.Fatalf("got %v, want a timeout", err)
	}
	go func() {
		harness.WaitFor(t, "the calls to be held", func() bool { return c.conn.InFlight() == 10 })
		c.conn.BeginClose(nil)
	}()
	_, errs := concurrently(t, 10, func(i int) (string, error) { return c.echo(fmt.Sprint(i)) })
	for i, err := range errs {
		if !errors.Is(err, errkind.ErrTransportClosed) {
			t.Errorf("call %d: %v", i, err)
		}
	}
	<-c.conn.Done()
	for _, e := range p.h.Exchanges() {
		if e.Method == http.MethodPost && e.RPCMethod != messages.MethodInitialize && e.RPCMethod != messages.NotificationInitialized {
			t.Errorf("%s sent while held", e.RPCMethod)
		}
	}
}

// Our test server as a real child process (-http): the URL comes on its
// first stdout line. When it crashes with calls in flight, each fails
// once with a messages.RequestError, and so do later ones (connection refused),
// without ending the transport: an HTTP server may come back.
func TestHTTPChildProcess(t *testing.T) {
	path, args, env := testserver.Command(testserver.Options{HTTPAddr: "127.0.0.1:0", HTTPStream: true})
	cmd := exec.Command(path, args...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url, err := testserver.ReadURL(stdout)
	go func() {
		io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	if err != nil {
		t.Fatal(err)
	}
	c := dialHTTP(t, url, clientOpts{})
	c.initialize(messages.Version20251125)
	c.mustEcho("from a child")

	go func() {
		// A sleep whose POST has not reached the server yet meets a
		// refused connection instead: a messages.RequestError all the same.
		harness.WaitFor(t, "the sleeps to be sent", func() bool { return c.conn.InFlight() == 5 })
		_, _ = c.call(harness.Context(t), "crash", map[string]any{"code": 3}, RequestOptions{})
	}()
	_, errs := concurrently(t, 5, func(i int) (string, error) {
		return c.call(harness.Context(t), "sleep", map[string]any{"ms": 60000}, RequestOptions{})
	})
	for i, err := range errs {
		var re *callerr.Error
		if !(errors.As(err, &re) && errors.Is(re, errkind.ErrHTTP)) {
			t.Errorf("call %d: %v, want a messages.RequestError", i, err)
		}
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("the child exited with %v", err)
		}
		exited <- err // for the cleanup
	case <-time.After(harness.Bound):
		t.Fatal("the child did not exit")
	}
	if _, err := c.echo("gone"); !errors.Is(err, errkind.ErrHTTP) {
		t.Errorf("a call after the crash: %v", err)
	}
	if c.conn.Err() != nil {
		t.Errorf("the transport ended: %v", c.conn.Err())
	}
}
