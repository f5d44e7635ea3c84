package oauth

import (
	"net/http"
	"slices"
	"strings"
)

// Challenge is the Bearer or DPoP challenge of a 401 or 403 answer: what
// the server asked for in WWW-Authenticate
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#protected-resource-metadata-discovery-requirements,
// RFC 6750 section 3, RFC 9728 section 5.1, RFC 9449 section 7.1).
type Challenge struct {
	// Scheme is "Bearer" or "DPoP", as the server wrote it.
	Scheme string
	// ResourceMetadata is the URL of the protected resource metadata.
	ResourceMetadata string
	// Scope holds the scopes the request needs, space-separated. The
	// specification makes them authoritative for the request, whatever
	// scopes_supported says.
	Scope string
	// Error is the error code: invalid_token, insufficient_scope...
	Error            string
	ErrorDescription string
}

// Scopes returns Scope split on spaces.
func (c Challenge) Scopes() []string { return strings.Fields(c.Scope) }

// ParseChallenge reads the Bearer or DPoP challenge of a response's
// WWW-Authenticate fields. A field may hold several challenges (RFC 9110
// section 11.6.1) and a response several fields; the first Bearer or
// DPoP challenge wins (a server that takes DPoP-bound tokens may offer
// only a DPoP challenge, with the same parameters). It reports false when
// there is none.
func ParseChallenge(h http.Header) (Challenge, bool) {
	return parseChallenge(h, "Bearer", "DPoP")
}

func parseChallenge(h http.Header, schemes ...string) (Challenge, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		for _, c := range parseChallenges(v) {
			if !slices.ContainsFunc(schemes, func(s string) bool { return strings.EqualFold(s, c.scheme) }) {
				continue
			}
			return Challenge{
				Scheme:           c.scheme,
				ResourceMetadata: c.params["resource_metadata"],
				Scope:            c.params["scope"],
				Error:            c.params["error"],
				ErrorDescription: c.params["error_description"],
			}, true
		}
	}
	return Challenge{}, false
}

type rawChallenge struct {
	scheme string
	params map[string]string // names lower-cased
}

// parseChallenges splits one WWW-Authenticate value into challenges:
//
//	challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param = token BWS "=" BWS ( token / quoted-string )
//
// A comma separates both parameters and challenges; a name not followed by
// "=" starts the next challenge. Malformed input ends the parse with what
// was read, rather than failing: a challenge is a hint, and the worst a
// bad one does is leave a hint out.
func parseChallenges(s string) []rawChallenge {
	var out []rawChallenge
	p := &parser{s: s}
	for {
		p.skip(" \t,")
		scheme := p.token()
		if scheme == "" {
			return out
		}
		c := rawChallenge{scheme: scheme, params: map[string]string{}}
		for {
			p.skip(" \t")
			save := p.i
			name := p.token()
			if name == "" {
				// token68 (base64 with '=' padding) or junk: skip to the
				// next comma.
				if i := strings.IndexByte(p.s[p.i:], ','); i >= 0 {
					p.i += i
				} else {
					p.i = len(p.s)
				}
				break
			}
			p.skip(" \t")
			if !p.eat('=') {
				p.i = save // the next challenge's scheme
				break
			}
			p.skip(" \t")
			var value string
			if p.peek() == '"' {
				value = p.quoted()
			} else {
				value = p.bare()
			}
			c.params[strings.ToLower(name)] = value
			p.skip(" \t")
			if !p.eat(',') {
				break
			}
		}
		out = append(out, c)
		if p.i >= len(p.s) {
			return out
		}
	}
}

type parser struct {
	s string
	i int
}

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) eat(b byte) bool {
	if p.peek() == b && p.i < len(p.s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// token reads a tchar run (RFC 9110 section 5.6.2).
func (p *parser) token() string {
	start := p.i
	for p.i < len(p.s) && isTChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// bare reads an unquoted value up to the next comma or white space:
// wider than a token, because some servers write URLs unquoted.
func (p *parser) bare() string {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte(", \t", p.s[p.i]) < 0 {
		p.i++
	}
	return p.s[start:p.i]
}

// quoted reads a quoted-string, undoing quoted-pairs.
func (p *parser) quoted() string {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && p.i < len(p.s):
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isTChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/", c) >= 0 // '/' for token68
}
