package mcpactor_test

// @modelcontextprotocol/server-everything (the reference server, pinned
// to 2026.8.31 in testdata/npm) as a peer: how it is started, over stdio
// and over HTTP, and the answers its tests expect. Its rows
// (peer_rows_test.go) are everythingStdio, everythingStreamable and
// everythingSSE. Over stdio its cold start is the slow part, so most tests
// take turns on one shared server (everything, a sharedPeer in
// peer_fixture_test.go); over HTTP one server per mode serves every test
// (http_peer_fixture_test.go), behind a recording proxy, and each HTTP
// session gets a server of its own inside server-everything (createServer
// per session), so sessions do not see each other's state.
//
// Its HTTP modes:
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
	"strconv"
	"testing"
	"time"

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
	// TestClose, which waits the default 2 s for that);
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
	everythingStreamableHTTP = &sharedHTTP{spec: everythingHTTPSpec("streamableHttp", "/mcp", mcpactorTypeHTTP)}
	everythingSSEHTTP        = &sharedHTTP{spec: everythingHTTPSpec("sse", "/sse", mcpactorTypeSSE)}
)

const (
	mcpactorTypeHTTP = "http"
	mcpactorTypeSSE  = "sse"
)

// isLegacy reports whether h speaks the legacy HTTP+SSE transport.
func (h *httpConn) isLegacy() bool { return h.cfg.Type == mcpactorTypeSSE }
