package actors

import (
	"context"
	"encoding/json"

	"github.com/mcpactor/mcpactor/messages"
)

// Handlers are how a client answers the requests a server sends it and
// hears its notifications, in the engine's shape: a request reaches Answer
// as its method and raw params (mcpactor.Handlers decodes them for the
// user's typed functions). Answer and Notification run on goroutines of
// their own, never on an actor's.
type Handlers struct {
	// Capabilities declare what Answer serves (lifecycle, "Capability
	// Negotiation"): roots/list with Roots, sampling/createMessage with
	// Sampling, elicitation/create with Elicitation. A request of a
	// capability not declared is answered with -32601 Method not found
	// (ping is always answered).
	Capabilities messages.ClientCapabilities
	// Answer answers a request of a declared capability: the result to
	// send, or an error (a *messages.Error is sent as is, any other as
	// -32603). Its context ends when the server cancels the request or
	// the client closes.
	Answer func(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error)
	// Notification receives the server's notifications other than progress
	// (which goes to the call that asked for it): list_changed, resources
	// updated, log messages. Calls for one server are made in order, one at
	// a time, from a bounded queue that never delays responses.
	Notification func(server string, n Notification)
	// NotificationContext, when set, is called instead of Notification,
	// with a context that holds the SERVER span of the notification's
	// receipt, itself a child of the trace context the server put in its
	// params._meta (and that context's baggage): what the handler does
	// then belongs to the server's trace. The span ends when the handler
	// returns. The context is not cancelled.
	NotificationContext func(ctx context.Context, server string, n Notification)
}

// notified reports whether h takes the server's notifications.
func (h *Handlers) notified() bool {
	return h.Notification != nil || h.NotificationContext != nil
}

// answers reports whether h declares the capability of a server request.
func (h *Handlers) answers(method string) bool {
	if h.Answer == nil {
		return false
	}
	switch method {
	case messages.MethodRootsList:
		return h.Capabilities.Roots != nil
	case messages.MethodSamplingCreateMessage:
		return h.Capabilities.Sampling != nil
	case messages.MethodElicitationCreate:
		return h.Capabilities.Elicitation != nil
	}
	return false
}

// Notification is one notification from a server, as a subscriber gets
// it. The root package re-exports it as mcpactor.Notification.
type Notification struct {
	Method string          // e.g. notifications/tools/list_changed, notifications/message
	Params json.RawMessage // as the server sent them
	// Generation is the number of the connection it arrived on
	// (Client.Generation).
	Generation uint64
}
