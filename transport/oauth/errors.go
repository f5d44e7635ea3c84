package oauth

import (
	"errors"
	"strconv"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// ErrAuthorizationRequired matches every *AuthorizationRequiredError.
var ErrAuthorizationRequired = errors.New("authorization required")

// AuthorizationRequiredError fails a request that needs the user to
// authorize (the authorization code flow) when the Client has no UserStep:
// the request fails at once rather than waiting for a user nobody asked.
// Send the user to URL; the redirect's query, given to Client.Complete,
// finishes the flow, and the next request carries the token. Its text
// leaves URL out: the state in it is what completes the flow, and error
// texts end up in logs and spans.
type AuthorizationRequiredError struct {
	Server   string // the MCP endpoint
	Identity string // whom the request acts for
	Issuer   string // the authorization server
	URL      string // the authorization request, for the user alone (its state completes the flow)
	State    string // the state parameter of URL, which Complete matches
}

func (e *AuthorizationRequiredError) Error() string {
	return "oauth: authorization required for " + redact.URL(e.Server) + " (identity " + strconv.Quote(e.Identity) + "): send the user to the error's URL"
}

// Is makes errors.Is(err, ErrAuthorizationRequired) true.
func (e *AuthorizationRequiredError) Is(target error) bool { return target == ErrAuthorizationRequired }

// ErrWrongIdentity refuses to complete an authorization for an identity
// other than the one it was started for (Client.Complete).
var ErrWrongIdentity = errors.New("oauth: the authorization was started for another identity")

// ErrResourceMismatch matches every *ResourceMismatchError.
var ErrResourceMismatch = errors.New("protected resource metadata names another resource")

// ResourceMismatchError refuses protected resource metadata whose resource
// is not the server being connected to (RFC 9728 section 3.3): a token
// obtained for it would be a token for another server.
type ResourceMismatchError struct {
	Server   string // the MCP endpoint
	Resource string // what the metadata named
}

func (e *ResourceMismatchError) Error() string {
	return "oauth: the protected resource metadata of " + e.Server + " names the resource " + strconv.Quote(e.Resource)
}

// Is makes errors.Is(err, ErrResourceMismatch) true.
func (e *ResourceMismatchError) Is(target error) bool { return target == ErrResourceMismatch }

// ErrIssuerMismatch matches every *IssuerMismatchError.
var ErrIssuerMismatch = errors.New("issuer mismatch")

// IssuerMismatchError refuses authorization server metadata whose issuer
// is not the issuer its URL was built from (RFC 8414 section 3.3), or an
// authorization response whose iss is not the issuer the request went to
// (RFC 9207 section 2.4): either is how a mix-up attack looks.
type IssuerMismatchError struct {
	Where string // the metadata URL, or "authorization response"
	Want  string
	Got   string
}

func (e *IssuerMismatchError) Error() string {
	return "oauth: " + e.Where + ": issuer " + strconv.Quote(e.Got) + ", want " + strconv.Quote(e.Want)
}

// Is makes errors.Is(err, ErrIssuerMismatch) true.
func (e *IssuerMismatchError) Is(target error) bool { return target == ErrIssuerMismatch }

// ErrNoPKCE fails the authorization code flow with a server whose metadata
// does not offer PKCE with S256: the specification has the client refuse
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-code-protection).
var ErrNoPKCE = errors.New("oauth: the authorization server does not support PKCE with S256")

// ErrStateMismatch fails an authorization response whose state is not the
// request's (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#open-redirection).
var ErrStateMismatch = errors.New("oauth: authorization response state does not match")

// ErrNoClient fails a flow with no client identity: no pre-registered
// client, no client ID metadata document the server takes, and no
// registration endpoint.
var ErrNoClient = errors.New("oauth: no client identity for this authorization server (configure a client id)")

// ErrInsecureEndpoint refuses a URL a server supplied for the
// authorization flow (resource metadata, issuer, endpoints) that is
// neither HTTPS nor on a loopback address, or carries userinfo or a
// fragment; *URLRefusedError matches it.
var ErrInsecureEndpoint = errors.New("oauth: authorization server endpoint is not HTTPS")

// ErrNoRefreshToken: the token cannot be refreshed.
var ErrNoRefreshToken = errors.New("oauth: no refresh token")

// ErrDiscovery matches every *DiscoveryError.
var ErrDiscovery = errors.New("oauth: discovery failed")

// DiscoveryError is a failed metadata discovery: none of the URLs tried
// answered with a usable document.
type DiscoveryError struct {
	What  string   // "protected resource metadata" or "authorization server metadata"
	Tried []string // the URLs asked
	Err   error    // the last failure
}

func (e *DiscoveryError) Error() string {
	s := "oauth: no " + e.What
	if len(e.Tried) > 0 {
		s += " at " + redact.URL(e.Tried[0])
		if len(e.Tried) > 1 {
			s += " (and " + strconv.Itoa(len(e.Tried)-1) + " more)"
		}
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *DiscoveryError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrDiscovery) true.
func (e *DiscoveryError) Is(target error) bool { return target == ErrDiscovery }

// TokenError is an error answer of a token or registration endpoint (RFC
// 6749 section 5.2): its code and description, never its body, which is
// the authorization server's to fill.
type TokenError struct {
	Endpoint    string
	Grant       string // the grant_type asked for, or "registration"
	Status      int
	Code        string // invalid_grant, invalid_client...
	Description string
}

func (e *TokenError) Error() string {
	s := "oauth: " + e.Grant + " at " + e.Endpoint + " failed"
	if e.Status != 0 {
		s += " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// AuthorizationError is an error answer of the authorization endpoint
// (RFC 6749 section 4.1.2.1), the user's refusal among them.
type AuthorizationError struct {
	Code        string // access_denied...
	Description string
}

func (e *AuthorizationError) Error() string {
	s := "oauth: authorization refused: " + e.Code
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}
