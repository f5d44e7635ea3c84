package actors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"sort"
)

// extensionID is what SEP-2133 makes an extension identifier: a vendor
// prefix in reverse-DNS form, a slash, and the extension's name.
var extensionID = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// Extensions checks client extensions a user declares (the runtime's
// Options.Extensions, a server's Spec.Extensions) and returns them as
// they will be sent: each identifier well formed, each settings value a
// JSON object (nil becomes {}), or the problems, sorted. The map is a
// copy; the user's stays theirs.
func Extensions(in map[string]any) (map[string]any, []string) {
	out := make(map[string]any, len(in))
	var problems []string
	for id, settings := range in {
		if !extensionID.MatchString(id) {
			problems = append(problems, fmt.Sprintf("extension %q: the identifier is not {vendor-prefix}/{name}", id))
			continue
		}
		if settings == nil {
			out[id] = struct{}{}
			continue
		}
		raw, err := json.Marshal(settings)
		if err != nil {
			problems = append(problems, fmt.Sprintf("extension %q: settings do not encode: %v", id, err))
			continue
		}
		if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
			problems = append(problems, fmt.Sprintf("extension %q: settings must be a JSON object", id))
			continue
		}
		out[id] = json.RawMessage(raw)
	}
	sort.Strings(problems)
	return out, problems
}

// withExtensions is the runtime's extensions with a server's laid over
// them (a server's settings win for an identifier both declare); a new
// map, or the runtime's own when the server declares none.
func withExtensions(runtime, server map[string]any) map[string]any {
	if len(server) == 0 {
		return runtime
	}
	own, _ := Extensions(server) // Validate refused the configuration otherwise
	out := maps.Clone(runtime)
	if out == nil {
		out = make(map[string]any, len(own))
	}
	maps.Copy(out, own)
	return out
}
