package main

import (
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// httpServer is our test server over Streamable HTTP, served in this
// process on a loopback port: the embedded run's one HTTP server.
type httpServer struct {
	h      *testserver.HTTPHandler
	srv    *http.Server
	url    string
	served chan struct{}
}

func startHTTPServer() (*httpServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &httpServer{
		h:      testserver.NewHTTPHandler(testserver.Options{}, nil),
		url:    testserver.EndpointURL(ln.Addr()),
		served: make(chan struct{}),
	}
	s.srv = &http.Server{Handler: s.h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln) // ends with Close
	}()
	return s, nil
}

// close ends the sessions first (a stream that never ends holds its
// handler until then), then the listener and the connections.
func (s *httpServer) close() {
	s.h.Close()
	_ = s.srv.Close()
	<-s.served
}
