package mcpactor_test

// Tests against @modelcontextprotocol/server-everything (pinned 2026.8.31)
// over HTTP, in both of its HTTP modes, each test running once per mode:
//
//   - streamableHttp: `PORT=<p> node <script> streamableHttp`, endpoint
//     /mcp (Streamable HTTP, sessions, an in-memory event store, so its
//     streams are resumable;
//     https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http);
//   - sse: `PORT=<p> node <script> sse`, endpoint /sse (the legacy HTTP+SSE
//     transport of 2024-11-05: one GET stream carries every message of the
//     server, POSTs go to the endpoint that stream names;
//     https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse).
//
// One server per mode serves every test (http_peer_fixture_test.go), behind
// a recording proxy. Each HTTP session gets a server of its own inside
// server-everything (createServer per session), so sessions do not see each
// other's state. This file has the lifecycle and the tools;
// everything_http_features_test.go the rest. The tests run the checks of
// the stdio tests (checkEverything*, in everything_*_test.go) on an HTTP
// connection, and add what went on the wire.

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

// everythingHTTPSpec starts server-everything in mode (its argument) and
// reaches it at path with ServerConfig.Type typ.
func everythingHTTPSpec(mode, path, typ string) func(t *testing.T) httpSpec {
	return func(t *testing.T) httpSpec {
		node, script := peers.ServerEverything(t)
		return httpSpec{
			name: everythingServer,
			command: func(port int) (string, []string, []string) {
				return node, []string{script, mode}, []string{"PORT=" + strconv.Itoa(port)}
			},
			path: path,
			typ:  typ,
			rec:  everythingRecorder,
		}
	}
}

var (
	everythingStreamable = &sharedHTTP{spec: everythingHTTPSpec("streamableHttp", "/mcp", mcpactorTypeHTTP)}
	everythingSSE        = &sharedHTTP{spec: everythingHTTPSpec("sse", "/sse", mcpactorTypeSSE)}

	// everythingModes runs a test over both transports.
	everythingModes = []httpMode{{"streamableHttp", everythingStreamable}, {"sse", everythingSSE}}
	// everythingStreamableOnly is for what only Streamable HTTP has
	// (sessions ended by DELETE, resumable streams).
	everythingStreamableOnly = []httpMode{{"streamableHttp", everythingStreamable}}
)

const (
	mcpactorTypeHTTP = "http"
	mcpactorTypeSSE  = "sse"
)

// isLegacy reports whether h speaks the legacy HTTP+SSE transport.
func (h *httpConn) isLegacy() bool { return h.cfg.Type == mcpactorTypeSSE }

// TestEverythingHTTPHandshake checks what the handshake negotiated and how
// it went on the wire
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
//
// Streamable HTTP: the runtime probes with server/discover first;
// server-everything (TypeScript SDK 1.32.2) answers 400 "Bad Request:
// Server not initialized" (-32000), which is not an error of the stateless
// era, so the runtime falls back to initialize at once and negotiates
// 2025-11-25 (the session era). The answer to initialize gives the session
// id, which every later request carries with MCP-Protocol-Version
// 2025-11-25; a GET listener is opened.
//
// Legacy HTTP+SSE: no probe (the transport predates the stateless era);
// the GET /sse stream names the POST endpoint, initialize is POSTed there
// and answered on the stream; 2025-11-25 is negotiated as well (the version
// is the protocol's, not the transport's), and no MCP-Protocol-Version
// header is sent (2024-11-05 has none).
func TestEverythingHTTPHandshake(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		checkEverythingHandshake(t, h.c, []string{messages.Version20251125})

		// notifications/initialized is sent without waiting for its
		// answer: Connect may return before it reaches the proxy.
		h.waitWire(t, "notifications/initialized", func(ex exchange) bool {
			return ex.isPost(messages.NotificationInitialized) && ex.Done
		})
		exs := h.wire()
		if h.isLegacy() {
			checkLegacyHandshake(t, exs)
		} else {
			checkStreamableHandshake(t, exs, messages.Version20251125)
		}
	})
}

