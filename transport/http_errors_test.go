package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// checkOneLine fails t unless msg is one line that holds each of want and
// none of hidden.
func checkOneLine(t *testing.T, msg string, want, hidden []string) {
	t.Helper()
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("%q: more than one line", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
	for _, h := range hidden {
		if strings.Contains(msg, h) {
			t.Errorf("%q shows %q", msg, h)
		}
	}
}

// A server that cannot be reached: the error matches errkind.ErrHTTP and
// names the server, the URL (its credentials masked) and the method; the
// connect-time probe server/discover is not named.
func TestHTTPUnreachable(t *testing.T) {
	addr := closedPort(t)
	raw := "http://alice:hunter22@" + addr + "/mcp?access_token=tok-0123456789&v=1"
	for _, method := range []string{"tools/call", messages.MethodServerDiscover} {
		c := dialHTTP(t, raw, clientOpts{tune: func(cfg *HTTPConfig) {
			cfg.Headers = map[string]string{"Authorization": "Bearer sk-header-secret"}
		}})
		_, err := c.conn.Call(harness.Context(t), method, []byte(`{}`), RequestOptions{})
		var re *callerr.Error
		if !(errors.As(err, &re) && errors.Is(re, errkind.ErrHTTP)) || !errors.Is(err, errkind.ErrHTTP) {
			t.Fatalf("%s: %v, want a messages.RequestError matching errkind.ErrHTTP", method, err)
		}
		want := []string{`MCP server "ts-http" unreachable at http://`, addr + "/mcp", "v=1", "connection refused"}
		hidden := []string{"hunter22", "tok-0123456789", "sk-header-secret", "alice"}
		if method == messages.MethodServerDiscover {
			hidden = append(hidden, "server/discover")
		} else {
			want = append(want, "tools/call")
		}
		checkOneLine(t, err.Error(), want, hidden)
	}
	// A scheme HTTP does not speak is as unreachable.
	c := dialHTTP(t, "ftp://"+addr+"/mcp", clientOpts{})
	if _, err := c.conn.Call(harness.Context(t), "tools/call", []byte(`{}`), RequestOptions{}); !errors.Is(err, errkind.ErrHTTP) {
		t.Errorf("ftp: %v", err)
	}
}

// An HTML error page becomes one line of its text in the error status's Body, with
// the URL; what the server quotes back of the configured headers is
// masked.
func TestHTTPStatusErrorOneLine(t *testing.T) {
	url := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("<!DOCTYPE html>\n<html>\n<head><title>Not here</title>\n<style>body { color: red }</style></head>\n<body>\n<h1>Nothing at\n   this path</h1>\n<p>You sent " +
			r.Header.Get("X-Api-Key") + " &amp; more</p>\n</body>\n</html>\n" + strings.Repeat("padding ", 100)))
	}))
	c := dialHTTP(t, url+"/mcp?apikey=q-secret-value", clientOpts{tune: func(cfg *HTTPConfig) {
		cfg.Headers = map[string]string{"X-Api-Key": "k-secret-value"}
	}})
	_, err := c.conn.Call(harness.Context(t), "tools/list", []byte(`{}`), RequestOptions{})
	var he *callerr.Error
	if !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) || he.Status != http.StatusNotFound {
		t.Fatalf("got %v, want HTTP 404", err)
	}
	checkOneLine(t, err.Error(),
		[]string{`MCP server "ts-http"`, "HTTP 404", url + "/mcp", "tools/list", "Not here Nothing at this path You sent REDACTED & more"},
		[]string{"<", "k-secret-value", "q-secret-value", "color"})
	if len(he.Body) > excerptBytes+3 {
		t.Errorf("body excerpt of %d bytes", len(he.Body))
	}
}

// The legacy HTTP+SSE transport whose GET fails says why: the status, the
// URL and a line of the body; or, for a server that cannot be reached,
// that it cannot be, with the URL.
func TestLegacySSEGetFailureSaysWhy(t *testing.T) {
	url := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no SSE endpoint here\n(try /mcp)", http.StatusNotFound)
	}))
	c := dialHTTP(t, url+"/sse", clientOpts{legacy: true})
	<-c.conn.Done()
	if err := c.conn.Err(); !errors.Is(err, errkind.ErrTransportClosed) || callerr.HTTPStatus(err) == nil {
		t.Fatalf("Err = %v, want the transport closed by an HTTP status", err)
	}
	checkOneLine(t, c.conn.Err().Error(), []string{"HTTP 404", url + "/sse", "no SSE endpoint here (try /mcp)", `"ts-http"`}, nil)

	refused := dialHTTP(t, "http://"+closedPort(t)+"/sse", clientOpts{legacy: true})
	ctx, cancel := context.WithTimeout(context.Background(), harness.Bound)
	defer cancel()
	select {
	case <-refused.conn.Done():
	case <-ctx.Done():
		t.Fatal("the legacy transport did not end")
	}
	if err := refused.conn.Err(); !errors.Is(err, errkind.ErrHTTP) || !strings.Contains(err.Error(), "/sse") {
		t.Errorf("Err = %v, want unreachable, naming the URL", err)
	}
}
