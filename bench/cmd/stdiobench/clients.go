package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
)

// server is how to start the benchmark server: the same binary, arguments
// and environment for every client.
type server struct {
	path string
	args []string
	env  []string // full environment, os.Environ style
}

// envMap is env as a map, for clients that take one (they set it on top of
// the parent environment, which env already contains).
func (s server) envMap() map[string]string {
	m := make(map[string]string, len(s.env))
	for _, kv := range s.env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func (s server) command() *exec.Cmd {
	cmd := exec.Command(s.path, s.args...)
	cmd.Env = s.env
	return cmd
}

// client is one connected MCP client. Call runs tools/call echo with msg and
// returns the text of the result's first content item.
type client interface {
	Call(ctx context.Context, msg string) (string, error)
	Close(ctx context.Context) error
}

type dialer func(ctx context.Context, s server) (client, error)

var dialers = map[string]dialer{
	"mcpactor": dialMcpactor,
	"gosdk":    dialGoSDK,
	"mcpgo":    dialMcpGo,
	"wire":     dialWire,
}

var clientOrder = []string{"mcpactor", "gosdk", "mcpgo", "wire"}

// peers are the other MCP client libraries (not the hand-written limit).
var peers = map[string]bool{"gosdk": true, "mcpgo": true}

var errNoText = errors.New("result has no text content")

// --- mcpactor ---

type mcpactorClient struct {
	rt *mcpactor.Runtime
	c  *mcpactor.Client
}

func dialMcpactor(ctx context.Context, s server) (client, error) {
	rt, err := mcpactor.Start(ctx, mcpactor.Options{})
	if err != nil {
		return nil, err
	}
	c, err := rt.Connect(ctx, "bench", mcpactor.ServerConfig{Command: s.path, Args: s.args, Env: s.envMap()})
	if err != nil {
		_ = rt.Stop(ctx)
		return nil, err
	}
	return &mcpactorClient{rt: rt, c: c}, nil
}

func (m *mcpactorClient) Call(ctx context.Context, msg string) (string, error) {
	res, err := m.c.CallTool(ctx, "echo", map[string]any{"message": msg})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	if len(res.Content) == 0 {
		return "", errNoText
	}
	return res.Content[0].Text, nil
}

func (m *mcpactorClient) Close(ctx context.Context) error {
	err := m.c.Close(ctx)
	return errors.Join(err, m.rt.Stop(ctx))
}

// --- github.com/modelcontextprotocol/go-sdk ---

type goSDKClient struct {
	s *gosdk.ClientSession
}

func dialGoSDK(ctx context.Context, s server) (client, error) {
	c := gosdk.NewClient(&gosdk.Implementation{Name: "bench", Version: "0.0.1"}, nil)
	sess, err := c.Connect(ctx, &gosdk.CommandTransport{Command: s.command()}, nil)
	if err != nil {
		return nil, err
	}
	return &goSDKClient{s: sess}, nil
}

func (g *goSDKClient) Call(ctx context.Context, msg string) (string, error) {
	res, err := g.s.CallTool(ctx, &gosdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	if len(res.Content) == 0 {
		return "", errNoText
	}
	t, ok := res.Content[0].(*gosdk.TextContent)
	if !ok {
		return "", errNoText
	}
	return t.Text, nil
}

func (g *goSDKClient) Close(context.Context) error { return g.s.Close() }

// --- github.com/mark3labs/mcp-go ---

type mcpGoClient struct {
	c *mcpgoclient.Client
}

func dialMcpGo(ctx context.Context, s server) (client, error) {
	// mcp-go appends env to os.Environ(); s.env is a full environment, so
	// the result is the same variables.
	c, err := mcpgoclient.NewStdioMCPClient(s.path, s.env, s.args...)
	if err != nil {
		return nil, err
	}
	_, err = c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION,
		ClientInfo:      mcpgo.Implementation{Name: "bench", Version: "0.0.1"},
	}})
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return &mcpGoClient{c: c}, nil
}

func (m *mcpGoClient) Call(ctx context.Context, msg string) (string, error) {
	res, err := m.c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{
		Name:      "echo",
		Arguments: map[string]any{"message": msg},
	}})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %+v", res.Content)
	}
	if len(res.Content) == 0 {
		return "", errNoText
	}
	t, ok := mcpgo.AsTextContent(res.Content[0])
	if !ok {
		return "", errNoText
	}
	return t.Text, nil
}

func (m *mcpGoClient) Close(context.Context) error { return m.c.Close() }
