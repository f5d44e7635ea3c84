package mcpactor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"github.com/mcpactor/mcpactor/messages"
)

// extensionID is what SEP-2133 makes an extension identifier: a vendor
// prefix in reverse-DNS form, a slash, and the extension's name.
var extensionID = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+/[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// declaredExtensions checks the client extensions a user declares
// (Options.Extensions) and returns them as they will be sent: each
// identifier well formed, each settings value a JSON object (nil becomes
// {}). The map is a copy; the user's stays theirs.
func declaredExtensions(in map[string]any) (map[string]any, error) {
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
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &messages.ConfigError{Problems: problems}
	}
	return out, nil
}
