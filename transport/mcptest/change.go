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
	raw, err := encodeParams(params)
	if err != nil {
		return 0, err
	}
	return s.hub.Notify(method, raw), nil
}

// encodeParams is a notification's or request's params as JSON; nil is
// none (no params member), not null.
func encodeParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	return json.Marshal(params)
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
	return replaceList(s, &s.Tools, tools, messages.NotificationToolsListChanged)
}

// SetResources replaces the server's resources, as SetTools does the
// tools, and sends notifications/resources/list_changed. A URI no longer
// there is answered -32002 (Resource not found). The resources capability
// is declared at initialize, when the server has resources or templates:
// a client that connected to a server with none was told of no
// resources, and does not list them (a manager among them).
func (s *Server) SetResources(resources ...Resource) int {
	return replaceList(s, &s.Resources, resources, messages.NotificationResourcesListChanged)
}

// SetResourceTemplates replaces the server's resource templates, as
// SetResources does the resources, and sends
// notifications/resources/list_changed.
func (s *Server) SetResourceTemplates(templates ...ResourceTemplate) int {
	return replaceList(s, &s.ResourceTemplates, templates, messages.NotificationResourcesListChanged)
}

// SetPrompts replaces the server's prompts, as SetTools does the tools,
// and sends notifications/prompts/list_changed. A prompt no longer there
// is answered -32602. The prompts capability is declared at initialize,
// when the server has prompts: a client that connected to a server with
// none does not list them.
func (s *Server) SetPrompts(prompts ...Prompt) int {
	return replaceList(s, &s.Prompts, prompts, messages.NotificationPromptsListChanged)
}

// replaceList sets one of s's lists to a copy of v under s.mu, hands the
// running connections the new catalogue, then sends method (a
// notifications/*/list_changed) to the clients, outside the lock, and
// returns how many it went to.
func replaceList[T any](s *Server, list *[]T, v []T, method string) int {
	s.mu.Lock()
	*list = slices.Clone(v)
	s.hub.SetCatalog(s.catalogLocked())
	s.mu.Unlock()
	return s.hub.Notify(method, nil)
}
