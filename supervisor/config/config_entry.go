package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// The reading of one server entry, shared by every source: a dialect
// renames the fields of another tool's format to ours, then one decoder
// checks types, expands variables, fills in defaults and validates
// (docs/configuration.md, "Server entries").

// knownFields are the fields of our format, in the order they are decoded
// (so that problems come in a stable order).
var knownFields = []string{"type", "command", "args", "env", "cwd", "url", "headers", "enabled",
	"timeout", "connectTimeout", "requestTimeout", "maxInFlight", "queueTimeout", "restart",
	"protocolVersion", "keepalive", "auth", "enabledTools", "disabledTools", "inheritEnv"}

var restartFields = []string{"maxRestarts", "window", "backoffMin", "backoffMax"}

var authFields = []string{"type", "credentialId", "clientId", "clientSecret", "privateKeyFile", "signingAlgorithm",
	"clientMetadataUrl", "issuer", "redirectUri", "redirectPort", "scopes", "grant", "tokenStore"}

// dialect renames the fields of one tool's entry to ours, in place.
// Warnings and problems name fields, never values.
type dialect interface {
	translate(name string, fields map[string]json.RawMessage) (warnings, problems []string)
}

// jsonDialect is our format, which Claude Code, Cursor, VS Code and the
// plain mcp.json share.
type jsonDialect struct{}

func (jsonDialect) translate(string, map[string]json.RawMessage) (_, _ []string) { return }

// parseEntry reads one JSON entry. A non-empty problems means the entry is
// invalid; the Entry is then nil.
func parseEntry(name string, raw json.RawMessage, d dialect, src Source, lookup func(string) (string, bool)) (*Entry, []string) {
	if !validName(name) {
		return nil, []string{nameProblem(name)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, []string{fmt.Sprintf("Server %q: the entry must be a JSON object", name)}
	}
	hash, err := canonicalHash(raw)
	if err != nil {
		return nil, []string{fmt.Sprintf("Server %q: %v", name, err)}
	}
	warnings, problems := d.translate(name, fields)
	return buildEntry(name, fields, hash, src, lookup, warnings, problems)
}

// buildEntry decodes fields (our names) into an Entry.
func buildEntry(name string, fields map[string]json.RawMessage, hash string, src Source,
	lookup func(string) (string, bool), warnings, problems []string) (*Entry, []string) {
	d := &entryDecoder{server: name, fields: fields, problems: problems}
	x := &expander{server: name, lookup: lookup}
	s := &Entry{Name: name, Enabled: true, Source: src, Hash: hash}
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(knownFields, k) {
			warnings = append(warnings, unknownField(name, k, knownFields))
			if s.Extra == nil {
				s.Extra = map[string]json.RawMessage{}
			}
			s.Extra[k] = fields[k]
		}
	}
	d.get("type", &s.Type, "a string")
	if d.get("command", &s.Command, "a string") {
		s.Command = x.expand(s.Command)
	}
	if d.get("args", &s.Args, "a list of strings") {
		for i, a := range s.Args {
			s.Args[i] = x.expand(a)
		}
	}
	bang := runsCommands(src)
	if d.get("env", &s.Env, "an object of strings") {
		s.Commands = append(s.Commands, d.values("env", s.Env, x, bang)...)
	}
	d.get("cwd", &s.Cwd, "a string")
	if d.get("url", &s.URL, "a string") {
		s.URL = x.expandSecret(s.URL)
	}
	if d.get("headers", &s.Headers, "an object of strings") {
		s.Commands = append(s.Commands, d.values("headers", s.Headers, x, bang)...)
	}
	var enabled bool
	if d.get("enabled", &enabled, "true or false") {
		s.Enabled = enabled
	}
	// "timeout" alone sets both, as other clients read it; the specific
	// fields win.
	timeout, _ := d.millis("timeout")
	s.ConnectTimeout, s.RequestTimeout = timeout, timeout
	if v, ok := d.millis("connectTimeout"); ok {
		s.ConnectTimeout = v
	}
	if v, ok := d.millis("requestTimeout"); ok {
		s.RequestTimeout = v
	}
	d.count("maxInFlight", &s.MaxInFlight)
	if v, ok := d.millis("queueTimeout"); ok && v > 0 {
		s.QueueTimeout = v
	}
	d.restart(&s.Restart, &warnings)
	d.get("protocolVersion", &s.ProtocolVersion, "a string")
	s.Keepalive, _ = d.millis("keepalive")
	s.Auth = d.auth(&warnings, x, &s.Identity)
	d.get("enabledTools", &s.EnabledTools, "a list of strings")
	d.get("disabledTools", &s.DisabledTools, "a list of strings")
	d.inheritEnv(&s.InheritEnv)

	// A disabled entry is not checked for how to reach it: "enabled":
	// false is how a half-written entry is parked.
	if s.Enabled && len(d.problems) == 0 {
		d.problems = append(d.problems, s.reachProblems()...)
	}
	if len(d.problems) > 0 {
		// An invalid entry's warnings are not shown on their own; the
		// unknown fields among them are often why it is invalid (a
		// misspelled "command"), so they go with its problems.
		for _, k := range sortedKeys(s.Extra) {
			d.problems = append(d.problems, unknownField(name, k, knownFields))
		}
		return nil, d.problems
	}
	s.Warnings = append(warnings, x.warnings...)
	return s, nil
}

