package mcpactor_test

// The lifecycle against the independent peers, one row per peer and
// transport (peer_rows_test.go): the handshake, ping, close, a runtime
// without handlers, and what Runtime.Stop leaves.

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

// TestHandshake checks what the handshake negotiated and, where the row
// shows the wire, how it went
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
//
// server-everything over stdio negotiates a version of the session era.
// Over Streamable HTTP the runtime probes with server/discover first;
// server-everything (TypeScript SDK 1.32.2) answers 400 "Bad Request:
// Server not initialized" (-32000), which is not an error of the stateless
// era, so the runtime falls back to initialize at once and negotiates
// 2025-11-25 (the session era). The answer to initialize gives the session
// id, which every later request carries with MCP-Protocol-Version
// 2025-11-25; a GET listener is opened. Over legacy HTTP+SSE: no probe (the
// transport predates the stateless era); the GET /sse stream names the POST
// endpoint, initialize is POSTed there and answered on the stream;
// 2025-11-25 is negotiated as well (the version is the protocol's, not the
// transport's), and no MCP-Protocol-Version header is sent (2024-11-05 has
// none).
//
// The go-sdk server over HTTP with sessions: the runtime sends
// server/discover (with the 2026-07-28 _meta, MCP-Protocol-Version
// 2026-07-28 and Mcp-Method); the server answers it with a DiscoverResult
// whose supportedVersions are the session era's only (a stateful HTTP
// server cannot serve 2026-07-28), so the runtime speaks the session era:
// initialize with 2025-11-25, a session id, and the session's headers on
// every later request.
//
// Stateless (stdio and HTTP): the probe finds 2026-07-28, which is
// negotiated; no initialize on the wire, and every request carries the
// era's _meta (over HTTP also its headers: MCP-Protocol-Version equal to
// the _meta version, Mcp-Method, and Mcp-Name on tools/call), no session id
// and no GET listener.
func TestHandshake(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		switch {
		case p.peer == everythingServer && h == nil:
			checkEverythingHandshake(t, p.c, messages.SessionEraVersions())
		case p.peer == everythingServer:
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

		case p.sent != nil:
			c, w := p.c, p.sent
			checkStatelessHandshake(t, c)
			if _, err := c.ListTools(waitCtx(t)); err != nil {
				t.Fatal(err)
			}
			sent := w.sent(t)
			if len(sent) == 0 || sent[0].Method != messages.MethodServerDiscover {
				t.Fatalf("the first message was not server/discover: %+v", sent)
			}
			for _, m := range sent {
				if m.Method == messages.MethodInitialize || m.Method == messages.NotificationInitialized {
					t.Errorf("%s went on the wire in the stateless era", m.Method)
				}
				if m.Kind() == jsonrpc.KindRequest {
					checkEraMeta(t, m.Method, m.Params)
				}
			}

		case p.stateless:
			c := h.c
			checkStatelessHandshake(t, c)
			mark := h.wireMark()
			if _, err := c.ListTools(waitCtx(t)); err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			callOK(t, c, "test_simple_text", nil)
			if _, err := c.ReadResource(waitCtx(t), "test://static-text"); err != nil {
				t.Errorf("ReadResource: %v", err)
			}
			if _, err := c.GetPrompt(waitCtx(t), "test_simple_prompt", nil); err != nil {
				t.Errorf("GetPrompt: %v", err)
			}

			exs := h.wire()
			if len(exs) == 0 || !exs[0].isPost(messages.MethodServerDiscover) {
				t.Fatalf("the first exchange was not the server/discover probe:\n%s", dumpExchanges(exs))
			}
			var sawCall bool
			for _, ex := range exs {
				switch {
				case ex.isPost(messages.MethodInitialize), ex.isPost(messages.NotificationInitialized):
					t.Errorf("%s went on the wire in the stateless era", ex)
				case ex.Method == http.MethodGet:
					t.Errorf("%s: no GET listener in the stateless era", ex)
				case ex.Method == http.MethodDelete:
					t.Errorf("%s: no session to end in the stateless era", ex)
				case ex.IsMsg && ex.Msg.Kind() == jsonrpc.KindRequest:
					checkModernHeaders(t, ex)
					sawCall = sawCall || ex.StartSeq > mark && ex.isPost(messages.MethodToolsCall)
				}
			}
			if !sawCall {
				t.Errorf("no tools/call on the wire")
			}

		case h == nil:
			checkGoSDKSessionHandshake(t, p.c)
		default:
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

		}
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP, gosdkStdioStateless, gosdkHTTPStateless)
}

