package oauth

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// The assertion of GrantJWTBearer (the workload's JWT) and the ID-JAG of
// GrantCrossApp are bearer credentials for one authorization server:
// whoever receives them can present them. The MCP server names the
// authorization server, so a server could name one of its own, register
// there, and receive the assertion. Config.Issuer says which
// authorization server they may go to; nothing is read, exchanged or
// sent for another. As defence in depth, an assertion whose aud (read
// without verifying the signature: the client holds no key to verify it
// with, and the server it goes to does) does not name that server is not
// sent either (RFC 7523 section 3, item 3).

// ErrIssuerRequired fails GrantJWTBearer and GrantCrossApp without
// Config.Issuer. The error also matches errkind.ErrConfig (the root
// package's ErrConfig).
var ErrIssuerRequired = errors.New("oauth: the jwt_bearer and cross_app grants need Config.Issuer, the authorization server their assertions may go to")

// ErrAssertionAudience matches every *AudienceError.
var ErrAssertionAudience = errors.New("oauth: the assertion is not meant for this authorization server")

// AudienceError refuses to send an assertion whose aud claim does not
// name the authorization server it would go to. Its text names the
// audiences, never the assertion.
type AudienceError struct {
	What     string   // "the assertion from <source>", "the identity provider's ID-JAG"
	Issuer   string   // where it would have gone
	Audience []string // its aud claim; nil when it is not a JWT
}

func (e *AudienceError) Error() string {
	if e.Audience == nil {
		return "oauth: " + e.What + " is not a JWT with an aud claim; not sent to " + strconv.Quote(e.Issuer)
	}
	q := make([]string, len(e.Audience))
	for i, a := range e.Audience {
		q[i] = strconv.Quote(a)
	}
	return "oauth: " + e.What + " is meant for " + strings.Join(q, ", ") + ", not " + strconv.Quote(e.Issuer)
}

// Is makes errors.Is(err, ErrAssertionAudience) true.
func (e *AudienceError) Is(target error) bool { return target == ErrAssertionAudience }

// usesAssertion reports whether the configured grant sends an assertion
// to the authorization server.
func (c *Client) usesAssertion() bool {
	return c.cfg.Grant == GrantJWTBearer || c.cfg.Grant == GrantCrossApp
}

// assertionIssuer refuses, before an assertion is read or sent, an
// authorization server other than Config.Issuer for a grant that sends
// one, and such a grant without Config.Issuer.
func (c *Client) assertionIssuer(d *discovery) error {
	switch {
	case !c.usesAssertion():
		return nil
	case c.cfg.Issuer == "":
		return fmt.Errorf("%w (%w)", ErrIssuerRequired, errkind.ErrConfig)
	case d.issuer != c.cfg.Issuer:
		return &IssuerMismatchError{Where: c.cfg.Grant + " grant", Want: c.cfg.Issuer, Got: d.issuer}
	}
	return nil
}

// checkAudience refuses assertion unless its aud names the authorization
// server of d: its issuer, or its token endpoint, which RFC 7523 section
// 3 also allows.
func checkAudience(what, assertion string, d *discovery) error {
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(assertion, &claims); err != nil || len(claims.Audience) == 0 {
		return &AudienceError{What: what, Issuer: d.issuer}
	}
	trim := func(s string) string { return strings.TrimSuffix(s, "/") }
	if slices.ContainsFunc(claims.Audience, func(a string) bool {
		return trim(a) == trim(d.issuer) || d.meta.TokenEndpoint != "" && a == d.meta.TokenEndpoint
	}) {
		return nil
	}
	return &AudienceError{What: what, Issuer: d.issuer, Audience: claims.Audience}
}
