package mcpactor_test

// The stateless era (2026-07-28) against the Go SDK's conformance server,
// which speaks it over stdio when probed with server/discover. Each test
// records what went on the wire (wireRecorder), so that it asserts what was
// spoken, not only what came back: the version negotiated, no initialize,
// the _meta of every request.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
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
// (gosdk_http_stateless_test.go) alike.
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

// The probe finds the stateless era: version 2026-07-28, no initialize on
// the wire, and every request carrying the era's _meta.
func TestStatelessGoSDKNegotiation(t *testing.T) {
	c, _, w := statelessGoSDK(t)
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

// Sampling, elicitation and roots reach the same handlers through multi
// round-trip results; the caller sees one call.
func TestStatelessGoSDKMultiRoundTrip(t *testing.T) {
	c, _, w := statelessGoSDK(t)
	checkStatelessMultiRoundTrip(t, c)
	// Each round was a request of its own, with the responses.
	rounds := 0
	for _, m := range w.sent(t) {
		if m.Method == messages.MethodToolsCall && bytes.Contains(m.Params, []byte(`"inputResponses"`)) {
			rounds++
		}
	}
	if rounds < statelessMinRounds {
		t.Errorf("%d retries with inputResponses went on the wire, want at least %d", rounds, statelessMinRounds)
	}
}

// statelessMinRounds is how many retries carrying inputResponses
// checkStatelessMultiRoundTrip makes at least: one per tool, two for
// multi_round.
const statelessMinRounds = 7

// checkStatelessMultiRoundTrip calls each multi round-trip tool of the
// go-sdk server: statelessRecorder's handlers answer its rounds, and the
// caller sees one call and the answer.
func checkStatelessMultiRoundTrip(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	for _, tc := range []struct{ tool, want string }{
		{"test_input_required_result_elicitation", "Hello, Ada!"},
		{"test_input_required_result_sampling", "sampled"},
		{"test_input_required_result_list_roots", "file:///tmp/mcpactor/stateless"},
		{"test_input_required_result_multi_round", "Multi-round complete"},
		{"test_input_required_result_multiple_inputs", "1 root(s)"},
		{"test_input_required_result_request_state", "state-ok"},
	} {
		res, err := c.CallTool(ctx, tc.tool, map[string]any{})
		if err != nil || res.IsError || !strings.Contains(resultText(res), tc.want) {
			t.Errorf("%s: %v, %+v; want a text with %q", tc.tool, err, res, tc.want)
		}
	}
}

// Progress reaches its call; the log level travels with each request and
// the log messages reach the subscriber; listen brings list_changed.
func TestStatelessGoSDKNotifications(t *testing.T) {
	c, rec, w := statelessGoSDK(t)
	checkGoSDKProgress(t, c)
	checkGoSDKLogging(t, c, rec, messages.LevelDebug)
	checkGoSDKToolListChanged(t, c, rec)
	var listen, leveled bool
	for _, m := range w.sent(t) {
		listen = listen || m.Method == messages.MethodSubscriptionsListen
		leveled = leveled || (m.Method == messages.MethodToolsCall && bytes.Contains(m.Params, []byte(`"`+messages.MetaKeyLogLevel+`":"debug"`)))
		if m.Method == messages.MethodLoggingSetLevel {
			t.Error("logging/setLevel went on the wire in the stateless era")
		}
	}
	if !listen || !leveled {
		t.Errorf("subscriptions/listen sent: %v; logLevel in _meta: %v", listen, leveled)
	}
}

// checkGoSDKToolListChanged has the go-sdk server change its tool list
// (for every session) and receives notifications/tools/list_changed in
// rec.
func checkGoSDKToolListChanged(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	mark := rec.notes.mark()
	callOK(t, c, "test_trigger_tool_change", nil)
	rec.notes.waitAfter(t, mark, messages.NotificationToolsListChanged, isMethod(messages.NotificationToolsListChanged))
}

// A call cancelled by its context is cancelled on the wire: on stdio the
// stateless era still sends notifications/cancelled.
func TestStatelessGoSDKCancellation(t *testing.T) {
	c, _, w := statelessGoSDK(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.CallTool(ctx, "test_tool_with_logging", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	harness.WaitFor(t, "notifications/cancelled on the wire", func() bool {
		for _, m := range w.sent(t) {
			if m.Method == messages.NotificationCancelled {
				return true
			}
		}
		return false
	})
	if _, err := c.CallTool(waitCtx(t), "test_simple_text", nil); err != nil {
		t.Errorf("after the cancellation: %v", err)
	}
}

// Methods the era does not have answer with an error that says so, or
// take their era's meaning.
func TestStatelessGoSDKMethodsOfTheEra(t *testing.T) {
	c, _, w := statelessGoSDK(t)
	checkStatelessMethodsOfTheEra(t, c)
	for _, m := range w.sent(t) {
		if m.Method == messages.MethodPing {
			t.Error("ping went on the wire in the stateless era")
		}
	}
}

// checkStatelessMethodsOfTheEra calls what the stateless era answers
// without its method: Ping is answered, NotifyRootsChanged says the era
// does not have it.
func checkStatelessMethodsOfTheEra(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	if err := c.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	var unsupported *mcpactor.UnsupportedError
	if err := c.NotifyRootsChanged(ctx); !errors.Is(err, mcpactor.ErrUnsupported) || !errors.As(err, &unsupported) {
		t.Errorf("NotifyRootsChanged: %v, want ErrUnsupported", err)
	}
}