// checkEverythingHandshake checks what the handshake with server-everything
// gave: a version of versions, the server's identity, capabilities and
// instructions.
func checkEverythingHandshake(t *testing.T, c *mcpactor.Client, versions []string) {
	t.Helper()
	if v := c.ProtocolVersion(); !slices.Contains(versions, v) {
		t.Errorf("ProtocolVersion = %q, want one of %v", v, versions)
	} else {
		t.Logf("negotiated %s", v)
	}
	info := c.ServerInfo()
	if info.Name != "mcp-servers/everything" {
		t.Errorf("ServerInfo().Name = %q, want mcp-servers/everything", info.Name)
	}
	if info.Version == "" {
		t.Errorf("ServerInfo().Version is empty")
	}
	caps := c.Capabilities()
	if caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || caps.Logging == nil {
		t.Errorf("Capabilities() = %+v, want tools, prompts, resources and logging", caps)
	}
	if caps.Resources != nil && !caps.Resources.Subscribe {
		t.Errorf("resources.subscribe = false, want true")
	}
	if c.Instructions() == "" {
		t.Errorf("no instructions")
	}
	t.Logf("instructions: %d bytes", len(c.Instructions()))
	if c.Name() != everythingServer {
		t.Errorf("Name() = %q", c.Name())
	}
}

// checkGoSDKSessionHandshake checks what initialize with the go-sdk server
// gave: the session era, the server's identity and capabilities.
func checkGoSDKSessionHandshake(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	if v := c.ProtocolVersion(); v != messages.Version20251125 {
		t.Errorf("ProtocolVersion = %q, want %s", v, messages.Version20251125)
	}
	if info := c.ServerInfo(); info.Name != "mcp-conformance-test-server" || info.Version != "1.0.0" {
		t.Errorf("ServerInfo = %+v", info)
	}
	caps := c.Capabilities()
	if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil || caps.Logging == nil {
		t.Errorf("Capabilities() = %+v, want tools, resources, prompts, completions and logging", caps)
	}
	if caps.Resources != nil && !caps.Resources.Subscribe {
		t.Errorf("resources.subscribe = false, want true")
	}
	t.Logf("instructions: %q", c.Instructions())
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

// checkStatelessHandshake checks what the server/discover probe of the
// go-sdk server gave: the stateless era, the server's identity and
// capabilities.
func checkStatelessHandshake(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	if v := c.ProtocolVersion(); v != messages.Version20260728 {
		t.Fatalf("ProtocolVersion = %q, want %s", v, messages.Version20260728)
	}
	if info := c.ServerInfo(); info.Name != "mcp-conformance-test-server" {
		t.Errorf("ServerInfo = %+v (from server/discover)", info)
	}
	if caps := c.Capabilities(); caps.Tools == nil || !caps.Tools.ListChanged {
		t.Errorf("Capabilities = %+v", caps)
	}
}

// checkEraMeta checks that a request's params carry the _meta of the
// 2026-07-28 era, and returns the protocol version it names; ok is false
// (and t failed) if the params do not decode.
func checkEraMeta(t *testing.T, what string, params json.RawMessage) (version string, ok bool) {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Errorf("%s: params %s: %v", what, params, err)
		return "", false
	}
	_ = json.Unmarshal(p.Meta[messages.MetaKeyProtocolVersion], &version)
	if version != messages.Version20260728 || p.Meta[messages.MetaKeyClientCapabilities] == nil || p.Meta[messages.MetaKeyClientInfo] == nil {
		t.Errorf("%s went without the era's _meta: %s", what, params)
	}
	return version, true
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

// TestPing pings the server; over HTTP the ping is on the wire
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping).
// In the stateless era Ping has no method of its own: TestMethodsOfTheEra.
func TestPing(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if err := p.c.Ping(waitCtx(t)); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		if p.http != nil && len(postsOf(p.http.wire(), messages.MethodPing)) == 0 {
			t.Errorf("no ping on the wire")
		}
	}, everythingStdio, everythingStreamable, everythingSSE, gosdkStdio, gosdkHTTP)
}

