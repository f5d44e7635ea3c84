package supervisor

import (
	"strings"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// owner returns the configured server an exposed name no server offers
// now most likely belongs to: a name of the form mcp__<server>__... whose
// server has no tool list at all (it failed before its first listing, or
// has not listed yet, and nothing was cached). A server whose list is
// known (live or cached) and lacks the tool owns nothing: the name is
// simply unknown. Names shortened with a hash (over 64 characters) still
// start with the server's prefix, so they are found too.
func owner(s *snapshot, exposed string) *serverView {
	var found *serverView
	longest := 0
	for v := range s.views.all() {
		if v == nil || v.srv == nil || len(v.tools) > 0 || (v.state == StateReady && !v.toolsPending) {
			continue
		}
		prefix := "mcp__" + naming.Sanitize(v.srv.Name) + "__"
		if len(prefix) > longest && strings.HasPrefix(exposed, prefix) {
			found, longest = v, len(prefix)
		}
	}
	return found
}

// unknownName is the error for an exposed name no server offers now: its
// owner's unavailability, with the state and last error ("no such tool"
// would hide why the tool is missing), or an unknown-tool ErrNotFound error.
func unknownName(v *serverView, exposed string) error {
	if v == nil {
		return callerr.NewUnknownTool(&callerr.Error{Tool: exposed})
	}
	return callerr.NewUnavailable(&callerr.Error{Server: v.srv.Name, State: v.state.String(), Cause: v.lastErr})
}

// listing reports whether v is about to list its tools for the first
// time: a call of one of them waits for that list, as a call of a cached
// tool waits for its server's handshake.
func listing(v *serverView) bool {
	return v != nil && (v.state == StateConnecting || v.toolsPending)
}
