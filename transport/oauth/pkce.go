package oauth

import (
	"crypto/rand"
	"slices"

	"golang.org/x/oauth2"
)

// PKCE (RFC 7636) with S256 is required of every MCP client, and a server
// whose metadata does not offer it is refused
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-code-protection).
// golang.org/x/oauth2 makes the verifier (32 random bytes, base64url) and
// the challenge.

// supportsS256 reports whether the authorization code flow may proceed
// with the server: its metadata lists S256, or it has no metadata at all
// (the 2025-03-26 fallback, a revision that required PKCE of every
// server).
func supportsS256(d *discovery) bool {
	return d.noMetadata || slices.Contains(d.meta.CodeChallengeMethodsSupported, "S256")
}

// newVerifier returns a PKCE code verifier.
func newVerifier() string { return oauth2.GenerateVerifier() }

// newState returns a state parameter: 128 random bits, which bind the
// authorization response to the request that asked for it.
func newState() string { return rand.Text() }