// TestClose closes a client: Close returns nil, Done is closed, calls fail
// with ErrTransportClosed, and a second Close is fine; each row on a
// connection of its own.
//
// Over stdio the server is reaped as Close returns. server-everything
// declares roots here: it then does not exit when its stdin closes, so
// Close goes on to SIGTERM.
//
// Over HTTP nothing of the connection is left running on the wire. Over
// Streamable HTTP the session is ended with a DELETE carrying its id, which
// server-everything logs ("Received session termination request for
// session <id>" on its stdout); over legacy HTTP+SSE closing the stream
// ends the session, which it logs ("Client Disconnected: <id>"). In the
// stateless era the subscriptions/listen stream ends, and no DELETE is
// sent (there is no session to end).
func TestClose(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		switch {
		case p.stdio != nil:
			p.stdio.closeClient(t)
			t.Logf("notifications: %s", p.rec.notes.methods())
		case p.peer == everythingServer:
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

		case p.stateless:
			c := h.c
			callOK(t, c, "test_simple_text", nil)
			h.waitWire(t, "the subscriptions/listen stream", func(ex exchange) bool {
				return ex.isPost(messages.MethodSubscriptionsListen) && ex.Status == http.StatusOK
			})
			closeClient(t, c)
			h.waitAllDone(t)
			for _, ex := range h.wire() {
				if ex.Method == http.MethodDelete {
					t.Errorf("%s: no session to end in the stateless era", ex)
				}
			}

		default:
			c := h.c
			callOK(t, c, "test_simple_text", nil)
			closeClient(t, c)
			sid := sessionGiven(h.wire())
			del := h.waitWire(t, "DELETE of the session", func(ex exchange) bool { return ex.Method == http.MethodDelete && ex.Done })
			if got := del.Header.Get("Mcp-Session-Id"); got != sid || del.Status/100 != 2 {
				t.Errorf("%s with session %q, want a 2xx for session %q", del, got, sid)
			}
			h.waitAllDone(t)

		}
	}, everythingStdio.own(false), everythingStreamable.own(false), everythingSSE.own(false),
		gosdkStdio.own(false), gosdkHTTP.own(false), gosdkHTTPStateless.own(false))
}

// TestWithoutHandlers checks that a runtime without handlers declares no
// client capabilities: server-everything then leaves out the tools that
// need them. Over stdio the runtime is the test's own (Options{}), and
// Runtime.Stop ends the server; over HTTP the initialize on the wire
// declares none.
func TestWithoutHandlers(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		if p.c == nil {
			cfg, script := everythingConfig(t)
			// Other tests run servers of the same command meanwhile: the
			// environment marks this one's.
			mark := fixtureEnv + "=without-handlers"
			cfg.Env[fixtureEnv] = "without-handlers"
			rt, err := mcpactor.Start(mcpactor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx := waitCtx(t)
			c, err := rt.Connect(ctx, everythingServer, cfg)
			if err != nil {
				rt.Stop(ctx)
				t.Fatalf("Connect: %v", err)
			}
			pids, err := childrenWithEnv(script, mark)
			if err != nil || len(pids) != 1 {
				t.Fatalf("want one server process, found %v (%v)", pids, err)
			}
			checkEverythingWithoutCapabilities(t, c)

			if err := rt.Stop(ctx); err != nil {
				t.Errorf("Stop: %v", err)
			}
			select {
			case <-c.Done():
			default:
				t.Errorf("client not done after Runtime.Stop returned")
			}
			requireReaped(t, pids)
			if _, err := rt.Connect(ctx, "again", cfg); !errors.Is(err, mcpactor.ErrStopped) {
				t.Errorf("Connect after Stop: %v, want ErrStopped", err)
			}

			return
		}
		h := p.http
		checkEverythingWithoutCapabilities(t, h.c)
		init := postsOf(h.wire(), messages.MethodInitialize)
		if len(init) != 1 || !bytes.Contains(init[0].Body, []byte(`"capabilities":{}`)) {
			t.Errorf("initialize declared capabilities: %s", init[0].Body)
		}

	}, everythingStdioBare, everythingStreamable.own(true), everythingSSE.own(true))
}

