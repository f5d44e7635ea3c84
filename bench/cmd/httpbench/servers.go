package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The servers. Each measurement starts its own server process (this
// program re-executed), so that no client inherits another's sessions,
// and so that the server's CPU time is not this process's.
const (
	// serverGoSDK is the go-sdk's own Streamable HTTP server
	// (mcp.NewStreamableHTTPHandler) with one tool, echo: sessions, JSON
	// responses (StreamableHTTPOptions.JSONResponse).
	serverGoSDK = "gosdk"
	// serverGoSDKStateless is the same with StreamableHTTPOptions.Stateless:
	// no sessions, and server/discover offers 2026-07-28, which every
	// client here negotiates.
	serverGoSDKStateless = "gosdk-stateless"
	// serverTestserver is mcpactor's internal/testserver in its HTTP mode
	// (Options.HTTPAddr): sessions, JSON responses.
	serverTestserver = "testserver"
)

var serverOrder = []string{serverGoSDK, serverTestserver, serverGoSDKStateless}

var serverDescs = map[string]string{
	serverGoSDK:          "the go-sdk v1.8.0's Streamable HTTP server (`mcp.NewStreamableHTTPHandler`, `JSONResponse: true`, sessions) with an echo tool, in a process of its own",
	serverGoSDKStateless: "the same go-sdk server with `Stateless: true`: no session, and server/discover offers 2026-07-28",
	serverTestserver:     "mcpactor's internal/testserver in HTTP mode (`Options.HTTPAddr`, JSON responses, sessions), in a process of its own",
}

// runIfChild serves and exits when this program was started as a server:
// as mcpactor's test server (testserver.Command), or as the go-sdk echo
// server when envServer says so. Otherwise it returns at once.
func runIfChild() {
	testserver.RunIfChild()
	kind := os.Getenv(envServer)
	if kind == "" {
		return
	}
	os.Exit(serveGoSDK(kind == serverGoSDKStateless, os.Stdin, os.Stdout, os.Stderr))
}

// serverProc is a running server process and the URL it serves.
type serverProc struct {
	*measure.Proc
	url string
}

// startServer starts a server of the given kind and reads its URL.
func startServer(kind string) (*serverProc, error) {
	var cmd *exec.Cmd
	switch kind {
	case serverGoSDK, serverGoSDKStateless:
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd = exec.Command(exe)
		cmd.Env = append(os.Environ(), envServer+"="+kind)
	case serverTestserver:
		path, args, env := testserver.Command(testserver.Options{HTTPAddr: "127.0.0.1:0"})
		cmd = exec.Command(path, args...)
		cmd.Env = env
	default:
		return nil, fmt.Errorf("unknown server %q", kind)
	}
	cmd.Stderr = os.Stderr
	p, url, err := measure.StartHTTPProc(cmd, 30*time.Second)
	if err != nil {
		return nil, err
	}
	return &serverProc{Proc: p, url: url}, nil
}