// entryDecoder reads the fields of one entry, collecting problems.
type entryDecoder struct {
	server   string
	prefix   string // "restart." inside the restart object
	fields   map[string]json.RawMessage
	problems []string
}

func (d *entryDecoder) fail(key, format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf("Server %q: %q ", d.server, d.prefix+key)+fmt.Sprintf(format, args...))
}

// get decodes a field that is present and not null; it reports whether it
// did.
func (d *entryDecoder) get(key string, into any, want string) bool {
	raw, ok := d.fields[key]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return false
	}
	if err := json.Unmarshal(raw, into); err != nil {
		d.fail(key, "must be %s", want)
		return false
	}
	return true
}

// millis decodes a duration written in milliseconds (fractions allowed).
func (d *entryDecoder) millis(key string) (time.Duration, bool) {
	var ms float64
	if !d.get(key, &ms, "a number of milliseconds") {
		return 0, false
	}
	switch {
	case ms < 0:
		d.fail(key, "must not be negative")
		return 0, false
	case ms > float64(math.MaxInt64/int64(time.Millisecond)):
		d.fail(key, "is too large")
		return 0, false
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

func (d *entryDecoder) count(key string, into *int) bool {
	var n int
	if !d.get(key, &n, "a whole number") {
		return false
	}
	if n < 0 {
		d.fail(key, "must not be negative")
		return false
	}
	*into = n
	return true
}

// runsCommands reports whether a leading '!' makes a value a command in
// entries of this source: only in our own format (the native files, and a
// file given explicitly), never in another tool's file, where '!' is a
// character like any other (a password may begin with it), and running it
// through the shell would run whatever that tool's file holds.
func runsCommands(src Source) bool {
	return src.Kind == sourceNative || src.Kind == sourceConfigFile
}

// values expands a map of env or header values, except, where bang is
// set, those written with a leading '!': those are commands, returned for
// Resolve and kept as written. Variables inside a command are left to the
// shell.
func (d *entryDecoder) values(field string, m map[string]string, x *expander, bang bool) []Command {
	var cmds []Command
	for _, k := range sortedKeys(m) {
		v := m[k]
		if line, ok := strings.CutPrefix(v, "!"); ok && bang {
			if strings.TrimSpace(line) == "" {
				d.fail(field, "value of %q is '!' without a command", k)
				continue
			}
			cmds = append(cmds, Command{Field: field, Key: k, Line: line})
			continue
		}
		m[k] = x.expand(v)
	}
	return cmds
}

func (d *entryDecoder) object(key string, known []string, warnings *[]string) *entryDecoder {
	var fields map[string]json.RawMessage
	if !d.get(key, &fields, "an object") || fields == nil {
		return nil
	}
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(known, k) {
			*warnings = append(*warnings, unknownField(d.server, key+"."+k, prefixed(key, known)))
		}
	}
	return &entryDecoder{server: d.server, prefix: key + ".", fields: fields}
}

// restart reads "restart" into p as written: a field left out stays zero
// (its default, which the manager applies), and a written "maxRestarts": 0, which
// means no restart, is kept as -1, what says so in a RestartPolicy.
func (d *entryDecoder) restart(p *RestartPolicy, warnings *[]string) {
	r := d.object("restart", restartFields, warnings)
	if r == nil {
		return
	}
	if r.count("maxRestarts", &p.MaxRestarts) && p.MaxRestarts == 0 {
		p.MaxRestarts = -1
	}
	if v, ok := r.millis("window"); ok {
		p.Window = v
	}
	if v, ok := r.millis("backoffMin"); ok {
		p.BackoffMin = v
	}
	if v, ok := r.millis("backoffMax"); ok {
		p.BackoffMax = v
	}
	if len(r.problems) == 0 && p.BackoffMax > 0 && p.BackoffMin > p.BackoffMax {
		r.fail("backoffMin", "must not exceed \"restart.backoffMax\" (%v > %v)", p.BackoffMin, p.BackoffMax)
	}
	d.problems = append(d.problems, r.problems...)
}

// inheritEnv reads "inheritEnv": "all" (the default, kept as ""), "safe"
// or "none".
func (d *entryDecoder) inheritEnv(into *string) {
	var v string
	if !d.get("inheritEnv", &v, `"all", "safe" or "none"`) {
		return
	}
	switch v {
	case "all", "":
		*into = ""
	case "safe", "none":
		*into = v
	default:
		d.fail("inheritEnv", `must be "all", "safe" or "none", not %q`, v)
	}
}

// auth reads "auth"; its "credentialId" is the server's identity.
func (d *entryDecoder) auth(warnings *[]string, x *expander, identity *string) *Auth {
	a := d.object("auth", authFields, warnings)
	if a == nil {
		return nil
	}
	out := &Auth{}
	a.get("type", &out.Type, "a string")
	switch out.Type {
	case "oauth", "apikey":
	case "":
		a.fail("type", `is required ("oauth" or "apikey")`)
	default:
		a.fail("type", `must be "oauth" or "apikey", not %q`, out.Type)
	}
	for key, into := range map[string]*string{"credentialId": identity, "clientId": &out.ClientID, "clientSecret": &out.ClientSecret,
		"privateKeyFile": &out.PrivateKeyFile, "signingAlgorithm": &out.SigningAlgorithm,
		"clientMetadataUrl": &out.ClientMetadataURL, "issuer": &out.Issuer, "redirectUri": &out.RedirectURI,
		"grant": &out.Grant, "tokenStore": &out.TokenStore} {
		if a.get(key, into, "a string") {
			*into = x.expand(*into)
		}
	}
	if raw, ok := a.fields["scopes"]; ok {
		var list []string
		if json.Unmarshal(raw, &list) == nil {
			out.Scopes = strings.Join(list, " ")
		} else {
			a.get("scopes", &out.Scopes, "a list of strings or a space-separated string")
		}
		out.Scopes = x.expand(out.Scopes)
	}
	if a.count("redirectPort", &out.RedirectPort) && out.RedirectPort > 65535 {
		a.fail("redirectPort", "must be a port number")
	}
	switch out.Grant {
	case "", "authorization_code", "client_credentials":
	default:
		a.fail("grant", `must be "authorization_code" or "client_credentials", not %q`, out.Grant)
	}
	slices.Sort(a.problems) // the map above is visited in random order
	d.problems = append(d.problems, a.problems...)
	return out
}

// expander resolves ${VAR} and ${VAR:-default}; bare $VAR is left alone. An
// unset variable without a default stays as written and is reported once
// per server, by name.
type expander struct {
	server   string
	lookup   func(string) (string, bool)
	warnings []string
}

var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

func (x *expander) expand(s string) string { return x.expandNoting(s, false) }

// expandSecret expands s and notes each substituted value with
// redact.Expanded, so that wherever the result is shown (a URL in an
// error, a status, a span) what a variable held is masked: users keep in
// variables what they do not want written down. See docs/configuration.md.
func (x *expander) expandSecret(s string) string { return x.expandNoting(s, true) }

func (x *expander) expandNoting(s string, secret bool) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return reference.ReplaceAllStringFunc(s, func(ref string) string {
		m := reference.FindStringSubmatch(ref)
		if v, ok := x.lookup(m[1]); ok {
			if secret {
				return redact.Expanded(v)
			}
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		w := fmt.Sprintf("Server %q: environment variable %s is not set", x.server, m[1])
		if !slices.Contains(x.warnings, w) {
			x.warnings = append(x.warnings, w)
		}
		return ref
	})
}

// jsonProblem describes a JSON decoding error by line, without quoting the
// document (it may hold secrets).
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %s", line, se.Error())
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("%q must be an object (it is a JSON %s)", te.Field, te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("the document must be a JSON object (it is a JSON %s)", te.Value)
	}
	return err.Error()
}