// everythingStdioBare is server-everything over stdio for a test that
// starts a runtime of its own and connects it itself: its connection has
// no client.
var everythingStdioBare = peerRow{
	name:  "everything-stdio",
	peer:  everythingServer,
	ownFn: func(*testing.T, bool) *peerConn { return &peerConn{peer: everythingServer} },
}

// checkEverythingWithoutCapabilities checks what server-everything offers
// a client that declared no client capabilities: the base tools, not those
// that need a capability.
func checkEverythingWithoutCapabilities(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	// The server registers nothing more after initialize for this client,
	// but it does so asynchronously: a ping round trip after the handshake
	// orders tools/list after that registration either way.
	if err := c.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Errorf("ListTools: %v", err)
	}
	names := toolNames(tools)
	checkListed(t, "tools/list", names, everythingBaseTools)
	for _, name := range everythingCapabilityTools {
		if slices.Contains(names, name) {
			t.Errorf("tools/list offers %q to a client without that capability", name)
		}
	}
	if res, err := c.CallTool(ctx, "echo", map[string]any{"message": "plain"}); err != nil || resultText(res) != "Echo: plain" {
		t.Errorf("echo = %+v, %v", res, err)
	}
}

// TestStopLeavesNothing uses a client after closing it
// (a second Close, calls) and then checks that nothing started for it
// outlives Runtime.Stop: no process and no goroutine.
//
// Over HTTP (the go-sdk server) it checks that nothing a runtime started for
// an HTTP server outlives Runtime.Stop while the server lives on: no
// goroutine, so no connection either. The runtime makes its own
// http.Client (Options.HTTPClient unset), whose keep-alive connections are
// the runtime's to close. The go-sdk server never closes an idle
// connection itself, so one left open shows. It runs alone (not parallel):
// goleak sees every goroutine of the process.
func TestStopLeavesNothing(t *testing.T) {
	t.Run("everything-stdio", func(t *testing.T) {
		cfg, script := everythingConfig(t)
		ctx := waitCtx(t)
		rt, err := mcpactor.Start(mcpactor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := rt.Connect(ctx, everythingServer, cfg)
		if err != nil {
			rt.Stop(ctx)
			t.Fatalf("Connect: %v", err)
		}
		pids := childPIDs(t, script)
		callOK(t, c, "echo", map[string]any{"message": "once"})

		if err := c.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
		checkClosed(t, c)
		for range 10 {
			if err := c.Ping(ctx); !errors.Is(err, mcpactor.ErrTransportClosed) {
				t.Errorf("Ping after Close: %v, want ErrTransportClosed", err)
			}
		}
		if err := rt.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
		requireReaped(t, pids)
		goleak.VerifyNone(t)

	})
	t.Run("gosdk-http", func(t *testing.T) {
		bin := peers.GoSDKServer(t)
		proc, err := startHTTPProc(gosdkServer, gosdkHTTPCommand(bin, false))
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := proc.stop(); err != nil {
				t.Error(err)
			}
		}()
		before := goleak.IgnoreCurrent() // the server's waiter and output copiers
		ctx := waitCtx(t)
		rt, err := mcpactor.Start(mcpactor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := rt.Connect(ctx, gosdkServer, mcpactor.ServerConfig{URL: "http://" + proc.addr() + "/mcp"})
		if err != nil {
			rt.Stop(ctx)
			t.Fatalf("Connect: %v", err)
		}
		callOK(t, c, "test_simple_text", nil)
		if err := rt.Stop(ctx); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		goleak.VerifyNone(t, before)

	})
}
