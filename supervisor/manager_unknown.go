package supervisor

import (
	"strings"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// unknownName is the error for an exposed name no server offers now. A
// name of the form mcp__<server>__... whose server is configured, not
// ready and has no tool list at all (it failed before its first listing
// and nothing was cached) is that server's unavailability, with its state
// and last error: "no such tool" would hide why the tool is missing. A
// server whose list is known (live or cached) and lacks the tool, or no
// server at all, makes the name unknown. Names
// shortened with a hash (over 64 characters) still start with the
// server's prefix, so they are found too.
func unknownName(s *snapshot, exposed string) error {
	var owner *ServerView
	longest := 0
	for _, v := range s.views {
		if v == nil || v.srv == nil || v.state == StateReady || len(v.tools) > 0 {
			continue
		}
		prefix := "mcp__" + naming.Sanitize(v.srv.Name) + "__"
		if len(prefix) > longest && strings.HasPrefix(exposed, prefix) {
			owner, longest = v, len(prefix)
		}
	}
	if owner == nil {
		return &messages.UnknownToolError{Name: exposed}
	}
	return &messages.ServerUnavailableError{Server: owner.srv.Name, State: owner.state.String(), Err: owner.lastErr}
}
