package config

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tailscale/hujson"
)

// The JSON sources: our format and the variants of other tools
// (docs/configuration.md, "Discovery").

// readServers reads a JSON file whose servers are under the top-level key
// (mcpServers, or VS Code's servers). jsonc allows comments and trailing
// commas, as VS Code's and Gemini CLI's files do.
func readServers(key string, d dialect, jsonc bool) fileReader {
	return func(data []byte, src Source, dc *discoverCtx) ([]found, error) {
		if jsonc {
			data = standardJSON(data)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("invalid JSON: %s", jsonProblem(data, err))
		}
		servers, err := serversObject(doc, key)
		if err != nil {
			return nil, err
		}
		return readEntries(servers, d, src, src.File, dc), nil
	}
}

func serversObject(doc map[string]json.RawMessage, key string) (map[string]json.RawMessage, error) {
	raw, ok := doc[key]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, fmt.Errorf("%q must be an object", key)
	}
	return servers, nil
}

func readEntries(servers map[string]json.RawMessage, d dialect, src Source, where string, dc *discoverCtx) []found {
	var out []found
	for _, name := range sortedKeys(servers) {
		s, problems := parseEntry(name, servers[name], d, src, dc.lookup)
		out = append(out, found{name: name, srv: s, problems: problems, src: src, where: where})
	}
	return out
}

// readClaudeState reads ~/.claude.json: Claude Code's own state, whose
// projects["<absolute project path>"].mcpServers are the user's servers
// for one project (they win over the top-level mcpServers, which apply to
// every project). Both are the user's, so user-level; the per-project ones
// carry the project in their Source.
func readClaudeState(data []byte, src Source, dc *discoverCtx) ([]found, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("invalid JSON: %s", jsonProblem(data, err))
	}
	var out []found
	if raw, ok := doc["projects"]; ok {
		var projects map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &projects); err != nil {
			return nil, fmt.Errorf(`"projects" must be an object of objects`)
		}
		for _, key := range dc.keys {
			p, ok := projects[key]
			if !ok {
				continue
			}
			servers, err := serversObject(p, "mcpServers")
			if err != nil {
				return nil, fmt.Errorf("projects[%q]: %v", key, err)
			}
			local := src
			local.Project = dc.project
			out = append(out, readEntries(servers, jsonDialect{}, local, fmt.Sprintf("%s projects[%q]", src.File, key), dc)...)
			break
		}
	}
	servers, err := serversObject(doc, "mcpServers")
	if err != nil {
		return nil, err
	}
	return append(out, readEntries(servers, jsonDialect{}, src, src.File, dc)...), nil
}

// geminiDialect: Gemini CLI's httpUrl is a Streamable HTTP endpoint, its
// url a legacy HTTP+SSE one; includeTools and excludeTools filter tools.
type geminiDialect struct{}

func (geminiDialect) translate(name string, f map[string]json.RawMessage) (warnings, _ []string) {
	_, typed := f["type"]
	if h, ok := f["httpUrl"]; ok {
		if _, both := f["url"]; both {
			warnings = append(warnings, fmt.Sprintf(`Server %q: both "httpUrl" and "url" are set; "httpUrl" is used`, name))
		}
		f["url"] = h
		delete(f, "httpUrl")
		if !typed {
			f["type"] = json.RawMessage(`"http"`)
		}
	} else if _, ok := f["url"]; ok && !typed {
		f["type"] = json.RawMessage(`"sse"`)
	}
	renameField(f, "includeTools", "enabledTools")
	renameField(f, "excludeTools", "disabledTools")
	return warnings, nil
}

// windsurfDialect: Windsurf's serverUrl is the url; "disabled": true
// disables a server.
type windsurfDialect struct{}

func (windsurfDialect) translate(name string, f map[string]json.RawMessage) (warnings, problems []string) {
	if u, ok := f["serverUrl"]; ok {
		if _, both := f["url"]; both {
			warnings = append(warnings, fmt.Sprintf(`Server %q: both "serverUrl" and "url" are set; "serverUrl" is used`, name))
		}
		f["url"] = u
		delete(f, "serverUrl")
	}
	if raw, ok := f["disabled"]; ok {
		var disabled bool
		if err := json.Unmarshal(raw, &disabled); err != nil {
			problems = append(problems, fmt.Sprintf(`Server %q: "disabled" must be true or false`, name))
		} else {
			f["enabled"] = json.RawMessage(fmt.Sprint(!disabled))
		}
		delete(f, "disabled")
	}
	return warnings, problems
}

func renameField(f map[string]json.RawMessage, from, to string) {
	if v, ok := f[from]; ok {
		f[to] = v
		delete(f, from)
	}
}

// standardJSON turns JSON with comments and trailing commas (HuJSON, as
// VS Code and Gemini CLI write) into standard JSON, blanking what it
// removes so that line numbers in errors still match the file. Input that
// is not even HuJSON is returned as it is, for json.Unmarshal to report.
func standardJSON(data []byte) []byte {
	std, err := hujson.Standardize(slices.Clone(data))
	if err != nil {
		return data
	}
	return std
}
