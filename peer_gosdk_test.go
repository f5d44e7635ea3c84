package mcpactor_test

// The Go SDK's conformance everything-server (github.com/modelcontextprotocol/go-sdk
// v1.8.0, conformance/everything-server), a second independent server, as
// a peer: how it is started, and the answers its tests expect. Its rows
// (peer_rows_test.go):
//
//   - gosdkStdio: over stdio with no flags; sent initialize, it speaks the
//     session era (2025-11-25). Most tests take turns on one shared server
//     (gosdk, a sharedPeer).
//   - gosdkStdioStateless: over stdio, probed with server/discover, it
//     speaks 2026-07-28; each test records what went on the wire
//     (wireRecorder), so that it asserts what was spoken.
//   - gosdkHTTP: `-http -stateless=false`: Streamable HTTP with sessions.
//     server/discover is answered with the session era's versions only.
//   - gosdkHTTPStateless: `-http` in its default HTTP mode (stateless): no
//     initialize and no session, every request carries the 2026-07-28
//     _meta and headers, server requests become multi round-trip results,
//     log levels travel in _meta, change notifications come on a
//     subscriptions/listen stream, and closing a request's stream is its
//     cancellation
//     (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http).
//
// What it offers (conformance/everything-server/main.go):
//   - tools: test_simple_text, test_image_content, test_audio_content,
//     test_embedded_resource, test_multiple_content_types,
//     test_tool_with_logging, test_tool_with_progress, test_error_handling,
//     test_sampling, test_elicitation, test_elicitation_sep1034_defaults,
//     test_elicitation_sep1330_enums, json_schema_2020_12_tool,
//     test_reconnection, test_x_mcp_header, test_missing_capability,
//     test_streaming_elicitation, test_logging_tool,
//     test_trigger_tool_change, test_trigger_prompt_change and the
//     test_input_required_result_* tools (2026-07-28 draft);
//   - resources test://static-text, test://static-binary,
//     test://watched-resource (updated every 3 s) and the template
//     test://template/{id}/data;
//   - prompts test_simple_prompt, test_prompt_with_arguments,
//     test_prompt_with_embedded_resource, test_prompt_with_image,
//     test_input_required_result_prompt;
//   - completion/complete answering no values; it sends log messages only
//     after logging/setLevel.
//
// test_elicitation_sep1330_enums is not called: v1.8.0 rejects its own
// schema before sending the request ("items must specify enum for untitled
// enums"), so it never reaches a client.

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

const gosdkServer = "gosdk"

var gosdkTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content",
	"test_embedded_resource", "test_multiple_content_types",
	"test_tool_with_logging", "test_tool_with_progress", "test_error_handling",
	"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums", "json_schema_2020_12_tool",
	"test_reconnection", "test_missing_capability",
}

var gosdkPrompts = []string{
	"test_simple_prompt", "test_prompt_with_arguments",
	"test_prompt_with_embedded_resource", "test_prompt_with_image",
}

const pngSignature = "\x89PNG\r\n\x1a\n"

// gosdk is the go-sdk server connection the tests share.
var gosdk = &sharedPeer{spec: gosdkSpec}

// gosdkSpec starts the go-sdk server over stdio for a runtime with
// gosdkRecorder's handlers.
func gosdkSpec(t *testing.T) peerSpec {
	bin := peers.GoSDKServer(t)
	// The server speaks both eras; these tests pin the session era (the
	// stateless era has rows of its own, gosdkStdioStateless).
	cfg := mcpactor.ServerConfig{Command: bin, ProtocolVersion: messages.Version20251125}
	return peerSpec{rec: gosdkRecorder(), cfg: cfg, marker: bin}
}

