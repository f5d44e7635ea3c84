package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// Each client is driven the way its documentation suggests: mcpactor
// through Runtime.Connect and Client.CallToolWith, go-sdk through
// Client.Connect with a CommandTransport, mcp-go through a stdio transport,
// NewClient, Start and Initialize. Nothing is tuned: every default
// (timeouts, frame caps, shutdown waits) is the library's own.

// dialOpts say how to start the server and what to register on the client.
type dialOpts struct {
	server testserver.Options
	// roots registers a roots/list handler answering rootURI.
	roots bool
	// stderr, if set, receives the server's stderr through the client's own
	// facility (mcpactor Options.StderrLine, go-sdk exec.Cmd.Stderr, mcp-go
	// WithCommandStderrWriter). Unset, each client does its default.
	stderr io.Writer
	// sampling, if set, answers sampling/createMessage with the text it
	// returns (mcpactor Handlers.Sampling, go-sdk CreateMessageHandler,
	// mcp-go WithSamplingHandler). It is called with the request's context.
	sampling func(ctx context.Context) (string, error)
	// logMessage, if set, receives each notifications/message (mcpactor
	// Handlers.Notification, go-sdk LoggingMessageHandler, mcp-go
	// OnNotification), on whatever goroutine the client delivers it.
	logMessage func()
	// http, if set, reaches the server over HTTP at its URL instead of
	// starting it (clients_http.go); server is then unused.
	http *httpTarget
}

// logMethod is the notification logMessage receives.
const logMethod = "notifications/message"

const rootURI = "file:///faultmatrix/root"

// callOpts tune one call.
type callOpts struct {
	// timeout is applied the client's idiomatic way: mcpactor
	// CallOptions.Timeout, the others a context deadline.
	timeout time.Duration
	// progress, if set, asks for progress and receives each notification
	// meant for this call. route says how it was delivered.
	progress func()
}

// callResult is the text of a tool result's first content item.
type callResult struct {
	text    string
	isError bool
}

type mcpClient interface {
	Call(ctx context.Context, tool string, args map[string]any, o callOpts) (callResult, error)
	// List lists every tool, following pages the client's own way.
	List(ctx context.Context) (names []string, err error)
	Close(ctx context.Context) error
	// Counters describes what the client counted of dropped input, if it
	// counts anything ("" otherwise).
	Counters() string
	// LateProgress is the number of progress notifications that reached
	// the client after their call had returned.
	LateProgress() int64
}

type dialer func(ctx context.Context, o dialOpts) (mcpClient, error)

var dialers = map[string]dialer{
	"mcpactor": dialMcpactor,
	"gosdk":    dialGoSDK,
	"mcpgo":    dialMcpGo,
}

var clientOrder = []string{"mcpactor", "gosdk", "mcpgo"}

var clientTitles = map[string]string{
	"mcpactor": "mcpactor",
	"gosdk":    "go-sdk v1.8.0",
	"mcpgo":    "mcp-go v1.6.0",
}

// progressRoute says, per client, how a call's progress reaches it.
var progressRoute = map[string]string{
	"mcpactor": "per-call CallOptions.OnProgress",
	"gosdk":    "per-session ClientOptions.ProgressNotificationHandler only (harness routes by token)",
	"mcpgo":    "client-wide OnNotification only (harness routes by token)",
}

func serverCommand(o testserver.Options) (path string, args, env []string) {
	return testserver.Command(o)
}

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// writeLine appends one stderr line to the harness's collector.
func writeLine(w io.Writer, line string) {
	if w != nil {
		_, _ = io.WriteString(w, line+"\n")
	}
}

// progressRouter dispatches progress notifications to the call that asked,
// by token, for the clients that only offer a session-wide handler.
type progressRouter struct {
	mu    sync.Mutex
	next  int
	calls map[string]func()
	// late counts notifications whose call had already returned.
	late int64
}

func (r *progressRouter) add(f func()) (token string, done func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	token = fmt.Sprintf("fm-%d", r.next)
	if r.calls == nil {
		r.calls = make(map[string]func())
	}
	r.calls[token] = f
	return token, func() {
		r.mu.Lock()
		delete(r.calls, token)
		r.mu.Unlock()
	}
}

func (r *progressRouter) deliver(token any) {
	key := fmt.Sprint(token)
	r.mu.Lock()
	f := r.calls[key]
	if f == nil {
		r.late++
	}
	r.mu.Unlock()
	if f != nil {
		f()
	}
}

func (r *progressRouter) lateCount() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.late
}

// --- mcpactor ---

type mcpactorClient struct {
	rt *mcpactor.Runtime
	c  *mcpactor.Client
}

