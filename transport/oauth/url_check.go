package oauth

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// URLRefusedError refuses a URL a server supplied for the authorization
// flow (the resource_metadata of a challenge, an authorization server's
// issuer, the endpoints in its metadata) before anything is sent to it:
// tokens, codes and client secrets would travel there, and metadata read
// from it would steer the rest of the flow
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#communication-security).
// It matches ErrInsecureEndpoint.
type URLRefusedError struct {
	What    string // "protected resource metadata", "token endpoint", ...
	URL     string // as supplied, credentials masked
	Problem string // why it is refused
}

func (e *URLRefusedError) Error() string {
	return "oauth: refused the " + e.What + " URL " + strconv.Quote(e.URL) + ": " + e.Problem
}

// Is makes errors.Is(err, ErrInsecureEndpoint) true.
func (e *URLRefusedError) Is(target error) bool { return target == ErrInsecureEndpoint }

// checkURL accepts a URL a server supplied only if it is absolute HTTPS,
// or HTTP to a loopback host (127.0.0.0/8, ::1, localhost: a server on the
// developer's own machine, as in the conformance suite) when the MCP
// server is on a loopback host too (serverLoopback: a server elsewhere
// has no business sending this client to its own machine), with no
// userinfo (credentials in a URL leak into logs and Referer headers, and
// a server has no business supplying them) and no fragment (RFC 8414 and
// RFC 9728 forbid one in issuers and endpoints). Where the connection
// may then go is fetch_guard.go's.
func checkURL(what, raw string, serverLoopback bool) error {
	refuse := func(problem string) error {
		return &URLRefusedError{What: what, URL: redact.URL(raw), Problem: problem}
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return refuse("not a URL")
	case u.Scheme == "" || u.Host == "":
		return refuse("not an absolute URL")
	case u.User != nil:
		return refuse("it carries userinfo")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return refuse("it carries a fragment")
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()) && serverLoopback:
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return refuse("plain HTTP to a loopback host, named by a server that is not on one")
	case u.Scheme == "http":
		return refuse("not HTTPS (plain HTTP is allowed only to a loopback host)")
	}
	return refuse("scheme " + strconv.Quote(u.Scheme) + " is not HTTPS")
}
