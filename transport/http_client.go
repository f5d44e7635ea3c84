package transport

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// NewHTTPClient returns the http.Client a runtime shares between its HTTP
// servers: connections are kept alive and reused, enough of them stay idle
// per host for hundreds of requests in flight (Streamable HTTP over
// HTTP/1.1 holds one connection per open request stream), HTTP/2 is used
// when the server offers it, and HTTP_PROXY, HTTPS_PROXY and NO_PROXY are
// honoured. TLS settings (custom CAs, client certificates) come through a
// client of the caller's own, which the runtime accepts instead.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyFromEnvironment
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 512
	t.IdleConnTimeout = 90 * time.Second
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: t}
}

// Authorizer authorizes the HTTP requests of one server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization):
// RoundTripper wraps base, the transport of the runtime's client, for the
// server at serverURL. The wrapper adds credentials and may act on a 401
// or 403 by sending the request again (the transport's request bodies can
// be read again: GetBody is set). The values of a call's context (not its
// deadline) reach the requests it makes, so the wrapper can tell whom the
// call acts for. transport/oauth's Client and RefreshHeader are
// Authorizers.
type Authorizer interface {
	RoundTripper(serverURL string, base http.RoundTripper) http.RoundTripper
}

// authorized returns a copy of c whose transport goes through auth.
//
// A failure of the authorizer's own (a token endpoint that refused, a user
// step that did not happen) is not the MCP server being unreachable,
// though it surfaces from the same RoundTrip: what the base transport
// returns is marked on its way through the authorizer, and whatever else
// the authorizer returns is an authorization failure (errkind.ErrAuthorization).
func authorized(c *http.Client, auth Authorizer, serverURL string) *http.Client {
	a := *c
	base := a.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	a.Transport = authMarking{auth.RoundTripper(serverURL, netMarking{base})}
	return &a
}

// netMarking marks the errors of the network's RoundTrip (networkError).
type netMarking struct{ base http.RoundTripper }

func (m netMarking) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.base.RoundTrip(req)
	if err != nil {
		return nil, &networkError{err: err}
	}
	return resp, nil
}

// authMarking marks an authorizer's error that is not the network's own,
// passed through as it was, as an authorization failure.
type authMarking struct{ authorized http.RoundTripper }

func (m authMarking) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.authorized.RoundTrip(req)
	if err == nil {
		return resp, nil
	}
	if ne, ok := err.(*networkError); ok {
		return nil, ne.err
	}
	return nil, &authFailure{err: err}
}

// networkError is an error of the base transport, on its way through an
// authorizer.
type networkError struct{ err error }

func (e *networkError) Error() string { return e.err.Error() }
func (e *networkError) Unwrap() error { return e.err }

// authFailure is an authorizer's failure: it matches errkind.ErrAuthorization and
// unwraps to the authorizer's error (an *oauth.AuthorizationRequiredError,
// say).
type authFailure struct{ err error }

func (e *authFailure) Error() string        { return e.err.Error() }
func (e *authFailure) Unwrap() error        { return e.err }
func (e *authFailure) Is(target error) bool { return target == errkind.ErrAuthorization }

// errCrossOriginRedirect refuses a redirect of an MCP endpoint to another
// origin: the request carries the server's configured headers and tokens,
// which must never reach a host they were not meant for.
var errCrossOriginRedirect = errors.New("redirect to another origin refused")

// guarded returns a copy of c whose redirects stay on the origin of the
// request that started them, whatever c's own policy (applied after ours).
// net/http drops Authorization on a cross-host redirect, but not the
// custom headers an MCP server is often configured with.
func guarded(c *http.Client) *http.Client {
	g := *c
	next := c.CheckRedirect
	g.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			return errCrossOriginRedirect
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &g
}

// sameOrigin compares scheme, host and port (RFC 6454).
func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Hostname() == b.Hostname() && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch u.Scheme {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
