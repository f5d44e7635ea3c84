package config

import (
	"fmt"
	"net/url"
	"regexp"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// The checks of how an entry reaches its server, made when the file is
// read so that an entry that cannot work is reported with the file's
// other problems (docs/configuration.md, "Server entries"). They are the
// checks the client makes of a configuration given in code, in the same
// words, for the fields a file can write.

// serverName is what a server may be called: it is part of exposed tool
// names (mcp__<server>__<tool>), of telemetry and of cache file names.
var serverName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

func validName(name string) bool { return serverName.MatchString(name) }

func nameProblem(name string) string {
	return fmt.Sprintf("Server %q: name must be 1 to 100 letters, digits, '-', '_' or '.'", name)
}

// TransportType returns the transport the entry selects: its Type, else
// "http" when it gives only a URL, else "stdio".
func (e *Entry) TransportType() string {
	switch {
	case e.Type != "":
		return e.Type
	case e.Command == "" && e.URL != "":
		return "http"
	default:
		return "stdio"
	}
}

// reachProblems says what keeps the entry from reaching its server.
func (e *Entry) reachProblems() []string {
	var problems []string
	if e.Command != "" && e.URL != "" {
		problems = append(problems, fmt.Sprintf(`Server %q: both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both`, e.Name))
	}
	switch t := e.TransportType(); t {
	case "stream": // stdio's framing over a stream only code can give
		if e.Command != "" || e.URL != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "dial" is set together with "command" or "url" - choose one way to reach the server`, e.Name))
		}
	case "stdio":
		if e.Command == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: stdio server requires "command" field`, e.Name))
		}
	case "http", "sse":
		if e.URL == "" {
			problems = append(problems, fmt.Sprintf(`Server %q: %s server requires "url" field`, e.Name, t))
		} else if p := urlProblem(e.URL); p != "" {
			problems = append(problems, fmt.Sprintf(`Server %q: "url" %s`, e.Name, p))
		}
	default:
		problems = append(problems, fmt.Sprintf(`Server %q: unknown server type %q`, e.Name, t))
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