func dialMcpactor(ctx context.Context, o dialOpts) (mcpClient, error) {
	path, args, env := serverCommand(o.server)
	cfg := mcpactor.ServerConfig{Command: path, Args: args, Env: envMap(env)}
	if o.http != nil {
		cfg = o.http.mcpactorConfig()
	}
	var opts mcpactor.Options
	if o.roots {
		opts.Handlers.Roots = func(context.Context, string) ([]messages.Root, error) {
			return []messages.Root{{URI: rootURI, Name: "root"}}, nil
		}
	}
	if o.stderr != nil {
		w := o.stderr
		opts.StderrLine = func(_, line string) { writeLine(w, line) }
	}
	if o.sampling != nil {
		f := o.sampling
		opts.Handlers.Sampling = func(ctx context.Context, _ string, _ *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			text, err := f(ctx)
			if err != nil {
				return nil, err
			}
			return &messages.CreateMessageResult{Role: "assistant", Content: messages.Content{Type: "text", Text: text}, Model: "faultmatrix"}, nil
		}
	}
	if o.logMessage != nil {
		f := o.logMessage
		opts.Handlers.Notification = func(_ string, n mcpactor.Notification) {
			if n.Method == logMethod {
				f()
			}
		}
	}
	if o.http != nil && o.http.listen && opts.Handlers.Notification == nil {
		// mcpactor opens the GET listener when something reads what it
		// carries: a notification handler is asked for, as mcp-go is
		// asked with WithContinuousListening.
		opts.Handlers.Notification = func(string, mcpactor.Notification) {}
	}
	rt, err := mcpactor.Start(opts)
	if err != nil {
		return nil, err
	}
	c, err := rt.Connect(ctx, "fm", cfg)
	if err != nil {
		_ = rt.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	return &mcpactorClient{rt: rt, c: c}, nil
}

func (m *mcpactorClient) Call(ctx context.Context, tool string, args map[string]any, o callOpts) (callResult, error) {
	co := mcpactor.CallOptions{Timeout: o.timeout}
	if o.progress != nil {
		f := o.progress
		co.OnProgress = func(messages.ProgressParams) { f() }
	}
	res, err := m.c.CallToolWith(ctx, tool, args, co)
	if err != nil {
		return callResult{}, err
	}
	r := callResult{isError: res.IsError}
	if len(res.Content) > 0 {
		r.text = res.Content[0].Text
	}
	return r, nil
}

func (m *mcpactorClient) List(ctx context.Context) ([]string, error) {
	tools, err := m.c.ListTools(ctx)
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names, err
}

func (m *mcpactorClient) Close(ctx context.Context) error {
	err := m.c.Close(ctx)
	return errors.Join(err, m.rt.Stop(ctx))
}

// LateProgress is 0: OnProgress runs on the calling goroutine, so nothing
// reaches it after the call returns (Stats.DroppedProgress counts drops).
func (m *mcpactorClient) LateProgress() int64 { return 0 }

func (m *mcpactorClient) Counters() string {
	s := m.c.Stats()
	var parts []string
	add := func(n int64, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(s.Malformed, "malformed")
	add(s.Oversized, "oversized")
	add(s.UnknownIDs, "unknown-id")
	add(s.LateResponses, "late")
	add(s.DroppedProgress, "dropped-progress")
	add(s.RefusedBatches, "refused-batch")
	add(s.InboundRequests, "server-request")
	add(s.InvalidRequests, "invalid-request")
	add(s.BadResponses, "bad-response")
	add(s.DroppedStderrLines, "dropped-stderr-line")
	add(s.DroppedWrites, "dropped-write")
	add(s.WriteOverflow, "write-overflow")
	add(s.DroppedNotifications, "dropped-notification")
	add(s.AbandonedCallbacks, "abandoned-callback")
	if len(parts) == 0 {
		return "counted nothing"
	}
	return "counted " + strings.Join(parts, ", ")
}

// --- github.com/modelcontextprotocol/go-sdk ---

type goSDKClient struct {
	s        *gosdk.ClientSession
	progress *progressRouter
	// stop ends the context the legacy SSE transport's stream lives in
	// (clients_http.go); nil otherwise.
	stop context.CancelFunc
}

func dialGoSDK(ctx context.Context, o dialOpts) (mcpClient, error) {
	router := &progressRouter{}
	copts := &gosdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *gosdk.ProgressNotificationClientRequest) {
			router.deliver(req.Params.ProgressToken)
		},
	}
	if o.sampling != nil {
		f := o.sampling
		copts.CreateMessageHandler = func(ctx context.Context, _ *gosdk.CreateMessageRequest) (*gosdk.CreateMessageResult, error) {
			text, err := f(ctx)
			if err != nil {
				return nil, err
			}
			return &gosdk.CreateMessageResult{Role: "assistant", Content: &gosdk.TextContent{Text: text}, Model: "faultmatrix"}, nil
		}
	}
	if o.logMessage != nil {
		f := o.logMessage
		copts.LoggingMessageHandler = func(context.Context, *gosdk.LoggingMessageRequest) { f() }
	}
	c := gosdk.NewClient(&gosdk.Implementation{Name: "faultmatrix", Version: "0.0.1"}, copts)
	if o.roots {
		c.AddRoots(&gosdk.Root{URI: rootURI, Name: "root"})
	}
	if o.http != nil {
		return dialGoSDKHTTP(ctx, c, o.http, router)
	}
	path, args, env := serverCommand(o.server)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	if o.stderr != nil {
		cmd.Stderr = o.stderr
	}
	sess, err := c.Connect(ctx, &gosdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	return &goSDKClient{s: sess, progress: router}, nil
}

func (g *goSDKClient) Call(ctx context.Context, tool string, args map[string]any, o callOpts) (callResult, error) {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	p := &gosdk.CallToolParams{Name: tool, Arguments: args}
	if o.progress != nil {
		tok, done := g.progress.add(o.progress)
		defer done()
		p.SetProgressToken(tok)
	}
	res, err := g.s.CallTool(ctx, p)
	if err != nil {
		return callResult{}, err
	}
	r := callResult{isError: res.IsError}
	if len(res.Content) > 0 {
		if t, ok := res.Content[0].(*gosdk.TextContent); ok {
			r.text = t.Text
		}
	}
	return r, nil
}

func (g *goSDKClient) List(ctx context.Context) ([]string, error) {
	var names []string
	for t, err := range g.s.Tools(ctx, nil) {
		if err != nil {
			return names, err
		}
		names = append(names, t.Name)
	}
	return names, nil
}

func (g *goSDKClient) Close(context.Context) error {
	err := g.s.Close()
	if g.stop != nil {
		g.stop()
	}
	return err
}
func (g *goSDKClient) Counters() string    { return "" }
func (g *goSDKClient) LateProgress() int64 { return g.progress.lateCount() }

// --- github.com/mark3labs/mcp-go ---

type mcpGoClient struct {
	c        *mcpgoclient.Client
	progress *progressRouter
}

type mcpGoRoots struct{}

// mcpGoSampling adapts dialOpts.sampling to mcp-go's SamplingHandler.
type mcpGoSampling func(ctx context.Context) (string, error)

func (f mcpGoSampling) CreateMessage(ctx context.Context, _ mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	text, err := f(ctx)
	if err != nil {
		return nil, err
	}
	return &mcpgo.CreateMessageResult{
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent(text)},
		Model:           "faultmatrix",
	}, nil
}

