package testserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// legacyOpen opens a legacy session's stream and returns its reader and
// the endpoint event's URL.
func legacyOpen(t *testing.T, s *httpServer) (*eventReader, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.ts.URL+SSEPath, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: HTTP %d %s", SSEPath, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := newEventReader(resp.Body)
	ev, err := r.nextWithin(t, wait)
	if err != nil || ev.typ != "endpoint" || ev.data == "" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	return r, ev.data
}

func legacyPost(t *testing.T, s *httpServer, endpoint string, body string) int {
	t.Helper()
	u, err := url.Parse(s.ts.URL + SSEPath)
	if err != nil {
		t.Fatal(err)
	}
	target, err := u.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.client.Post(target.String(), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// The 2024-11-05 transport: the endpoint event, POSTs answered 202, every
// answer, request and notification a "message" event on the one stream.
func TestHTTPLegacy(t *testing.T) {
	s := startHTTP(t, Options{})
	r, endpoint := legacyOpen(t, s)
	if !strings.HasPrefix(endpoint, MessagesPath+"?sessionId=") {
		t.Fatalf("endpoint %q", endpoint)
	}
	next := func() *message {
		t.Helper()
		ev, err := r.nextWithin(t, wait)
		if err != nil || ev.typ != "message" {
			t.Fatalf("event %+v, %v", ev, err)
		}
		return ev.message(t)
	}
	if st := legacyPost(t, s, endpoint, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`); st != http.StatusAccepted {
		t.Fatalf("POST: HTTP %d", st)
	}
	if m := next(); string(m.ID) != "1" || !strings.Contains(string(m.Result), "2024-11-05") {
		t.Fatalf("initialize answer %+v", m)
	}
	legacyPost(t, s, endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	legacyPost(t, s, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify","arguments":{"method":"notifications/hello"}}}`)
	if m := next(); m.Method != "notifications/hello" {
		t.Fatalf("notification %+v", m)
	}
	if m := next(); string(m.ID) != "2" {
		t.Fatalf("tool answer %+v", m)
	}
	if st := legacyPost(t, s, MessagesPath+"?sessionId=nope", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); st != http.StatusNotFound {
		t.Errorf("unknown session: HTTP %d", st)
	}
	if resp, err := s.client.Post(s.ts.URL+SSEPath, "application/json", strings.NewReader(`{}`)); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the stream's URL: %v %v", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
}

func TestHTTPLegacyOtherOrigin(t *testing.T) {
	s := startHTTP(t, Options{HTTPLegacyOtherOrigin: true})
	_, endpoint := legacyOpen(t, s)
	u, err := url.Parse(endpoint)
	if err != nil || !u.IsAbs() || u.Hostname() != "localhost" || u.Path != MessagesPath {
		t.Fatalf("endpoint %q, %v", endpoint, err)
	}
}

// The stream is the session: closing it ends the session.
func TestHTTPLegacyStreamEndsSession(t *testing.T) {
	s := startHTTP(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.ts.URL+SSEPath, nil)
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := newEventReader(resp.Body).nextWithin(t, wait); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the session", func() bool { return len(s.h.Sessions()) == 1 })
	cancel()
	harness.WaitFor(t, "the session to end", func() bool { return len(s.h.Sessions()) == 0 })
}

// As a child process: the first stdout line is the URL; SIGTERM, or the
// end of a piped stdin, ends it with status 0.
func TestHTTPChild(t *testing.T) {
	for _, how := range []string{"sigterm", "stdin"} {
		t.Run(how, func(t *testing.T) {
			if how == "sigterm" && runtime.GOOS == "windows" {
				t.Skip("no SIGTERM on Windows")
			}
			var stderr bytes.Buffer
			cmd, stdin, stdout := startCommand(t, Options{HTTPAddr: "127.0.0.1:0", HTTPStream: true}, &stderr)
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			u, err := ReadURL(stdout)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, HTTPPath) {
				t.Fatalf("URL %q", u)
			}
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			s := &httpServer{t: t, url: u, client: &http.Client{Transport: tr}}
			c := s.newClient()
			c.initialize()
			if got := c.callTool("echo", map[string]any{"message": "child"}); got != "child" {
				t.Fatalf("echo = %q", got)
			}
			tr.CloseIdleConnections()
			if how == "sigterm" {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			} else {
				stdin.Close()
			}
			done := make(chan error, 1)
			go func() {
				io.Copy(io.Discard, stdout)
				done <- cmd.Wait()
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("exit: %v; stderr %s", err, stderr.String())
				}
			case <-time.After(wait):
				t.Fatal("the child did not exit")
			}
		})
	}
}

func TestReadURL(t *testing.T) {
	r := strings.NewReader("http://127.0.0.1:1/mcp\nmore")
	u, err := ReadURL(r)
	if err != nil || u != "http://127.0.0.1:1/mcp" {
		t.Fatalf("%q %v", u, err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "more" {
		t.Errorf("ReadURL consumed %q", rest)
	}
	if _, err := ReadURL(strings.NewReader("banner\n")); err == nil {
		t.Error("a line that is no URL accepted")
	}
	if _, err := ReadURL(strings.NewReader("http://x")); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("no newline: %v", err)
	}
}
