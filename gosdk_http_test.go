package mcpactor_test

// Tests against the Go SDK's conformance everything-server (go-sdk v1.8.0)
// over Streamable HTTP, with ServerConfig.ProtocolVersion unset (the
// runtime probes with server/discover first):
//
//   - here, `-http 127.0.0.1:<p> -stateless=false`: sessions, so the probe
//     ends in the session era (2025-11-25);
//   - gosdk_http_stateless_test.go: the server's default over HTTP,
//     stateless, which speaks the 2026-07-28 era.
//
// gosdk_http_faults_test.go has the session era when the connection
// breaks.
//
// Both servers serve every path; one process per mode serves every test,
// behind the recording proxy (http_peer_fixture_test.go). Unlike
// server-everything, all sessions share one mcp.Server: a tool that
// changes the tool list (test_trigger_tool_change) changes it for every
// session, so tests assert that the tools they need are there, never the
// exact list. The tests run the checks of the stdio tests (checkGoSDK*, in
// gosdk_test.go) with gosdkRecorder's answers, and add what went on the
// wire.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

// gosdkHTTPSpec starts the go-sdk server over HTTP, stateless or not; rec
// makes the recorder of each connection.
func gosdkHTTPSpec(stateless bool, rec func() *peerRecorder) func(t *testing.T) httpSpec {
	return func(t *testing.T) httpSpec {
		return httpSpec{
			name:    gosdkServer,
			command: gosdkHTTPCommand(peers.GoSDKServer(t), stateless),
			path:    "/mcp",
			typ:     mcpactorTypeHTTP,
			rec:     rec,
		}
	}
}

// gosdkHTTPCommand runs the go-sdk server bin over HTTP on a loopback
// port, stateless or not.
func gosdkHTTPCommand(bin string, stateless bool) procCommand {
	return func(port int) (string, []string, []string) {
		return bin, []string{"-http", "127.0.0.1:" + strconv.Itoa(port), "-stateless=" + strconv.FormatBool(stateless)}, nil
	}
}

var (
	gosdkSessionHTTP = &sharedHTTP{spec: gosdkHTTPSpec(false, gosdkRecorder)}
	gosdkSession     = []httpMode{{"session", gosdkSessionHTTP}}
)

// TestGoSDKHTTPNegotiation checks what the probe found and what was
// negotiated. The runtime sends server/discover (with the 2026-07-28
// _meta, MCP-Protocol-Version 2026-07-28 and Mcp-Method); the stateful
// go-sdk server answers it with a DiscoverResult whose supportedVersions
// are the session era's only (2025-11-25, 2025-06-18, 2025-03-26,
// 2024-11-05: a stateful HTTP server cannot serve 2026-07-28), so the
// runtime speaks the session era: initialize with 2025-11-25, which the
// server accepts, a session id, and the session's headers on every later
// request.
func TestGoSDKHTTPNegotiation(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		checkGoSDKSessionHandshake(t, h.c)
		h.waitWire(t, "notifications/initialized", func(ex exchange) bool {
			return ex.isPost(messages.NotificationInitialized) && ex.Done
		})
		exs := h.wire()
		probe := exs[0]
		checkModernHeaders(t, probe)
		var discovered struct {
			Result messages.DiscoverResult `json:"result"`
		}
		msgs := probe.streamed()
		if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &discovered.Result) != nil {
			t.Fatalf("the probe's answer %s: %.400s", probe, probe.Resp)
		}
		t.Logf("server/discover answered supportedVersions %v", discovered.Result.SupportedVersions)
		if slices.Contains(discovered.Result.SupportedVersions, messages.Version20260728) {
			t.Errorf("a stateful server offered 2026-07-28: %v", discovered.Result.SupportedVersions)
		}
		checkStreamableHandshake(t, exs, messages.Version20251125)
		if init := postsOf(exs, messages.MethodInitialize); len(init) != 1 || !bytes.Contains(init[0].Body, []byte(`"protocolVersion":"2025-11-25"`)) {
			t.Errorf("initialize: %s", dumpExchanges(init))
		}
	})
}

// checkModernHeaders checks a request of the 2026-07-28 era: the _meta of
// the era in its params, MCP-Protocol-Version equal to the _meta version,
// Mcp-Method equal to the method, and Mcp-Name equal to the tool, prompt
// or resource it names
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-headers).
func checkModernHeaders(t *testing.T, ex exchange) {
	t.Helper()
	if !ex.IsMsg || ex.Msg.Kind() != jsonrpc.KindRequest {
		t.Errorf("%s: not a request", ex)
		return
	}
	version, ok := checkEraMeta(t, ex.String(), ex.Msg.Params)
	if !ok {
		return
	}
	if got := ex.Header.Get("Mcp-Protocol-Version"); got != version {
		t.Errorf("%s: MCP-Protocol-Version header %q, _meta version %q; they must be equal", ex, got, version)
	}
	if got := ex.Header.Get("Mcp-Method"); got != ex.Msg.Method {
		t.Errorf("%s: Mcp-Method header %q", ex, got)
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(ex.Msg.Params, &p) // they decoded in checkEraMeta
	var name string
	switch ex.Msg.Method {
	case messages.MethodToolsCall, messages.MethodPromptsGet:
		name = p.Name
	case messages.MethodResourcesRead:
		name = p.URI
	}
	if got := ex.Header.Get("Mcp-Name"); got != name {
		t.Errorf("%s: Mcp-Name header %q, want %q", ex, got, name)
	}
	if sid := ex.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("%s carries a session id %q in the stateless era", ex, sid)
	}
}