// checkStreamableHandshake checks the start of a Streamable HTTP session
// that fell back from the probe to initialize, and the headers of every
// later request.
func checkStreamableHandshake(t *testing.T, exs []exchange, version string) {
	t.Helper()
	if len(exs) < 3 {
		t.Fatalf("too few exchanges:\n%s", dumpExchanges(exs))
	}
	probe, init := exs[0], exs[1]
	if !probe.isPost(messages.MethodServerDiscover) || probe.Status/100 == 2 && bytes.Contains(probe.Resp, []byte("supportedVersions")) && bytes.Contains(probe.Resp, []byte(messages.Version20260728)) {
		t.Errorf("first exchange %s: want the server/discover probe, answered without the stateless era", probe)
	}
	if !init.isPost(messages.MethodInitialize) || init.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("second exchange %s (session %q): want initialize, without a session id", init, init.Header.Get("Mcp-Session-Id"))
	}
	sid := sessionGiven(exs)
	if sid == "" {
		t.Fatalf("the answer to initialize gave no Mcp-Session-Id:\n%s", dumpExchanges(exs))
	}
	var listener bool
	for _, ex := range exs[2:] {
		if got := ex.Header.Get("Mcp-Session-Id"); got != sid {
			t.Errorf("%s carries session %q, want %q", ex, got, sid)
		}
		if got := ex.Header.Get("Mcp-Protocol-Version"); got != version {
			t.Errorf("%s carries MCP-Protocol-Version %q, want %s", ex, got, version)
		}
		if ex.Method == http.MethodPost && (!strings.Contains(ex.Header.Get("Accept"), "application/json") || !strings.Contains(ex.Header.Get("Accept"), "text/event-stream")) {
			t.Errorf("%s: Accept %q, want application/json and text/event-stream", ex, ex.Header.Get("Accept"))
		}
		if ex.Method == http.MethodGet && ex.Header.Get("Last-Event-ID") == "" {
			listener = true
			if ex.Status != http.StatusOK {
				t.Errorf("GET listener answered %d", ex.Status)
			}
		}
	}
	if !listener {
		t.Errorf("no GET listener was opened:\n%s", dumpExchanges(exs))
	}
	if n := len(postsOf(exs, messages.NotificationInitialized)); n != 1 {
		t.Errorf("notifications/initialized sent %d times", n)
	}
}

// checkLegacyHandshake checks the start of a legacy HTTP+SSE connection.
func checkLegacyHandshake(t *testing.T, exs []exchange) {
	t.Helper()
	if len(exs) < 3 {
		t.Fatalf("too few exchanges:\n%s", dumpExchanges(exs))
	}
	stream := exs[0]
	if stream.Method != http.MethodGet || stream.URL.Path != "/sse" {
		t.Fatalf("first exchange %s: want GET /sse", stream)
	}
	var endpoint string
	for _, ev := range sseEvents(stream.Resp) {
		if ev.event == "endpoint" {
			endpoint = ev.data
			break
		}
	}
	if endpoint == "" {
		t.Fatalf("the stream named no endpoint: %.300s", stream.Resp)
	}
	for _, ex := range exs[1:] {
		if ex.isPost(messages.MethodServerDiscover) {
			t.Errorf("%s: the legacy transport was probed", ex)
		}
		if ex.Method != http.MethodPost {
			t.Errorf("%s: the legacy transport has one GET stream and POSTs", ex)
			continue
		}
		if ex.URL.RequestURI() != endpoint {
			t.Errorf("%s went to %s, want the endpoint %s", ex, ex.URL.RequestURI(), endpoint)
		}
		if v := ex.Header.Get("Mcp-Protocol-Version"); v != "" {
			t.Errorf("%s carries MCP-Protocol-Version %q; the legacy transport has none", ex, v)
		}
		if ex.Status == http.StatusAccepted {
			continue
		}
		// A request whose answer came on the stream before the POST's
		// 202 has ended: the runtime abandons its POST then.
		if _, answered := findResponse(stream.streamed(), ex.Msg.ID); !ex.ClientGone || ex.Msg.Kind() != jsonrpc.KindRequest || !answered {
			t.Errorf("%s: want 202", ex)
		}
	}
	if !exs[1].isPost(messages.MethodInitialize) {
		t.Errorf("second exchange %s: want initialize", exs[1])
	}
	if res, ok := findResponse(stream.streamed(), exs[1].Msg.ID); !ok || !bytes.Contains(res.Result, []byte(`"protocolVersion":"2025-11-25"`)) {
		t.Errorf("the answer to initialize did not come on the stream: %.400s", stream.Resp)
	}
}

// findResponse finds the response to id among msgs.
func findResponse(msgs []jsonrpc.Message, id messages.ID) (jsonrpc.Message, bool) {
	for _, m := range msgs {
		if m.Kind() == jsonrpc.KindResponse && m.ID.String() == id.String() {
			return m, true
		}
	}
	return jsonrpc.Message{}, false
}

// TestEverythingHTTPPing pings the server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping).
func TestEverythingHTTPPing(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		if err := h.c.Ping(waitCtx(t)); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		if len(postsOf(h.wire(), messages.MethodPing)) == 0 {
			t.Errorf("no ping on the wire")
		}
	})
}

