// Package reach holds the checks of how a server is reached (its name,
// its transport, its command or URL), shared by the configuration given
// in code (actors.Spec.Validate) and the one read from files
// (supervisor/config), so that both report a problem in the same words
// (docs/configuration.md, "Server entries").
package reach

import (
	"fmt"
	"net/url"
	"regexp"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// The transport types a server may select.
const (
	Stdio  = "stdio"
	HTTP   = "http"
	SSE    = "sse"
	Stream = "stream" // stdio's framing over a stream only code can give
)

// Target is what the checks read of a server's configuration.
type Target struct {
	Type    string // as configured; empty chooses by the fields set (Kind)
	Command string
	URL     string
	Dial    bool // a stream is given in code
}

// Kind returns the transport t selects: its Type, else Stream when it
// has only a dial, else HTTP when it gives only a URL, else Stdio.
func (t Target) Kind() string {
	switch {
	case t.Dial && t.Type == "":
		return Stream
	case t.Type != "":
		return t.Type
	case t.Command == "" && t.URL != "":
		return HTTP
	default:
		return Stdio
	}
}

// serverName is what a server may be called: it is part of exposed tool
// names (mcp__<server>__<tool>), of telemetry and of cache file names.
var serverName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// ValidName reports whether name is a valid server name: 1 to 100
// letters, digits, '-', '_' or '.'.
func ValidName(name string) bool { return serverName.MatchString(name) }

// NameProblem is the configuration problem of an invalid server name.
func NameProblem(name string) string {
	return fmt.Sprintf("Server %q: name must be 1 to 100 letters, digits, '-', '_' or '.'", name)
}

// Problems says what keeps the server name from reaching its server as
// t says, one sentence a problem (none: it can be tried).
func Problems(name string, t Target) []string {
	var problems []string
	if t.Command != "" && t.URL != "" {
		problems = append(problems, fmt.Sprintf(`Server %q: both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both`, name))
	}
	switch k := t.Kind(); k {
	case Stream:
		if t.Command != "" || t.URL != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "dial" is set together with "command" or "url" - choose one way to reach the server`, name))
		}
	case Stdio:
		if t.Command == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: stdio server requires "command" field`, name))
		}
	case HTTP, SSE:
		if t.URL == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: %s server requires "url" field`, name, k))
		} else if p := urlProblem(t.URL); p != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "url" %s`, name, p))
		}
	default:
		problems = append(problems, fmt.Sprintf(`Server %q: unknown server type %q`, name, k))
	}
	return problems
}

// urlProblem says what makes raw unusable as an http server's endpoint, in
// words that quote no part of it (it may carry a credential).
func urlProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a valid URL: " + redact.ParseProblem(raw) // net/url's text quotes a piece of it
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("must be an http or https URL (the scheme is %q)", u.Scheme)
	case u.Host == "":
		return "has no host"
	}
	return ""
}
