package redact

import (
	"errors"
	"net/url"
	"strings"
)

// A URL that does not parse cannot be told apart into the parts URL
// masks: a password holding '/', '?' or '#' ends the authority early, so
// that what net/url (or a reader) takes for the host, the port or the
// path is a piece of the password. Such a URL is shown as its scheme and
// host at most: the host only when nothing could have been userinfo (no
// '@' anywhere) and it is made of a host name's characters; everything
// after the host is masked.

// unparsable returns what may be shown of raw, a string url.Parse refused.
func unparsable(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !validScheme(scheme) {
		return Mask
	}
	if strings.Contains(rest, "@") {
		return scheme + "://" + Mask
	}
	end := strings.IndexAny(rest, "/?#\\")
	if end < 0 {
		end = len(rest)
	}
	host := hostOnly(rest[:end])
	if host == "" {
		return scheme + "://" + Mask
	}
	if host == rest {
		return scheme + "://" + host
	}
	return scheme + "://" + host + "/" + Mask
}

// hostOnly returns the host of an authority without its port, or "" when
// it is not made of a host name's (or a bracketed IPv6 address's)
// characters.
func hostOnly(authority string) string {
	host := authority
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return ""
		}
		host = host[:end+1]
		for _, c := range host[1:end] {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.') {
				return ""
			}
		}
		return host
	}
	host, _, _ = strings.Cut(host, ":")
	if host == "" {
		return ""
	}
	for _, c := range host {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '.' || c == '_') {
			return ""
		}
	}
	return host
}

// validScheme reports whether s is a URL scheme (RFC 3986 §3.1).
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// ParseProblem says why raw does not parse as a URL, in words that quote
// no part of it (net/url's errors quote the bad port or escape, which may
// be a piece of a password), or "" when it parses.
func ParseProblem(raw string) string {
	_, err := url.Parse(raw)
	if err == nil {
		return ""
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	var p string
	switch {
	case strings.HasPrefix(msg, "invalid port"):
		p = "has an invalid port"
	case strings.HasPrefix(msg, "invalid URL escape"):
		p = "has an invalid %-escape"
	case strings.Contains(msg, "invalid userinfo"):
		p = "has an invalid user:password part"
	case strings.Contains(msg, "in host name"):
		p = "has an invalid character in its host name"
	case strings.Contains(msg, "control character"):
		p = "contains a control character"
	case strings.Contains(msg, "missing protocol scheme"):
		p = "has no scheme"
	case strings.Contains(msg, "first path segment"):
		p = "has no scheme and a colon in its first path segment"
	case strings.Contains(msg, "IP-literal"), strings.Contains(msg, "missing ']'"):
		p = "has an invalid IPv6 host"
	default:
		p = "does not parse"
	}
	if strings.Contains(raw, "@") {
		// The usual cause: a password with a reserved character.
		p += " (a user or password holding '/', '?', '#', '@' or '%' must be %-escaped)"
	}
	return p
}
