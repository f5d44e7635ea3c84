package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/fastserver"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The servers. Each measurement starts its own server process (this
// program re-executed), so that no client inherits another's sessions,
// and so that the server's CPU time is not this process's.
const (
	// serverFast is bench/internal/fastserver's Streamable HTTP handler
	// (fastserver.NewHTTPHandler): sessions, one JSON response per POST,
	// a server whose own cost per call is small, so that the clients'
	// differences show.
	serverFast = "fast"
	// serverFastStateless is the same in stateless mode: no session, and
	// server/discover offers 2026-07-28, which every client here
	// negotiates.
	serverFastStateless = "fast-stateless"
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

// envServer, when set, makes this program the server named by its value:
// the go-sdk echo server or the fast server.
const envServer = "MCPACTOR_HTTPBENCH_SERVER"

var serverOrder = []string{serverFast, serverGoSDK, serverTestserver, serverFastStateless, serverGoSDKStateless}

// statelessServer says whether every client speaks 2026-07-28 with the
// server: its levels are -stateless-inflight.
func statelessServer(kind string) bool {
	return kind == serverFastStateless || kind == serverGoSDKStateless
}

var serverDescs = map[string]string{
	serverFast:           "bench/internal/fastserver over Streamable HTTP (`fastserver.NewHTTPHandler`: sessions, one JSON response per POST, little CPU per call), in a process of its own",
	serverFastStateless:  "the same fast server stateless: no session, and server/discover offers 2026-07-28",
	serverGoSDK:          "the go-sdk v1.8.0's Streamable HTTP server (`mcp.NewStreamableHTTPHandler`, `JSONResponse: true`, sessions) with an echo tool, in a process of its own",
	serverGoSDKStateless: "the same go-sdk server with `Stateless: true`: no session, and server/discover offers 2026-07-28",
	serverTestserver:     "mcpactor's internal/testserver in HTTP mode (`Options.HTTPAddr`, JSON responses, sessions), in a process of its own",
}

// runIfChild serves and exits when this program was started as a server:
// as mcpactor's test server (testserver.Command), or as the go-sdk echo
// server or the fast server when envServer says so. Otherwise it returns
// at once.
func runIfChild() {
	testserver.RunIfChild()
	kind := os.Getenv(envServer)
	switch kind {
	case "":
		return
	case serverFast, serverFastStateless:
		os.Exit(serveHTTP(fastserver.NewHTTPHandler(kind == serverFastStateless), os.Stdin, os.Stdout, os.Stderr))
	default:
		os.Exit(serveHTTP(goSDKHandler(kind == serverGoSDKStateless), os.Stdin, os.Stdout, os.Stderr))
	}
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
	case serverFast, serverFastStateless, serverGoSDK, serverGoSDKStateless:
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

// serveHTTP serves h at testserver.HTTPPath on a loopback port, writes the
// endpoint's URL as the first line on stdout, and serves until stdin
// ends; errors go to stderr.
func serveHTTP(h http.Handler, stdin io.Reader, stdout, stderr io.Writer) int {
	mux := http.NewServeMux()
	mux.Handle(testserver.HTTPPath, h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(stderr, "httpbench server:", err)
		return 1
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	fmt.Fprintln(stdout, testserver.EndpointURL(ln.Addr()))
	_, _ = io.Copy(io.Discard, stdin)
	_ = hs.Close()
	return 0
}
