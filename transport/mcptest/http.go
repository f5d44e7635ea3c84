package mcptest

import (
	"net/http"
	"net/http/httptest"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// HTTPServer is a Server behind an httptest server, on a loopback port.
type HTTPServer struct {
	// URL is the Streamable HTTP endpoint
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http).
	URL string
	// SSEURL is the legacy HTTP+SSE transport's event stream
	// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse).
	SSEURL string

	h  *testserver.HTTPHandler
	ts *httptest.Server
}

// StartHTTP serves s over HTTP until Close. Each MCP session is a
// connection of its own to s; a Crash ends the session it happens in,
// aborting its connections as a dying process would.
func (s *Server) StartHTTP() *HTTPServer { return s.StartHTTPWith(nil) }

// StartHTTPWith is StartHTTP with the server's handler behind middleware:
// what a test puts in front of an MCP server (authorization, a proxy's
// rewriting, extra routes such as /.well-known/ metadata). middleware
// gets the handler serving the MCP paths (HTTPServer.URL's and
// SSEURL's) and returns the one the httptest server runs; nil serves the
// handler itself. A request the middleware answers itself never reaches
// s, and is not recorded.
func (s *Server) StartHTTPWith(middleware func(next http.Handler) http.Handler) *HTTPServer {
	h := testserver.NewSpecHandler(s.options(), s.spec(), stderrOf(s))
	var served http.Handler = h
	if middleware != nil {
		served = middleware(h)
	}
	ts := httptest.NewServer(served)
	return &HTTPServer{URL: ts.URL + testserver.HTTPPath, SSEURL: ts.URL + testserver.SSEPath, h: h, ts: ts}
}

// Config returns a configuration reaching the server over Streamable
// HTTP.
func (h *HTTPServer) Config() mcpactor.ServerConfig {
	return mcpactor.ServerConfig{URL: h.URL}
}

// SSEConfig returns a configuration reaching the server over the legacy
// HTTP+SSE transport.
func (h *HTTPServer) SSEConfig() mcpactor.ServerConfig {
	return mcpactor.ServerConfig{URL: h.SSEURL, Type: "sse"}
}

// ExpireSessions ends every session now, as a server that restarted or
// forgot them: requests naming them are answered 404. The client's next
// request meets the 404, and the client sends it again on a new session
// (see Faults.HTTPExpireSessionAfter).
func (h *HTTPServer) ExpireSessions() { h.h.EndSessions() }

// Close ends every session, aborting their requests, and shuts the
// server down.
func (h *HTTPServer) Close() {
	h.h.Close()
	h.ts.CloseClientConnections()
	h.ts.Close()
}
