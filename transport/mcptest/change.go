package mcptest

import (
	"encoding/json"
	"slices"

	"github.com/mcpactor/mcpactor/messages"
)

// Notify sends a notification to the client of every connection of s
// running in this process, outside any call, and returns how many it went
// to: notifications/resources/updated, notifications/message and the
// like. params is encoded as JSON; nil sends none. The notification
// travels as a server's would:
//
//   - InProcess (and Dial): on the connection's stream;
//   - Streamable HTTP: on the session's GET stream, kept for the client
//     until it opens one;
//   - legacy HTTP+SSE: on the session's event stream;
//   - the 2026-07-28 revision over HTTP (Server.Stateless), which has no
//     session: on every subscriptions/listen stream the client holds open
//     (an mcpactor client opens one when it has a
//     Handlers.Notification or resource subscriptions), none otherwise.
//
// A Stdio child is another process, which Notify does not reach: a
// tool's Call.Notify does. A client hears of it through its
// mcpactor.Handlers.Notification.
func (s *Server) Notify(method string, params any) (int, error) {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return 0, err
		}
		raw = b
	}
	return s.hub.Notify(method, raw), nil
}

// SetTools replaces the server's tools, for the connections running and
// those to come, and sends notifications/tools/list_changed as Notify
// does: a client's next tools/list sees the new tools, and a call of a
// tool no longer there is answered -32602 (Unknown tool: name), which a
// client returns as *mcpactor.RPCError (errors.Is mcpactor.ErrRPC). Calls
// in progress finish with the tool they began with. A manager
// (mcpactor.Runtime.Manage) lists the tools again on the notification.
// It returns how many connections were told, as Notify does: over HTTP in
// the 2026-07-28 revision a client that has no listen stream open yet is
// not, and hears of the change only when it lists again. A Stdio child,
// another process, is not reached.
func (s *Server) SetTools(tools ...Tool) int {
	s.mu.Lock()
	s.Tools = slices.Clone(tools)
	s.hub.SetCatalog(s.catalogLocked())
	s.mu.Unlock()
	return s.hub.Notify(messages.NotificationToolsListChanged, nil)
}

// SetResources replaces the server's resources, as SetTools does the
// tools, and sends notifications/resources/list_changed. A URI no longer
// there is answered -32002 (Resource not found). The resources capability
// is declared at initialize, when the server has resources or templates:
// a client that connected to a server with none was told of no
// resources, and does not list them (a manager among them).
func (s *Server) SetResources(resources ...Resource) int {
	s.mu.Lock()
	s.Resources = slices.Clone(resources)
	s.hub.SetCatalog(s.catalogLocked())
	s.mu.Unlock()
	return s.hub.Notify(messages.NotificationResourcesListChanged, nil)
}

// SetResourceTemplates replaces the server's resource templates, as
// SetResources does the resources, and sends
// notifications/resources/list_changed.
func (s *Server) SetResourceTemplates(templates ...ResourceTemplate) int {
	s.mu.Lock()
	s.ResourceTemplates = slices.Clone(templates)
	s.hub.SetCatalog(s.catalogLocked())
	s.mu.Unlock()
	return s.hub.Notify(messages.NotificationResourcesListChanged, nil)
}

// SetPrompts replaces the server's prompts, as SetTools does the tools,
// and sends notifications/prompts/list_changed. A prompt no longer there
// is answered -32602. The prompts capability is declared at initialize,
// when the server has prompts: a client that connected to a server with
// none does not list them.
func (s *Server) SetPrompts(prompts ...Prompt) int {
	s.mu.Lock()
	s.Prompts = slices.Clone(prompts)
	s.hub.SetCatalog(s.catalogLocked())
	s.mu.Unlock()
	return s.hub.Notify(messages.NotificationPromptsListChanged, nil)
}
