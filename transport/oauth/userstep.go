package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// AuthorizationRequest is the user's part of the authorization code flow:
// the browser goes to URL, the user signs in and consents, and the
// authorization server sends the browser to RedirectURL with the answer
// in its query.
type AuthorizationRequest struct {
	URL         string // the authorization request, to open in the user's browser
	RedirectURL string // where the answer comes back
	State       string // the state the answer must carry
	Identity    string // whom the token will act for
	Server      string // the MCP endpoint that asked
	Issuer      string // the authorization server
}

// UserStep completes the user's part of the authorization code flow: it
// sends the user to r.URL and returns the query of the redirect to
// r.RedirectURL (code, state, iss; or error). It runs within a request
// that waits for it (bounded by Config.FlowTimeout and by the request's
// own deadline), once for all the requests of one identity that need it.
type UserStep interface {
	Authorize(ctx context.Context, r *AuthorizationRequest) (url.Values, error)
}

// UserStepFunc is a function that is a UserStep: a server backend's
// callback that shows the user the URL (a link in its own interface) and
// returns when its redirect handler has the answer.
type UserStepFunc func(ctx context.Context, r *AuthorizationRequest) (url.Values, error)

// Authorize implements UserStep.
func (f UserStepFunc) Authorize(ctx context.Context, r *AuthorizationRequest) (url.Values, error) {
	return f(ctx, r)
}

// Loopback is the UserStep of a command-line program (RFC 8252): it
// listens on the redirect URL's loopback address, opens the URL in the
// user's browser (or prints it, when Open is nil or fails), and waits for
// the redirect.
type Loopback struct {
	// Open opens url in the user's browser; nil only prints it.
	Open func(url string) error
	// Out is where the URL is printed; nil is standard error.
	Out io.Writer
}

// ErrNotLoopback fails a Loopback whose redirect URL is not an http URL
// on a loopback address with a port.
var ErrNotLoopback = errors.New("oauth: the redirect URL is not a loopback address with a port (http://127.0.0.1:PORT/...)")

// Authorize implements UserStep.
func (l *Loopback) Authorize(ctx context.Context, r *AuthorizationRequest) (url.Values, error) {
	ru, err := url.Parse(r.RedirectURL)
	if err != nil || ru.Scheme != "http" || ru.Port() == "" || !isLoopback(ru.Hostname()) {
		return nil, ErrNotLoopback
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", ru.Host)
	if err != nil {
		return nil, fmt.Errorf("oauth: listening for the redirect on %s: %w", ru.Host, err)
	}
	got := make(chan url.Values, 1)
	path := ru.Path
	if path == "" {
		path = "/"
	}
	mux := http.NewServeMux()
	mux.HandleFunc(path, func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		if q.Get("state") != r.State {
			http.Error(w, "This is not the answer this program waits for.", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "Authorization complete: you can close this window."
		if e := q.Get("error"); e != "" {
			msg = "Authorization failed: " + e
		}
		fmt.Fprintf(w, "<!doctype html><title>mcpactor</title><p>%s</p>", html.EscapeString(msg))
		select {
		case got <- q:
		default:
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-done
	}()
	out := l.Out
	if out == nil {
		out = os.Stderr
	}
	fmt.Fprintf(out, "Authorize %s in your browser: %s\n", r.Server, r.URL)
	if l.Open != nil {
		if err := l.Open(r.URL); err != nil {
			fmt.Fprintf(out, "(could not open a browser: %v)\n", err)
		}
	}
	select {
	case q := <-got:
		return q, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
