package measure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// The client libraries, as the throughput benchmarks use them over any
// transport: each connects through its library's own API, and each Call
// makes tools/call and checks the result the same way (an error
// result, no content or non-text content is an error), so that the
// clients differ in their libraries only. How each connects to a stdio
// or an HTTP server is the command's part.

// The clients of the throughput benchmarks, by the names their reports
// use: mcpactor, the two other Go client libraries, and the hand-written
// references: over stdio the blocking-API limit and the event-loop limit
// (package refclient), over HTTP a client on tuned net/http ("wire").
const (
	OursName      = "mcpactor"
	BlockingName  = "blocking"
	EventLoopName = "eventloop"
	WireName      = "wire"
)

// LibraryClients are the client libraries, ours first.
var LibraryClients = []string{OursName, "gosdk", "mcpgo"}

// Peers are the other MCP client libraries (not the hand-written
// reference): mcpactor is compared with the best of them.
var Peers = map[string]bool{"gosdk": true, "mcpgo": true}

// ErrNoText is a result without text content where the echo tool's text
// was expected.
var ErrNoText = errors.New("result has no text content")

// firstText is the check every library client makes of a result
// (the call itself succeeded): not a tool error, and a first content item
// that is text, whose text it returns. text reads an item of the
// library's content type.
func firstText[C any](isError bool, content []C, text func(C) (string, bool)) (string, error) {
	if isError {
		return "", fmt.Errorf("tool error: %+v", content)
	}
	if len(content) == 0 {
		return "", ErrNoText
	}
	t, ok := text(content[0])
	if !ok {
		return "", ErrNoText
	}
	return t, nil
}

// Mcpactor is mcpactor's client: a runtime of its own with one connection.
type Mcpactor struct {
	rt *mcpactor.Runtime
	c  *mcpactor.Client
}

// DialMcpactor starts a runtime with the default options and connects it
// to the server cfg describes (rt.Connect, which returns after the
// handshake).
func DialMcpactor(ctx context.Context, cfg mcpactor.ServerConfig) (*Mcpactor, error) {
	return DialMcpactorWith(ctx, mcpactor.Options{}, cfg)
}

// DialMcpactorWith is DialMcpactor with the runtime's options.
func DialMcpactorWith(ctx context.Context, opts mcpactor.Options, cfg mcpactor.ServerConfig) (*Mcpactor, error) {
	rt, err := mcpactor.Start(opts)
	if err != nil {
		return nil, err
	}
	c, err := rt.Connect(ctx, "bench", cfg)
	if err != nil {
		_ = rt.Stop(ctx)
		return nil, err
	}
	return &Mcpactor{rt: rt, c: c}, nil
}

// Call makes tools/call with Client.CallTool.
func (m *Mcpactor) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	res, err := m.c.CallTool(ctx, tool, args)
	if err != nil {
		return "", err
	}
	return firstText(res.IsError, res.Content, mcpactorText)
}

func mcpactorText(c messages.Content) (string, bool) { return c.Text, true }

// Protocol is the protocol version negotiated.
func (m *Mcpactor) Protocol() string { return m.c.ProtocolVersion() }

// Close closes the connection and stops the runtime.
func (m *Mcpactor) Close(ctx context.Context) error {
	err := m.c.Close(ctx)
	return errors.Join(err, m.rt.Stop(ctx))
}

// GoSDK is a session of the official SDK, github.com/modelcontextprotocol/go-sdk.
type GoSDK struct {
	s  *gosdk.ClientSession
	hc *http.Client // the HTTP transport's client, whose idle connections Close closes; nil for stdio
}

// DialGoSDK connects a go-sdk client over t; hc is t's http.Client, if
// any.
func DialGoSDK(ctx context.Context, t gosdk.Transport, hc *http.Client) (*GoSDK, error) {
	c := gosdk.NewClient(&gosdk.Implementation{Name: "bench", Version: "0.0.1"}, nil)
	sess, err := c.Connect(ctx, t, nil)
	if err != nil {
		CloseIdle(hc)
		return nil, err
	}
	return &GoSDK{s: sess, hc: hc}, nil
}

// Call makes tools/call with ClientSession.CallTool.
func (g *GoSDK) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	res, err := g.s.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	return firstText(res.IsError, res.Content, goSDKText)
}

func goSDKText(c gosdk.Content) (string, bool) {
	t, ok := c.(*gosdk.TextContent)
	if !ok {
		return "", false
	}
	return t.Text, true
}

// Protocol is the protocol version negotiated.
func (g *GoSDK) Protocol() string {
	if r := g.s.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// Close closes the session.
func (g *GoSDK) Close(context.Context) error {
	err := g.s.Close()
	CloseIdle(g.hc)
	return err
}

// McpGo is a client of github.com/mark3labs/mcp-go.
type McpGo struct {
	c       *mcpgoclient.Client
	hc      *http.Client // as for GoSDK
	version string
	// Pinned is set when the command had to pin the protocol version (see
	// httpbench); Protocol says so.
	Pinned bool
}

// InitMcpGo initializes c, already started, asking for version; hc is c's
// http.Client, if any. On failure c is closed.
func InitMcpGo(ctx context.Context, c *mcpgoclient.Client, hc *http.Client, version string) (*McpGo, error) {
	res, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: version,
		ClientInfo:      mcpgo.Implementation{Name: "bench", Version: "0.0.1"},
	}})
	if err != nil {
		_ = c.Close()
		CloseIdle(hc)
		return nil, err
	}
	return &McpGo{c: c, hc: hc, version: res.ProtocolVersion}, nil
}

// Client is the mcp-go client.
func (m *McpGo) Client() *mcpgoclient.Client { return m.c }

// Call makes tools/call with Client.CallTool.
func (m *McpGo) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	res, err := m.c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{
		Name:      tool,
		Arguments: args,
	}})
	if err != nil {
		return "", err
	}
	return firstText(res.IsError, res.Content, mcpGoText)
}

func mcpGoText(c mcpgo.Content) (string, bool) {
	t, ok := mcpgo.AsTextContent(c)
	if !ok {
		return "", false
	}
	return t.Text, true
}

// Protocol is the protocol version negotiated, marked when pinned.
func (m *McpGo) Protocol() string {
	if m.Pinned {
		return m.version + " (pinned)"
	}
	return m.version
}

// Close closes the client.
func (m *McpGo) Close(context.Context) error {
	err := m.c.Close()
	CloseIdle(m.hc)
	return err
}

// CloseIdle closes hc's idle connections, if hc is an *http.Client on an
// *http.Transport; a client closed without it would leave them to the
// next measurement.
func CloseIdle(hc *http.Client) {
	if hc == nil {
		return
	}
	if t, ok := hc.Transport.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
}
