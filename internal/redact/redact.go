// Package redact keeps credentials out of what the runtime shows: error
// texts, log lines, span attributes and statuses, stderr excerpts. A server
// configuration carries secrets in places a user does not think of as
// secret (a URL's query, a user:password@ host, an environment value), and
// each of those ends up in a message sooner or later; every path that
// prints one goes through here (docs/configuration.md, "What is kept out
// of logs"). URL, Header and Text mask what the text itself marks as
// secret; a server's Masker (NewMasker) also masks the values of its own
// configuration, wherever they show, in the runtime's words or in the
// server's.
package redact

import (
	"net/url"
	"sort"
	"strings"
)

// Mask is what stands where a secret was.
const Mask = "REDACTED"

// secretWords are the parts of a query parameter's or a header's name that
// mark its value as a credential. Matching is on lower-cased names, by
// substring, so "X-Api-Key", "apiKey", "access_token" and "client_secret"
// are all caught; an over-eager match costs a masked value in a message,
// a missed one a leaked credential.
var secretWords = []string{
	"key", "token", "secret", "password", "passwd", "pwd", "auth", "credential",
	"signature", "sig", "session", "cookie", "code", "jwt", "bearer", "assertion",
}

// SecretName reports whether a query parameter or header named name
// carries a credential by its name.
func SecretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// URL returns raw with its credentials masked: the password of a
// user:password@ authority (and the user, which is often a token itself),
// the values of query parameters whose names mark them as secret
// (SecretName), the path segments that look like keys (LooksLikeKey), and
// any part a ${VAR} reference supplied (Expanded). Everything else
// (scheme, host, the rest of the path, other parameters) is kept, since it
// is what the user needs to recognise the server. A string that does not
// parse as a URL is shown as its scheme and host at most (unparsable),
// never as it was.
func URL(raw string) string {
	if raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil && (cutUserinfo(u.RawQuery) || cutUserinfo(u.EscapedFragment())) {
		return unparsable(raw)
	}
	if u.User != nil {
		u.User = url.User(Mask)
	}
	if u.RawQuery != "" {
		u.RawQuery = query(u.RawQuery)
	}
	if p, ok := maskPath(u.EscapedPath()); ok {
		if dec, err := url.PathUnescape(p); err == nil {
			u.Path, u.RawPath = dec, p
		}
	}
	// A fragment can carry parameters too (an implicit-flow redirect's
	// "#access_token=..."): the same rule applies to its key=value pairs.
	frag := ""
	if u.Fragment != "" || u.RawFragment != "" {
		frag = "#" + query(u.EscapedFragment())
		u.Fragment, u.RawFragment = "", ""
	}
	// url.URL.String escapes the mask's characters in neither place, but
	// a user "REDACTED" reads better without the '@' being mistaken for
	// part of the host: keep it as String writes it.
	out := u.String() + frag
	for _, v := range expandedIn(out) {
		out = strings.ReplaceAll(out, v, Mask)
	}
	return out
}

// cutUserinfo reports whether a URL's query or fragment is what a
// password holding '?' or '#' leaves behind when it parses: the
// "u:12#34@host" of a password "12#34" parses as the host u, the port 12
// and the fragment "34@host". An '@' before any '=' is taken for that, and
// the URL is shown as one that does not parse.
func cutUserinfo(part string) bool {
	at := strings.IndexByte(part, '@')
	return at >= 0 && !strings.Contains(part[:at], "=")
}

// query masks the secret parameters of a raw query, keeping the order and
// the encoding of the others.
func query(raw string) string {
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, _, hasValue := strings.Cut(p, "=")
		if !hasValue {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if SecretName(name) {
			key, _, _ := strings.Cut(p, "=")
			parts[i] = key + "=" + Mask
		}
	}
	return strings.Join(parts, "&")
}

// Header returns the value of the header name as it may be shown: masked
// when the name marks a credential (Authorization, X-Api-Key, Cookie, ...),
// else as it is.
func Header(name, value string) string {
	if value != "" && SecretName(name) {
		return Mask
	}
	return value
}

// minSecret is the shortest value Text masks: shorter ones ("1", "on",
// "dev") would mask ordinary words in a message and say nothing secret.
const minSecret = 6

// Text returns s with every occurrence of the given secret values masked,
// and every URL in it passed through URL. The values are what a server's
// configuration holds (environment values, header values): a server that
// prints its environment on stderr, or an error that quotes a request,
// must not carry them onward. Values shorter than six characters are not
// looked for.
//
// Longer values are replaced first, so that a value which is a prefix or a
// part of another (a token and the "Bearer token" header holding it) does
// not leave the longer one's remainder in the text.
func Text(s string, secrets ...string) string {
	if len(secrets) > 1 {
		secrets = append([]string(nil), secrets...)
		sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	}
	for _, v := range secrets {
		if len(v) >= minSecret && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	if !strings.Contains(s, "://") {
		return s
	}
	return urls(s)
}

// urls masks the credentials of each URL in free text: a URL runs from
// its scheme to the next space or quote.
func urls(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		end := i + 3
		for end < len(s) && !isURLEnd(s[end]) {
			end++
		}
		b.WriteString(s[:start])
		if start == i {
			b.WriteString(s[start:end]) // "://" without a scheme: not a URL
		} else {
			b.WriteString(URL(s[start:end]))
		}
		s = s[end:]
	}
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isURLEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`':
		return true
	}
	return false
}

// Values returns the values of m worth looking for with Text: an
// environment or a header map of a server's configuration. Besides each
// whole value it returns the credential part of a value written as
// "<scheme> <credential>" ("Bearer sk-...", "Basic dXNl...", "DPoP ..."):
// a server that echoes only the token ("invalid token sk-...") must not
// show it either. Parts shorter than minSecret are left out, as whole
// values are.
func Values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		if len(v) >= minSecret {
			out = append(out, v)
		}
		if c := credential(v); c != "" && c != v {
			out = append(out, c)
		}
	}
	return out
}

// credential returns the text after the first word of v (an auth scheme)
// when v has the "<word> <credential>" shape and the credential is long
// enough to look for, else "".
func credential(v string) string {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || scheme == "" {
		return ""
	}
	rest = strings.TrimSpace(rest)
	if len(rest) < minSecret {
		return ""
	}
	return rest
}
