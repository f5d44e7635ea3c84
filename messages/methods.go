package messages

// Request method names (basic/lifecycle, server/*, client/* of the
// 2025-11-25 spec, plus the 2026-07-28 draft where noted).
const (
	// MethodInitialize opens a session (basic/lifecycle).
	MethodInitialize = "initialize"
	// MethodPing checks that the peer is alive (basic/utilities/ping).
	MethodPing = "ping"

	// MethodToolsList lists the server's tools (server/tools).
	MethodToolsList = "tools/list"
	// MethodToolsCall invokes a tool (server/tools).
	MethodToolsCall = "tools/call"

	// MethodResourcesList lists the server's resources (server/resources).
	MethodResourcesList = "resources/list"
	// MethodResourcesRead reads one resource (server/resources).
	MethodResourcesRead = "resources/read"
	// MethodResourcesTemplatesList lists resource templates (server/resources).
	MethodResourcesTemplatesList = "resources/templates/list"
	// MethodResourcesSubscribe asks for resources/updated notifications (server/resources).
	MethodResourcesSubscribe = "resources/subscribe"
	// MethodResourcesUnsubscribe cancels a resources/subscribe (server/resources).
	MethodResourcesUnsubscribe = "resources/unsubscribe"

	// MethodPromptsList lists the server's prompts (server/prompts).
	MethodPromptsList = "prompts/list"
	// MethodPromptsGet renders one prompt (server/prompts).
	MethodPromptsGet = "prompts/get"

	// MethodCompletionComplete asks for argument completions (server/utilities/completion).
	MethodCompletionComplete = "completion/complete"
	// MethodLoggingSetLevel sets the server's log level (server/utilities/logging).
	MethodLoggingSetLevel = "logging/setLevel"

	// MethodRootsList is the server asking the client for its roots (client/roots).
	MethodRootsList = "roots/list"
	// MethodSamplingCreateMessage is the server asking the client to sample an LLM (client/sampling).
	MethodSamplingCreateMessage = "sampling/createMessage"
	// MethodElicitationCreate is the server asking the user for input (client/elicitation).
	MethodElicitationCreate = "elicitation/create"

	// MethodTasksGet polls a task (basic/utilities/tasks, 2025-11-25).
	MethodTasksGet = "tasks/get"
	// MethodTasksResult fetches a finished task's result (basic/utilities/tasks, 2025-11-25).
	MethodTasksResult = "tasks/result"
	// MethodTasksList lists tasks (basic/utilities/tasks, 2025-11-25).
	MethodTasksList = "tasks/list"
	// MethodTasksCancel cancels a task (basic/utilities/tasks, 2025-11-25).
	MethodTasksCancel = "tasks/cancel"

	// MethodServerDiscover asks a server for its versions and capabilities
	// (2026-07-28 draft, basic/lifecycle).
	MethodServerDiscover = "server/discover"
	// MethodSubscriptionsListen opens a notification stream (2026-07-28 draft).
	MethodSubscriptionsListen = "subscriptions/listen"
)

// Notification method names.
const (
	// NotificationInitialized ends the initialize handshake (basic/lifecycle).
	NotificationInitialized = "notifications/initialized"
	// NotificationCancelled cancels an in-flight request (basic/utilities/cancellation).
	NotificationCancelled = "notifications/cancelled"
	// NotificationProgress reports progress of a request (basic/utilities/progress).
	NotificationProgress = "notifications/progress"
	// NotificationMessage carries a log message (server/utilities/logging).
	NotificationMessage = "notifications/message"
	// NotificationToolsListChanged: the tool list changed (server/tools).
	NotificationToolsListChanged = "notifications/tools/list_changed"
	// NotificationPromptsListChanged: the prompt list changed (server/prompts).
	NotificationPromptsListChanged = "notifications/prompts/list_changed"
	// NotificationResourcesListChanged: the resource list changed (server/resources).
	NotificationResourcesListChanged = "notifications/resources/list_changed"
	// NotificationResourcesUpdated: a subscribed resource changed (server/resources).
	NotificationResourcesUpdated = "notifications/resources/updated"
	// NotificationRootsListChanged: the client's roots changed (client/roots).
	NotificationRootsListChanged = "notifications/roots/list_changed"
	// NotificationElicitationComplete: a URL-mode elicitation finished (client/elicitation, 2025-11-25).
	NotificationElicitationComplete = "notifications/elicitation/complete"
	// NotificationTasksStatus: a task's status changed (basic/utilities/tasks, 2025-11-25).
	NotificationTasksStatus = "notifications/tasks/status"
	// NotificationSubscriptionsAcknowledged: the server accepted a
	// subscriptions/listen stream (2026-07-28 draft).
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)

// Protocol versions.
const (
	// Version20241105 is the first published version.
	Version20241105 = "2024-11-05"
	// Version20250326 added Streamable HTTP and JSON-RPC batches.
	Version20250326 = "2025-03-26"
	// Version20250618 added structured tool output and elicitation.
	Version20250618 = "2025-06-18"
	// Version20251125 added URL elicitation, sampling tools and tasks.
	Version20251125 = "2025-11-25"
	// Version20260728 is the stateless protocol: no session, server/discover,
	// the protocol version in every request's _meta
	// (https://modelcontextprotocol.io/specification/2026-07-28).
	Version20260728 = "2026-07-28"
)

// SessionEraVersions returns the versions negotiated by the initialize
// handshake, newest first (a new slice: the list is not the caller's to
// change).
func SessionEraVersions() []string {
	return []string{Version20251125, Version20250618, Version20250326, Version20241105}
}