// gosdkRecorder answers sampling with a canned reply to the prompt,
// elicitation with a username (or, for the defaults test, a name only),
// and roots with one root.
func gosdkRecorder() *peerRecorder {
	rec := newPeerRecorder(gosdkServer)
	rec.sample = func(p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
		return &messages.CreateMessageResult{
			Role:       messages.RoleAssistant,
			Content:    messages.TextContent("canned reply to: " + p.Messages[0].Content.Text),
			Model:      cannedModel,
			StopReason: messages.StopReasonEndTurn,
		}, nil
	}
	rec.elicit = func(p *messages.ElicitParams) (*messages.ElicitResult, error) {
		switch p.Message {
		case "Test defaults for primitives":
			// Only the name: the runtime must fill in the other defaults.
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"name": "Grace Hopper"}}, nil
		}
		return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"username": "ada"}}, nil
	}
	rec.setRoots(messages.Root{URI: "file:///tmp/mcpactor/gosdk", Name: "gosdk-root"})
	return rec
}

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
	gosdkSessionHTTP   = &sharedHTTP{spec: gosdkHTTPSpec(false, gosdkRecorder)}
	gosdkStatelessHTTP = &sharedHTTP{spec: gosdkHTTPSpec(true, statelessRecorder)}
)

// wireRecorder starts a server for ServerConfig.Dial and keeps every line
// the client writes to it.
type wireRecorder struct {
	bin    string
	mu     sync.Mutex
	lines  []string
	exited chan struct{}
}

func newWireRecorder(t *testing.T, bin string) *wireRecorder {
	w := &wireRecorder{bin: bin, exited: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-w.exited:
		case <-time.After(waitLimit):
			t.Error("the recorded server never exited")
		}
	})
	return w
}

func (w *wireRecorder) dial(ctx context.Context) (io.ReadWriteCloser, error) {
	cmd := exec.Command(w.bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		cmd.Wait()
		close(w.exited)
	}()
	go func() {
		// The connection's end ends the server: stdin closed, then a
		// kill if it lingers.
		select {
		case <-ctx.Done():
			stdin.Close()
			select {
			case <-w.exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
			}
		case <-w.exited:
		}
	}()
	return &recordedPipe{w: w, in: stdin, out: stdout}, nil
}

type recordedPipe struct {
	w   *wireRecorder
	in  io.WriteCloser
	out io.Reader
}

func (p *recordedPipe) Read(b []byte) (int, error) { return p.out.Read(b) }

func (p *recordedPipe) Write(b []byte) (int, error) {
	p.w.mu.Lock()
	for _, l := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		p.w.lines = append(p.w.lines, string(l))
	}
	p.w.mu.Unlock()
	return p.in.Write(b)
}

func (p *recordedPipe) Close() error { return p.in.Close() }

// sent decodes the messages the client wrote.
func (w *wireRecorder) sent(t *testing.T) []jsonrpc.Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]jsonrpc.Message, 0, len(w.lines))
	for _, l := range w.lines {
		m, err := jsonrpc.DecodeMessage([]byte(l))
		if err != nil {
			t.Fatalf("the client wrote %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// statelessRecorder answers the server requests of the go-sdk server's
// multi round-trip tools, over stdio and over HTTP
// (gosdkHTTPStateless) alike.
func statelessRecorder() *peerRecorder {
	r := newPeerRecorder(gosdkServer)
	r.sample = func(*messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
		return &messages.CreateMessageResult{Role: messages.RoleAssistant, Model: cannedModel, Content: messages.TextContent("sampled")}, nil
	}
	r.elicit = func(*messages.ElicitParams) (*messages.ElicitResult, error) {
		return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"name": "Ada", "confirm": true}}, nil
	}
	r.setRoots(messages.Root{URI: "file:///tmp/mcpactor/stateless", Name: "stateless"})
	return r
}

// statelessGoSDK connects a client to the go-sdk server in the stateless
// era, with statelessRecorder's handlers.
func statelessGoSDK(t *testing.T) (*mcpactor.Client, *peerRecorder, *wireRecorder) {
	t.Helper()
	w := newWireRecorder(t, peers.GoSDKServer(t))
	rec := statelessRecorder()
	rt := startRuntime(t, rec.options())
	t.Cleanup(func() { rec.check(t) })
	c, err := rt.Connect(waitCtx(t), rec.server, mcpactor.ServerConfig{Dial: w.dial})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec, w
}
