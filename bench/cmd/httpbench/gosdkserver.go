package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// envServer, when set, makes this program the go-sdk echo server named by
// its value.
const envServer = "MCPACTOR_HTTPBENCH_SERVER"

// serveGoSDK listens on a loopback port, writes the endpoint's URL as the
// first line on stdout, and serves until stdin ends; errors go to stderr.
func serveGoSDK(stateless bool, stdin io.Reader, stdout, stderr io.Writer) int {
	srv := measure.GoSDKEchoServer("httpbench-gosdk")
	h := gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv },
		&gosdk.StreamableHTTPOptions{JSONResponse: true, Stateless: stateless})
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
