package measure

import (
	"context"
	"fmt"
	"os"
	"strings"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpactor/mcpactor/bench/internal/fastserver"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The stdio servers of the benchmarks. Every client starts its own server
// process for each measurement: the benchmark's program re-executed (or,
// for the test server, the binary a command's -server flag names).
const (
	// ServerFast is a lean server that writes each answer on its own, as
	// most servers do (package fastserver); the targets hold against it.
	ServerFast = "fast"
	// ServerTestserver is mcpactor's internal/testserver with its
	// default, well-behaved options; it batches the answers it has ready
	// into one write. It answers server/discover with -32601, so every
	// client speaks the session era (2025-11-25) with it.
	ServerTestserver = "testserver"
	// ServerGoSDK is the go-sdk's own server over stdio
	// (mcp.StdioTransport) with the benchmarks' tools (GoSDKEchoServer).
	// It answers server/discover and lists 2026-07-28, so a client that
	// probes speaks that revision: no initialize, and every request
	// carries the version in its _meta.
	ServerGoSDK = "gosdk"
	// ServerFastStateless is the fast server offering the 2026-07-28
	// revision too (fastserver.ServeStateless): every client, the
	// references included (refclient.Options.Stateless), speaks that
	// revision with it, so that its cost is measured against the session
	// era's on the same server.
	ServerFastStateless = "fast-2026"
)

// StdioServers are the stdio servers, in the order of the reports.
var StdioServers = []string{ServerFast, ServerTestserver, ServerGoSDK, ServerFastStateless}

// envServer, when set, makes the benchmark's program the go-sdk stdio
// server or the fast server.
const envServer = "MCPACTOR_BENCH_SERVER"

// RunStdioServerIfChild serves and exits when the program was started as
// a server: as mcpactor's test server (testserver.Command), or as the
// go-sdk server or the fast server when envServer says so. Otherwise it
// returns at once. A benchmark's main (and TestMain) calls it first.
func RunStdioServerIfChild() {
	testserver.RunIfChild()
	switch os.Getenv(envServer) {
	case ServerGoSDK:
		// Run returns when the client closes stdin, the end of every
		// measurement's session: no error then is worth a status.
		_ = GoSDKEchoServer("bench-gosdk").Run(context.Background(), &gosdk.StdioTransport{})
		os.Exit(0)
	case ServerFast, ServerFastStateless:
		serve := fastserver.Serve
		if os.Getenv(envServer) == ServerFastStateless {
			serve = fastserver.ServeStateless
		}
		if err := serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fastserver:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// StdioServerOf is how the clients start a server of the given kind;
// path, when set, is the test server's binary.
func StdioServerOf(kind, path string) StdioServer {
	switch kind {
	case ServerGoSDK, ServerFast, ServerFastStateless:
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
		s := NewStdioServer(exe, nil, append(env, envServer+"="+kind))
		s.Stateless = kind == ServerFastStateless
		return s
	default:
		opts := testserver.Options{}
		if path != "" {
			return NewStdioServer(path, opts.Args(), os.Environ())
		}
		return NewStdioServer(testserver.Command(opts))
	}
}

// StdioServerDesc describes a server for a report; program is the
// benchmark's, path the test server's binary if one was named.
func StdioServerDesc(kind, path, program string) string {
	self := fmt.Sprintf("the %s binary itself, re-executed with %s=%s", program, envServer, kind)
	switch kind {
	case ServerFast:
		return "the fast server (bench/internal/fastserver): a lean stdio server that writes each answer with a write of its own, as most servers do. One process per client (" + self + ")"
	case ServerFastStateless:
		return "the fast server offering 2026-07-28 (`fastserver.ServeStateless`): `server/discover` lists it, and every echo result carries `resultType` and the server's `io.modelcontextprotocol/serverInfo` in its `_meta`, as the go-sdk's server sends them; every client speaks 2026-07-28 with it, the references included. One process per client (" + self + ")"
	case ServerGoSDK:
		return "the go-sdk v1.8.0's server over stdio (`mcp.NewServer` + `mcp.StdioTransport`) with the tools echo, big and sleep; it answers `server/discover` with 2026-07-28 among its versions. One process per client (" + self + ")"
	}
	bin := fmt.Sprintf("the %s binary itself, re-executed with %s=1", program, testserver.EnvChild)
	if path != "" {
		bin = "`" + path + "`"
	}
	return fmt.Sprintf("mcpactor's internal/testserver, default options; it answers `server/discover` with -32601. One process per client (%s)", bin)
}