// TestGoSDKHTTPTools lists the tools and calls those whose results carry
// each kind of content, a failing one, and the one that checks the client
// capabilities our handlers declare.
func TestGoSDKHTTPTools(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		c := h.c
		checkGoSDKListTools(t, c, append(slices.Clone(gosdkTools), "test_x_mcp_header"))
		checkGoSDKSimpleText(t, c)
		checkGoSDKContentKinds(t, c)
		checkGoSDKToolError(t, c)
		checkGoSDKCapabilitiesDeclared(t, c)
		// In the session era the x-mcp-header argument is only an
		// argument: no Mcp-Param-* header.
		if got := resultText(callOK(t, c, "test_x_mcp_header", map[string]any{"region": "eu-west"})); got != "region=eu-west" {
			t.Errorf("test_x_mcp_header = %q", got)
		}
	})
}

// TestGoSDKHTTPProgress receives the progress of a call (0, 50 and 100 of
// 100, with the token the server was given), and of three calls at once,
// each its own.
func TestGoSDKHTTPProgress(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		checkGoSDKProgress(t, h.c)
		checkGoSDKProgressOfConcurrentCalls(t, h.c)
	})
}

// TestGoSDKHTTPSampling answers the server's sampling request, which comes
// on the tools/call POST's stream.
func TestGoSDKHTTPSampling(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		checkGoSDKSampling(t, h.c, h.rec)
		serverRequestOn(t, h, mark, messages.MethodSamplingCreateMessage)
	})
}

// TestGoSDKHTTPElicitation answers a form elicitation, and part of a form
// whose defaults the runtime fills in.
func TestGoSDKHTTPElicitation(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		mark := h.wireMark()
		checkGoSDKElicitation(t, h.c, h.rec)
		serverRequestOn(t, h, mark, messages.MethodElicitationCreate)
		checkGoSDKElicitationDefaults(t, h.c)
	})
}

// TestGoSDKHTTPLogging sets the log level and receives a tool's three log
// messages in order. A connection of its own: the level is the session's.
func TestGoSDKHTTPLogging(t *testing.T) {
	onOwn(t, gosdkSession, false, func(t *testing.T, h *httpConn) {
		checkGoSDKLogging(t, h.c, h.rec, messages.LevelInfo)
		if set := postsOf(h.wire(), messages.MethodLoggingSetLevel); len(set) != 1 || !bytes.Contains(set[0].Body, []byte(`"level":"info"`)) {
			t.Errorf("logging/setLevel on the wire: %s", dumpExchanges(set))
		}
	})
}

// TestGoSDKHTTPResources lists resources and templates, and reads a text,
// a blob and a templated resource.
func TestGoSDKHTTPResources(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) { checkGoSDKResources(t, h.c) })
}

// TestGoSDKHTTPSubscribe subscribes to the resource the server updates every
// 3 s; the update comes on the GET listener (it belongs to no request). A
// connection of its own: subscriptions are the session's.
func TestGoSDKHTTPSubscribe(t *testing.T) {
	onOwn(t, gosdkSession, true, func(t *testing.T, h *httpConn) {
		checkGoSDKSubscribe(t, h.c, h.rec)
		var onListener bool
		for _, ex := range h.wire() {
			if _, ok := ex.carries(messages.NotificationResourcesUpdated); ok && ex.Method == http.MethodGet {
				onListener = true
			}
		}
		if !onListener {
			t.Errorf("resources/updated did not come on the GET listener:\n%s", dumpExchanges(h.wire()))
		}
	})
}

// TestGoSDKHTTPPrompts lists the prompts, gets each kind and an unknown one,
// and asks for completions (which this server acknowledges with none).
func TestGoSDKHTTPPrompts(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		checkGoSDKPrompts(t, h.c)
		checkGoSDKCompletion(t, h.c)
	})
}

// TestGoSDKHTTPPing pings the server.
func TestGoSDKHTTPPing(t *testing.T) {
	onShared(t, gosdkSession, func(t *testing.T, h *httpConn) {
		if err := h.c.Ping(waitCtx(t)); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	})
}

// TestGoSDKHTTPClose closes a client: Close returns nil, Done is closed,
// calls fail with ErrTransportClosed, a second Close is fine, the session
// is ended with a DELETE carrying its id, and nothing of the connection is
// left running.
func TestGoSDKHTTPClose(t *testing.T) {
	onOwn(t, gosdkSession, false, func(t *testing.T, h *httpConn) {
		c := h.c
		callOK(t, c, "test_simple_text", nil)
		closeClient(t, c)
		sid := sessionGiven(h.wire())
		del := h.waitWire(t, "DELETE of the session", func(ex exchange) bool { return ex.Method == http.MethodDelete && ex.Done })
		if got := del.Header.Get("Mcp-Session-Id"); got != sid || del.Status/100 != 2 {
			t.Errorf("%s with session %q, want a 2xx for session %q", del, got, sid)
		}
		h.waitAllDone(t)
	})
}
