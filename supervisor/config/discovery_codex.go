package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/BurntSushi/toml"
)

// Codex's config.toml (docs/configuration.md, "Codex"): tables
// [mcp_servers.<name>] with their own field names, translated to ours.

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// quoted matches what a TOML error quotes from the file ("expected value
// but found "ghp_..." instead"): part of a mistyped secret, perhaps.
var quoted = regexp.MustCompile(`(["'])[^"']*["']`)

func readCodex(data []byte, src Source, dc *discoverCtx) ([]found, error) {
	var doc struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("invalid TOML: line %d: %s", pe.Position.Line, quoted.ReplaceAllString(pe.Message, "$1...$1"))
		}
		return nil, fmt.Errorf("invalid TOML: %s", quoted.ReplaceAllString(err.Error(), "$1...$1"))
	}
	var out []found
	for _, name := range sortedKeys(doc.MCPServers) {
		s, problems := codexEntry(name, doc.MCPServers[name], src, dc.lookup)
		out = append(out, found{name: name, srv: s, problems: problems, src: src, where: src.File})
	}
	return out, nil
}

// codexEntry translates one table. The variables Codex reads from the
// environment (env_vars, env_http_headers, bearer_token_env_var) become
// ${VAR} references, so that one expansion resolves them all and no value
// is expanded twice.
func codexEntry(name string, t map[string]any, src Source, lookup func(string) (string, bool)) (*Entry, []string) {
	if !validName(name) {
		return nil, []string{nameProblem(name)}
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, []string{fmt.Sprintf("Server %q: %v", name, err)}
	}
	hash, err := canonicalHash(raw)
	if err != nil {
		return nil, []string{fmt.Sprintf("Server %q: %v", name, err)}
	}
	var warnings, problems []string
	bad := func(key, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("Server %q: %q ", name, key)+fmt.Sprintf(format, args...))
	}
	fields := map[string]json.RawMessage{}
	put := func(key string, v any) {
		b, _ := json.Marshal(v) // TOML values always marshal
		fields[key] = b
	}
	var extra map[string]json.RawMessage
	env, headers := map[string]string{}, map[string]string{}
	for _, key := range sortedKeys(t) {
		v := t[key]
		switch key {
		case "command", "args", "cwd", "url", "enabled":
			put(key, v) // the same names; buildEntry checks the types
		case "enabled_tools":
			put("enabledTools", v)
		case "disabled_tools":
			put("disabledTools", v)
		case "startup_timeout_sec", "tool_timeout_sec":
			sec, ok := v.(float64)
			if i, isInt := v.(int64); isInt {
				sec, ok = float64(i), true
			}
			if !ok {
				bad(key, "must be a number of seconds")
				continue
			}
			if key == "startup_timeout_sec" {
				put("connectTimeout", sec*1000)
			} else {
				put("requestTimeout", sec*1000)
			}
		case "env", "http_headers":
			m, ok := tomlStrings(v)
			if !ok {
				bad(key, "must be a table of strings")
				continue
			}
			into := env
			if key == "http_headers" {
				into = headers
			}
			for k, s := range m {
				into[k] = s
			}
		case "env_vars", "env_http_headers", "bearer_token_env_var":
			// After the loop: they complete env and http_headers.
		default:
			warnings = append(warnings, fmt.Sprintf("Server %q: unknown field %q ignored", name, key))
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			b, _ := json.Marshal(v)
			extra[key] = b
		}
	}
	// env_vars: names passed through from the environment. A server
	// inherits the environment anyway; naming them makes them explicit,
	// and one that is not set is simply not passed, as in Codex.
	if v, ok := t["env_vars"]; ok {
		names, ok := tomlList(v)
		for _, n := range names {
			if !envName.MatchString(n) {
				ok = false
			} else if _, set := lookup(n); set {
				if _, written := env[n]; !written {
					env[n] = "${" + n + "}"
				}
			}
		}
		if !ok {
			bad("env_vars", "must be a list of variable names")
		}
	}
	// env_http_headers and bearer_token_env_var: a header whose variable
	// is not set is left out, as in Codex, with a warning.
	fromEnv := func(key, header, variable, prefix string) {
		if !envName.MatchString(variable) {
			bad(key, "must name environment variables")
			return
		}
		if _, set := lookup(variable); !set {
			warnings = append(warnings, fmt.Sprintf("Server %q: environment variable %s is not set (header %q left out)", name, variable, header))
			return
		}
		headers[header] = prefix + "${" + variable + "}"
	}
	if v, ok := t["env_http_headers"]; ok {
		m, ok := tomlStrings(v)
		if !ok {
			bad("env_http_headers", "must be a table of strings")
		}
		for _, h := range sortedKeys(m) {
			fromEnv("env_http_headers", h, m[h], "")
		}
	}
	if v, ok := t["bearer_token_env_var"]; ok {
		if s, ok := v.(string); ok {
			fromEnv("bearer_token_env_var", "Authorization", s, "Bearer ")
		} else {
			bad("bearer_token_env_var", "must be a string")
		}
	}
	if len(env) > 0 {
		put("env", env)
	}
	if len(headers) > 0 {
		put("headers", headers)
	}
	s, problems := buildEntry(name, fields, hash, src, lookup, warnings, problems)
	if s != nil {
		s.Extra = extra
	}
	return s, problems
}

func tomlStrings(v any) (map[string]string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out[k] = s
	}
	return out, true
}

func tomlList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}
