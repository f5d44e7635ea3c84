// Package supervisor will hold the manager actor: discovery, the startup
// gate, the tool-list cache and restarts (docs/architecture.md). Today it holds
// the reading of server configuration files, which discovery builds on.
package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/actors"
)

// File is a parsed {"mcpServers": {...}} configuration, the format other
// MCP clients use too (README, "The demo": --config).
type File struct {
	Servers  map[string]actors.ServerConfig
	Disabled []string // servers with "enabled": false
	Warnings []string // unknown fields, unset variables: reported, never fatal
}

// Names returns the enabled servers' names in sorted order.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// rawServer is one entry as written. Times are milliseconds.
type rawServer struct {
	Type            string            `json:"type"`
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	Env             map[string]string `json:"env"`
	Cwd             string            `json:"cwd"`
	URL             string            `json:"url"`
	Headers         map[string]string `json:"headers"`
	Enabled         *bool             `json:"enabled"`
	Timeout         int64             `json:"timeout"`
	ConnectTimeout  int64             `json:"connectTimeout"`
	RequestTimeout  int64             `json:"requestTimeout"`
	MaxInFlight     int               `json:"maxInFlight"`
	ProtocolVersion string            `json:"protocolVersion"`
}

// knownFields are the fields of the format; anything else is kept out of the
// way with a warning.
var knownFields = []string{"type", "command", "args", "env", "cwd", "url", "headers", "enabled",
	"timeout", "connectTimeout", "requestTimeout", "maxInFlight", "protocolVersion", "auth", "restart", "keepalive"}

var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// LoadFile reads and parses a configuration file.
func LoadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse parses an mcpServers document. lookup resolves ${VAR} references.
// Validation problems of all servers are reported together, joined with "; ".
func Parse(data []byte, lookup func(string) (string, bool)) (*File, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	f := &File{Servers: map[string]actors.ServerConfig{}}
	var problems []string
	names := make([]string, 0, len(doc.MCPServers))
	for name := range doc.MCPServers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		raw := doc.MCPServers[name]
		if !validName.MatchString(name) {
			problems = append(problems, fmt.Sprintf("Server %q: name must be 1 to 100 letters, digits, '-', '_' or '.'", name))
			continue
		}
		var fields map[string]json.RawMessage
		var rs rawServer
		if err := json.Unmarshal(raw, &fields); err != nil {
			problems = append(problems, fmt.Sprintf("Server %q: %v", name, err))
			continue
		}
		if err := json.Unmarshal(raw, &rs); err != nil {
			problems = append(problems, fmt.Sprintf("Server %q: %v", name, err))
			continue
		}
		for k := range fields {
			if !slices.Contains(knownFields, k) {
				f.Warnings = append(f.Warnings, fmt.Sprintf("Server %q: unknown field %q ignored", name, k))
			}
		}
		if rs.Enabled != nil && !*rs.Enabled {
			f.Disabled = append(f.Disabled, name)
			continue
		}
		cfg := rs.config(name, lookup, &f.Warnings)
		if err := cfg.Validate(name); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		f.Servers[name] = cfg
	}
	slices.Sort(f.Warnings)
	if len(problems) > 0 {
		return f, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return f, nil
}

func (rs *rawServer) config(name string, lookup func(string) (string, bool), warnings *[]string) actors.ServerConfig {
	x := expander{server: name, lookup: lookup, warnings: warnings}
	cfg := actors.ServerConfig{
		Type:            rs.Type,
		Command:         x.expand(rs.Command),
		Args:            x.all(rs.Args),
		Env:             x.values(rs.Env),
		Cwd:             rs.Cwd,
		URL:             x.expand(rs.URL),
		Headers:         x.values(rs.Headers),
		MaxInFlight:     rs.MaxInFlight,
		ProtocolVersion: rs.ProtocolVersion,
	}
	// "timeout" alone sets both, as other clients read it; the specific
	// fields win.
	cfg.ConnectTimeout = millis(rs.ConnectTimeout, rs.Timeout)
	cfg.RequestTimeout = millis(rs.RequestTimeout, rs.Timeout)
	return cfg
}

func millis(specific, general int64) time.Duration {
	if specific > 0 {
		return time.Duration(specific) * time.Millisecond
	}
	return time.Duration(general) * time.Millisecond
}

// expander resolves ${VAR} and ${VAR:-default}; bare $VAR is left alone. An
// unset variable without a default stays as written and is reported.
type expander struct {
	server   string
	lookup   func(string) (string, bool)
	warnings *[]string
}

var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

func (x expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return reference.ReplaceAllStringFunc(s, func(ref string) string {
		m := reference.FindStringSubmatch(ref)
		if v, ok := x.lookup(m[1]); ok {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		*x.warnings = append(*x.warnings, fmt.Sprintf("Server %q: environment variable %s is not set", x.server, m[1]))
		return ref
	})
}

func (x expander) all(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = x.expand(s)
	}
	return out
}

func (x expander) values(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = x.expand(v)
	}
	return out
}
