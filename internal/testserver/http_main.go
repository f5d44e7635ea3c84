package testserver

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// mainHTTP is Main with Options.HTTPAddr: it listens, writes the endpoint
// URL as the first line on stdout, and serves until SIGTERM or SIGINT
// (IgnoreSIGTERM: SIGINT only), or until stdin ends when stdin is a pipe
// or a socket, so that a child whose parent died does not linger; stdin
// that is /dev/null or a terminal is not watched. It returns 1 when it
// cannot listen. Faults and the crash tool exit the process.
func mainHTTP(opts Options) int {
	if opts.ExitAtStart {
		if opts.StderrOnExit != "" {
			fmt.Fprint(os.Stderr, withNewline(opts.StderrOnExit))
		}
		return opts.ExitCode
	}
	ln, err := net.Listen("tcp", opts.HTTPAddr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 1
	}
	term := make(chan os.Signal, 1)
	if opts.IgnoreSIGTERM {
		signal.Ignore(syscall.SIGTERM)
		signal.Notify(term, os.Interrupt)
	} else {
		signal.Notify(term, syscall.SIGTERM, os.Interrupt)
	}
	defer signal.Stop(term)

	h := newHTTPHandler(opts, nil, os.Stderr, os.Exit)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintln(os.Stdout, EndpointURL(ln.Addr()))

	var stdinDone <-chan struct{}
	if !opts.IgnoreSIGTERM {
		stdinDone = watchStdin()
	}
	select {
	case <-term:
	case <-stdinDone:
	case err := <-served:
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 1
	}
	// Streams that never end hold their handlers until Close: end them
	// first, then the connections, within the same grace as stdio.
	stopped := make(chan struct{})
	go func() {
		h.Close()
		_ = srv.Close()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(termGrace):
	}
	return 0
}

// EndpointURL is the URL of the Streamable HTTP endpoint of a server
// listening on addr; an unspecified address (":0", "[::]:0") becomes the
// loopback one.
func EndpointURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + HTTPPath
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + HTTPPath
}

// watchStdin returns a channel closed when stdin ends, if stdin is a pipe
// or a socket (a parent holds the other end); nil otherwise.
func watchStdin() <-chan struct{} {
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	return done
}

// ReadURL reads the first line a child started with Options.HTTPAddr
// writes on stdout: the URL of its Streamable HTTP endpoint (SSEPath on
// the same origin is the legacy transport's). It reads one byte at a
// time, so nothing after that line is consumed from r.
func ReadURL(r io.Reader) (string, error) {
	var line []byte
	b := make([]byte, 1)
	for len(line) < 1024 {
		n, err := r.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				u := strings.TrimSpace(string(line))
				if !strings.HasPrefix(u, "http://") {
					return "", fmt.Errorf("testserver: first line %q is not a URL", u)
				}
				return u, nil
			}
			line = append(line, b[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return "", fmt.Errorf("testserver: reading the URL line: %w (read %q)", err, line)
		}
	}
	return "", fmt.Errorf("testserver: no URL line in %q", line)
}
