package mcpactor

import (
	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/messages"
)

// declaredExtensions checks the client extensions a user declares
// (Options.Extensions) and returns them as they will be sent
// (actors.Extensions).
func declaredExtensions(in map[string]any) (map[string]any, error) {
	out, problems := actors.Extensions(in)
	if len(problems) > 0 {
		return nil, &messages.ConfigError{Problems: problems}
	}
	return out, nil
}
