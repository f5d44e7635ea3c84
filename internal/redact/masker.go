package redact

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"
)

// Masker masks the credentials of one server's configuration wherever
// they appear: the values of its environment and headers (and the
// credential part of a "<scheme> <credential>" header value), the secrets
// of its URL (user and password, secret query parameters, key-like path
// segments, parts a ${VAR} supplied), in every form a server may echo them
// back (as written, %-escaped, JSON-escaped). It is built once per server,
// from its configuration, and applied where text leaves the runtime:
// errors (Error), log records (Handler), span descriptions and events
// (Text). Its methods are safe for concurrent use; a nil *Masker masks
// the credentials of URLs only (Text).
//
// Values shorter than six characters are not looked for: "1", "true" or
// "dev" would mask ordinary words and are no credential worth the name.
//
// The forms are worked out when the Masker is first used, not when it is
// made: every server has one, most never mask anything (a runtime with
// hundreds of healthy servers has no error to mask), and each value of an
// environment comes in up to four forms, which would be a few KB per
// server kept for nothing.
type Masker struct {
	name string // the server's name: shown everywhere, never a secret
	cfg  Config // read once, by build; shares the configuration's memory

	once    sync.Once
	secrets []string // longest first; set by build
}

// Config is what NewMasker reads of a server's configuration.
type Config struct {
	// Name is the server's name; a value equal to it is not masked (it
	// names the server in every message).
	Name    string
	URL     string
	Headers map[string]string
	Env     map[string]string
	// Args are a stdio server's arguments: the parts of them a ${VAR}
	// supplied are masked.
	Args []string
}

// NewMasker returns the Masker of the server c describes. It keeps c
// (its maps and slices, not copies) until the first use, which must
// therefore not race with a change to them: a server's configuration is
// not changed once the server is made.
func NewMasker(c Config) *Masker {
	return &Masker{name: c.Name, cfg: c}
}

// list returns the forms to look for, working them out on the first call.
func (m *Masker) list() []string {
	m.once.Do(m.build)
	return m.secrets
}

// build works out the secrets of m.cfg in every form, and lets the
// configuration go.
func (m *Masker) build() {
	c := m.cfg
	m.cfg = Config{}
	seen := make(map[string]struct{})
	add := func(v string) {
		for _, form := range forms(v) {
			if len(form) < minSecret || form == c.Name || strings.Contains(Mask, form) {
				continue
			}
			if _, ok := seen[form]; !ok {
				seen[form] = struct{}{}
				m.secrets = append(m.secrets, form)
			}
		}
	}
	for _, v := range Values(c.Env) {
		add(v)
	}
	for _, v := range Values(c.Headers) {
		add(v)
	}
	for _, v := range urlSecrets(c.URL) {
		add(v)
	}
	for _, v := range expandedIn(c.URL) {
		add(v)
	}
	for _, a := range c.Args {
		for _, v := range expandedIn(a) {
			add(v)
		}
	}
	sortLongestFirst(m.secrets)
}

// forms are the ways v may come back in a server's text: as it is,
// %-escaped (in a URL it quotes) and JSON-escaped (in a JSON-RPC error's
// data).
func forms(v string) []string {
	out := []string{v}
	if q := url.QueryEscape(v); q != v {
		out = append(out, q)
	}
	if p := url.PathEscape(v); p != v {
		out = append(out, p)
	}
	if b, err := json.Marshal(v); err == nil {
		if j := string(b[1 : len(b)-1]); j != v {
			out = append(out, j)
		}
	}
	return out
}

// urlSecrets returns the secrets of a configured URL: its user and
// password, the values of its secret query and fragment parameters, its
// key-like path segments. They are read from what parses and, for the
// userinfo, from the raw text as well: a password holding a '/' or a '#'
// is not where net/url looks for it.
func urlSecrets(raw string) []string {
	if raw == "" {
		return nil
	}
	var out []string
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			info := rest[:at]
			out = append(out, info)
			user, pass, _ := strings.Cut(info, ":")
			out = append(out, user, pass)
			if d, err := url.PathUnescape(pass); err == nil {
				out = append(out, d)
			}
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	if u.User != nil {
		out = append(out, u.User.Username())
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	out = append(out, paramSecrets(u.RawQuery)...)
	out = append(out, paramSecrets(u.EscapedFragment())...)
	return append(out, pathKeys(u.EscapedPath())...)
}

// paramSecrets returns the values, as written and unescaped, of the
// parameters of a raw query whose names mark them as secret.
func paramSecrets(raw string) []string {
	var out []string
	for _, p := range strings.Split(raw, "&") {
		name, value, ok := strings.Cut(p, "=")
		if !ok || value == "" {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if SecretName(name) {
			out = append(out, value)
			if v, err := url.QueryUnescape(value); err == nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// Text returns s with the server's credentials masked, and the
// credentials of every URL in it (as Text does).
func (m *Masker) Text(s string) string {
	if m == nil {
		return Text(s)
	}
	for _, v := range m.list() {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	if strings.Contains(s, cutMark) {
		s = m.cutEdges(s)
	}
	if !strings.Contains(s, "://") {
		return s
	}
	return urls(s)
}

// cutMark is what an excerpt puts where it was cut (an HTTP body's past
// 200 bytes, the middle of a long stderr).
const cutMark = "..."

// cutEdges masks what is left of a secret where an excerpt was cut: the
// start of one just before a cutMark, the end of one just after it, six
// characters or more. An excerpt masks the values it knows before it
// cuts; this catches the ones only the Masker knows (a URL's key that a
// server's error page quotes).
func (m *Masker) cutEdges(s string) string {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, cutMark)
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		before, after := rest[:i], rest[i+len(cutMark):]
		if n := m.longestEdge(before, true); n > 0 {
			before = before[:len(before)-n] + Mask
		}
		b.WriteString(before)
		b.WriteString(cutMark)
		if n := m.longestEdge(after, false); n > 0 {
			b.WriteString(Mask)
			after = after[n:]
		}
		rest = after
	}
}

// longestEdge returns the length of the longest part of a secret (its
// start when tail is set, its end otherwise) that s ends with (tail) or
// starts with, or 0 when none of six characters or more does.
func (m *Masker) longestEdge(s string, tail bool) int {
	best := 0
	for _, v := range m.list() {
		for n := min(len(v)-1, len(s)); n >= minSecret && n > best; n-- {
			if tail && strings.HasSuffix(s, v[:n]) || !tail && strings.HasPrefix(s, v[len(v)-n:]) {
				best = n
				break
			}
		}
	}
	return best
}