// TestEverythingHTTPListTools lists every tool, the capability tools our
// handlers unlock included, through ListTools and the Tools iterator.
func TestEverythingHTTPListTools(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingListTools(t, h.c) })
}

// TestEverythingHTTPWithoutHandlers checks that a runtime without handlers
// declares no client capabilities over HTTP either: the session's server
// leaves out the tools that need them.
func TestEverythingHTTPWithoutHandlers(t *testing.T) {
	onOwn(t, everythingModes, true, func(t *testing.T, h *httpConn) {
		checkEverythingWithoutCapabilities(t, h.c)
		init := postsOf(h.wire(), messages.MethodInitialize)
		if len(init) != 1 || !bytes.Contains(init[0].Body, []byte(`"capabilities":{}`)) {
			t.Errorf("initialize declared capabilities: %s", init[0].Body)
		}
	})
}

// TestEverythingHTTPToolsListChanged receives the list_changed the server
// sends as it registers the capability tools after initialize. Legacy
// HTTP+SSE only: over Streamable HTTP the server sends it on the GET
// stream while it handles notifications/initialized, and the TypeScript
// SDK drops a message for the GET stream when none is open (the spec lets
// it: the server MAY send there); the runtime opens its listener
// concurrently with the POST of notifications/initialized, so whether the
// notification arrives depends on which reaches the server first.
func TestEverythingHTTPToolsListChanged(t *testing.T) {
	onShared(t, []httpMode{{"sse", everythingSSE}}, func(t *testing.T, h *httpConn) {
		h.rec.notes.waitAfter(t, 0, messages.NotificationToolsListChanged, isMethod(messages.NotificationToolsListChanged))
	})
}

// TestEverythingHTTPToolResults calls the tools whose results carry each
// kind of content.
func TestEverythingHTTPToolResults(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingToolResults(t, h.c) })
}

// TestEverythingHTTPToolErrors checks that an unknown tool and invalid
// arguments are isError results, not errors.
func TestEverythingHTTPToolErrors(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) { checkEverythingToolErrors(t, h.c) })
}

// TestEverythingHTTPConcurrentCalls makes many calls at once on one
// connection: each caller gets the answer to its own request. Over
// Streamable HTTP each call is a POST of its own, answered on its own
// stream, which the wire shows; over legacy HTTP+SSE every answer comes on
// the one stream and is matched by id.
func TestEverythingHTTPConcurrentCalls(t *testing.T) {
	onShared(t, everythingModes, func(t *testing.T, h *httpConn) {
		before := len(h.wire())
		const n = 40
		checkEverythingConcurrentCalls(t, h.c, n)
		if h.isLegacy() {
			return
		}
		calls := postsOf(h.wire()[before:], messages.MethodToolsCall)
		if len(calls) != n {
			t.Fatalf("%d tools/call POSTs, want %d", len(calls), n)
		}
		for _, ex := range calls {
			if _, ok := findResponse(ex.streamed(), ex.Msg.ID); !ok {
				t.Errorf("%s: its stream did not carry the answer to id %s", ex, ex.Msg.ID)
			}
		}
	})
}

// TestEverythingHTTPClose closes a client: Close returns nil, Done is
// closed, calls fail with ErrTransportClosed, a second Close is fine, and
// nothing of the connection is left running on the wire. Over Streamable
// HTTP the session is ended with a DELETE carrying its id, which the server
// logs ("Received session termination request for session <id>"
// on its stdout); over legacy HTTP+SSE closing the stream ends the
// session, which the server logs ("Client Disconnected: <id>").
func TestEverythingHTTPClose(t *testing.T) {
	onOwn(t, everythingModes, false, func(t *testing.T, h *httpConn) {
		c := h.c
		callOK(t, c, "echo", map[string]any{"message": "before close"})
		closeClient(t, c)

		out := h.peer.proc.out
		if h.isLegacy() {
			stream := h.wire()[0]
			var sid string
			for _, ev := range sseEvents(stream.Resp) {
				if ev.event == "endpoint" {
					sid = strings.TrimPrefix(ev.data, "/message?sessionId=")
				}
			}
			out.waitLine(t, "Client Disconnected:  "+sid)
		} else {
			sid := sessionGiven(h.wire())
			del := h.waitWire(t, "DELETE of the session", func(ex exchange) bool { return ex.Method == http.MethodDelete && ex.Done })
			if got := del.Header.Get("Mcp-Session-Id"); got != sid || del.Status != http.StatusOK {
				t.Errorf("%s with session %q, want 200 for session %q", del, got, sid)
			}
			out.waitLine(t, "Received session termination request for session "+sid)
		}
		// Nothing of the connection is still running: the GET stream
		// ended with Close.
		h.waitAllDone(t)
	})
}
