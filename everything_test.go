package mcpactor_test

// Tests against @modelcontextprotocol/server-everything (the reference
// server, pinned to 2026.8.31 in testdata/npm) over stdio, one file per
// area: everything_tools_test.go, everything_progress_test.go,
// everything_client_test.go, everything_resources_test.go and
// everything_prompts_test.go; this file has how the server is started and
// the lifecycle tests. Its cold start is the slow part, so most tests take
// turns on one shared server (everything, a sharedPeer in
// peer_fixture_test.go); those that change the session's state (log level,
// subscriptions) or end it start their own (ownPeer). Each test's checks
// (checkEverything*) take a *mcpactor.Client, so that the HTTP tests
// (everything_http*_test.go) run them too.
//
// What the installed version really offers (dist/tools, dist/prompts,
// dist/resources):
//   - tools always: echo, get-annotated-message, get-env,
//     get-resource-links, get-resource-reference, get-structured-content,
//     get-sum, get-tiny-image, gzip-file-as-resource,
//     toggle-simulated-logging, toggle-subscriber-updates,
//     trigger-long-running-operation, and the task tool
//     simulate-research-query (taskSupport "required");
//   - tools registered after initialize, only for the declared
//     capabilities: get-roots-list (roots), trigger-sampling-request
//     (sampling), trigger-elicitation-request (elicitation),
//     trigger-url-elicitation (elicitation.url); the *-async variants need
//     the tasks capability, which we do not declare;
//   - prompts: simple-prompt, args-prompt, completable-prompt,
//     resource-prompt;
//   - resources: the files of dist/docs as
//     demo://resource/static/document/<file>, in one page (this version
//     does not paginate), templates demo://resource/dynamic/{text,blob}/{resourceId},
//     and session resources made by gzip-file-as-resource.

import (
	"errors"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

const everythingServer = "everything"

// The tools server-everything 2026.8.31 registers for every client.
var everythingBaseTools = []string{
	"echo", "get-annotated-message", "get-env", "get-resource-links",
	"get-resource-reference", "get-structured-content", "get-sum",
	"get-tiny-image", "gzip-file-as-resource", "toggle-simulated-logging",
	"toggle-subscriber-updates", "trigger-long-running-operation",
	"simulate-research-query",
}

// The tools it registers only for a client that declared roots, sampling
// and elicitation (form and URL).
var everythingCapabilityTools = []string{
	"get-roots-list", "trigger-sampling-request",
	"trigger-elicitation-request", "trigger-url-elicitation",
}

// The files of dist/docs, served as static resources.
var everythingDocs = []string{
	"architecture.md", "extension.md", "features.md", "how-it-works.md",
	"instructions.md", "startup.md", "structure.md",
}

const (
	everythingEnvKey   = "MCPACTOR_PEER_MARK"
	everythingEnvValue = "everything-env-7f3a"
	cannedSample       = "The answer is 4 (canned by mcpactor)."
	cannedModel        = "mcpactor-canned-model"
)

// everything is the server-everything connection the tests share; its
// runtime has everythingRecorder's handlers, so the client declares roots,
// sampling and elicitation.
var everything = &sharedPeer{spec: func(t *testing.T) peerSpec {
	spec := everythingSpec(t)
	// With roots declared the server outlives its stdin (see
	// TestServerEverythingClose, which waits the default 2 s for that);
	// the shared server's stop asserts only that it is reaped, so it
	// need not wait as long before SIGTERM.
	spec.cfg.CloseGrace = 200 * time.Millisecond
	return spec
}}

// everythingSpec starts server-everything for a runtime with
// everythingRecorder's handlers.
func everythingSpec(t *testing.T) peerSpec {
	cfg, script := everythingConfig(t)
	return peerSpec{rec: everythingRecorder(), cfg: cfg, marker: script}
}

// everythingPlainSpec is everythingSpec for a runtime that declares no
// client capabilities. Tests that need none use it: with the roots
// capability declared, server-everything does not exit when its stdin
// closes, and each Close waits for the SIGTERM that follows.
func everythingPlainSpec(t *testing.T) peerSpec {
	spec := everythingSpec(t)
	spec.plain = true
	return spec
}

func everythingConfig(t *testing.T) (mcpactor.ServerConfig, string) {
	node, script := peers.ServerEverything(t)
	return mcpactor.ServerConfig{
		Command: node,
		Args:    []string{script, "stdio"},
		Env:     map[string]string{everythingEnvKey: everythingEnvValue},
	}, script
}

// everythingRecorder answers sampling with a canned message, form
// elicitation by accepting part of the form, and URL elicitation by
// accepting.
func everythingRecorder() *peerRecorder {
	rec := newPeerRecorder(everythingServer)
	rec.setRoots(
		messages.Root{URI: "file:///tmp/mcpactor/project-a", Name: "project-a"},
		messages.Root{URI: "file:///tmp/mcpactor/project-b", Name: "project-b"},
	)
	rec.sample = func(*messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
		return &messages.CreateMessageResult{
			Role:       messages.RoleAssistant,
			Content:    messages.TextContent(cannedSample),
			Model:      cannedModel,
			StopReason: messages.StopReasonEndTurn,
		}, nil
	}
	rec.elicit = func(p *messages.ElicitParams) (*messages.ElicitResult, error) {
		if p.Mode == messages.ElicitModeURL {
			return &messages.ElicitResult{Action: messages.ElicitActionAccept}, nil
		}
		// Part of the form only: the runtime fills in the schema's
		// defaults for the rest; "integer" has a default (42) that our
		// explicit 7 must win over.
		return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{
			"name":    "Ada Lovelace",
			"check":   true,
			"email":   "ada@example.com",
			"integer": 7,
		}}, nil
	}
	return rec
}

// TestServerEverythingHandshake checks what initialize negotiated
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
func TestServerEverythingHandshake(t *testing.T) {
	checkEverythingHandshake(t, everything.use(t).c, messages.SessionEraVersions())
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

// TestServerEverythingPing pings the server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping).
func TestServerEverythingPing(t *testing.T) {
	c := everything.use(t).c
	if err := c.Ping(waitCtx(t)); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

// TestServerEverythingClose closes a client: Done is closed, the server is
// reaped, calls fail, and a second Close is fine. It has a server of its
// own, and declares roots: server-everything then does not exit when its
// stdin closes, so Close goes on to SIGTERM.
func TestServerEverythingClose(t *testing.T) {
	t.Parallel()
	f := ownPeer(t, everythingSpec(t))
	f.closeClient(t)
	t.Logf("notifications: %s", f.rec.notes.methods())
}

// TestServerEverythingWithoutHandlers checks that a runtime without
// handlers declares no client capabilities: the server then leaves out the
// tools that need them. Runtime.Stop ends the server.
func TestServerEverythingWithoutHandlers(t *testing.T) {
	cfg, script := everythingConfig(t)
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
	pids := childPIDs(t, script)
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

// TestServerEverythingStopLeavesNothing uses a client after closing it
// (a second Close, calls) and then checks that nothing started for it
// outlives Runtime.Stop: no process and no goroutine.
func TestServerEverythingStopLeavesNothing(t *testing.T) {
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
}
