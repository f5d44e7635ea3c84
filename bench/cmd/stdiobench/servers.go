package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The servers. Every client starts its own server process for each
// measurement: this program re-executed (or, for the test server, the
// binary -server names).
const (
	// serverTestserver is mcpactor's internal/testserver with its default,
	// well-behaved options. It answers server/discover with -32601, so
	// every client speaks the session era (2025-11-25) with it.
	serverTestserver = "testserver"
	// serverGoSDK is the go-sdk's own server over stdio
	// (mcp.StdioTransport) with one tool, echo. It answers server/discover
	// and lists 2026-07-28, so a client that probes speaks that revision:
	// no initialize, and every request carries the version in its _meta.
	serverGoSDK = "gosdk"
)

var serverOrder = []string{serverTestserver, serverGoSDK}

// envServer, when set, makes this program the go-sdk stdio server.
const envServer = "MCPACTOR_STDIOBENCH_SERVER"

// runIfChild serves and exits when this program was started as a server:
// as mcpactor's test server (testserver.Command), or as the go-sdk server
// when envServer says so. Otherwise it returns at once.
func runIfChild() {
	testserver.RunIfChild()
	if os.Getenv(envServer) != serverGoSDK {
		return
	}
	// Run returns when the client closes stdin, the end of every
	// measurement's session: no error then is worth a status.
	_ = measure.GoSDKEchoServer("stdiobench-gosdk").Run(context.Background(), &gosdk.StdioTransport{})
	os.Exit(0)
}

// stdioServer is how the clients start a server of the given kind; path,
// when set, is the test server's binary.
func stdioServer(kind, path string) measure.StdioServer {
	switch kind {
	case serverGoSDK:
		exe, err := os.Executable()
		if err != nil {
			exe = os.Args[0]
		}
		var env []string
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); k != envServer && k != testserver.EnvChild {
				env = append(env, kv)
			}
		}
		return measure.NewStdioServer(exe, nil, append(env, envServer+"="+serverGoSDK))
	default:
		opts := testserver.Options{}
		if path != "" {
			return measure.NewStdioServer(path, opts.Args(), os.Environ())
		}
		return measure.NewStdioServer(testserver.Command(opts))
	}
}

// serverDesc describes a server for the report.
func serverDesc(kind, path string) string {
	if kind == serverGoSDK {
		return "the go-sdk v1.8.0's server over stdio (`mcp.NewServer` + `mcp.StdioTransport`) with an echo tool; it answers `server/discover` with 2026-07-28 among its versions. One process per client (the stdiobench binary itself, re-executed with " + envServer + "=gosdk)"
	}
	bin := "the stdiobench binary itself, re-executed with MCPACTOR_TESTSERVER=1"
	if path != "" {
		bin = "`" + path + "`"
	}
	return fmt.Sprintf("mcpactor's internal/testserver, default options; it answers `server/discover` with -32601. One process per client (%s)", bin)
}