func (mcpGoRoots) ListRoots(context.Context, mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	return &mcpgo.ListRootsResult{Roots: []mcpgo.Root{{URI: rootURI, Name: "root"}}}, nil
}

func dialMcpGo(ctx context.Context, o dialOpts) (mcpClient, error) {
	var c *mcpgoclient.Client
	if o.http != nil {
		var err error
		if c, err = newMcpGoHTTP(o); err != nil {
			return nil, err
		}
	} else {
		path, args, env := serverCommand(o.server)
		var topts []mcpgotransport.StdioOption
		if o.stderr != nil {
			topts = append(topts, mcpgotransport.WithCommandStderrWriter(o.stderr))
		}
		// mcp-go appends env to os.Environ(); env is a full environment, so
		// the child sees the same variables.
		t := mcpgotransport.NewStdioWithOptions(path, env, args, topts...)
		var copts []mcpgoclient.ClientOption
		if o.roots {
			copts = append(copts, mcpgoclient.WithRootsHandler(mcpGoRoots{}))
		}
		if o.sampling != nil {
			copts = append(copts, mcpgoclient.WithSamplingHandler(mcpGoSampling(o.sampling)))
		}
		c = mcpgoclient.NewClient(t, copts...)
	}
	// Start spawns the server with exec.CommandContext(ctx): the process
	// lives only as long as that context, so it must not be a per-call one
	// (NewStdioMCPClient itself uses context.Background()). Over HTTP the
	// GET listener and the legacy event stream live in it likewise.
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	router := &progressRouter{}
	c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == string(mcpgo.MethodNotificationProgress) {
			router.deliver(n.Params.AdditionalFields["progressToken"])
		}
	})
	if o.logMessage != nil {
		f := o.logMessage
		c.OnNotification(func(n mcpgo.JSONRPCNotification) {
			if n.Method == logMethod {
				f()
			}
		})
	}
	_, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcpgo.Implementation{Name: "faultmatrix", Version: "0.0.1"},
	}})
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return &mcpGoClient{c: c, progress: router}, nil
}

func (m *mcpGoClient) Call(ctx context.Context, tool string, args map[string]any, o callOpts) (callResult, error) {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	req := mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: tool, Arguments: args}}
	if o.progress != nil {
		tok, done := m.progress.add(o.progress)
		defer done()
		req.Params.Meta = &mcpgo.Meta{ProgressToken: tok}
	}
	res, err := m.c.CallTool(ctx, req)
	if err != nil {
		return callResult{}, err
	}
	r := callResult{isError: res.IsError}
	if len(res.Content) > 0 {
		if t, ok := mcpgo.AsTextContent(res.Content[0]); ok {
			r.text = t.Text
		}
	}
	return r, nil
}

func (m *mcpGoClient) List(ctx context.Context) ([]string, error) {
	res, err := m.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}

func (m *mcpGoClient) Close(context.Context) error { return m.c.Close() }
func (m *mcpGoClient) Counters() string            { return "" }
func (m *mcpGoClient) LateProgress() int64         { return m.progress.lateCount() }
