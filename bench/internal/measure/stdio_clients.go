package measure

import (
	"context"
	"io"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/bench/internal/refclient"
)

// StdioClients are the stdio benchmarks' clients, in the order of the
// reports' rows: the libraries, then the two references (package
// refclient), the blocking-API limit first because the targets are set
// against it.
var StdioClients = append(append([]string(nil), LibraryClients...), BlockingName, EventLoopName)

// StdioReferences are the hand-written stdio clients the reports compare
// with.
var StdioReferences = []string{BlockingName, EventLoopName}

// DialStdio connects the named client (any of StdioClients but the
// event-loop reference, which keeps its own calls going and has no
// blocking Call) to a server it starts.
func DialStdio(ctx context.Context, name string, s StdioServer) (Client, error) {
	switch name {
	case OursName: // rt.Connect + Client.CallTool
		return DialMcpactor(ctx, mcpactor.ServerConfig{Command: s.Path, Args: s.Args, Env: s.EnvMap})
	case "gosdk": // mcp.NewClient + mcp.CommandTransport + ClientSession.CallTool
		return DialGoSDK(ctx, &gosdk.CommandTransport{Command: s.Command()}, nil)
	case "mcpgo": // client.NewStdioMCPClient + Initialize + CallTool
		// mcp-go appends env to os.Environ(); s.Env is a full
		// environment, so the result is the same variables.
		c, err := mcpgoclient.NewStdioMCPClient(s.Path, s.Env, s.Args...)
		if err != nil {
			return nil, err
		}
		return InitMcpGo(ctx, c, nil, mcpgo.LATEST_PROTOCOL_VERSION)
	case BlockingName:
		cmd := s.Command()
		cmd.Stderr = io.Discard
		return refclient.StartBlockingWith(ctx, cmd, refclient.Options{Stateless: s.Stateless})
	}
	panic("measure: no blocking client " + name)
}

// StartEventLoop starts the event-loop reference on a server it starts.
func StartEventLoop(ctx context.Context, s StdioServer) (*refclient.EventLoop, error) {
	cmd := s.Command()
	cmd.Stderr = io.Discard
	return refclient.StartEventLoopWith(ctx, cmd, refclient.Options{Stateless: s.Stateless})
}

// RefLoad is l in the event-loop reference's terms.
func RefLoad(l Load) refclient.Load {
	return refclient.Load{Tool: l.Tool, Args: l.AppendCallArgs, Want: l.AppendWant}
}
