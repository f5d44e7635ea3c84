package actors

import (
	"context"
	"encoding/json"

	"github.com/mcpactor/mcpactor/messages"
)

// Handlers answer the requests a server sends to the client and receive its
// notifications. A nil handler means the capability is not declared and the
// request is answered with -32601 Method not found (ping is always
// answered). Handlers run on their own goroutines, never on an actor's;
// their context ends when the server cancels the request or the client
// closes. A handler still running when Close returns is abandoned: its
// answer is never sent. The root package re-exports it as
// mcpactor.Handlers; Options is the root package's.
type Handlers struct {
	// Roots answers roots/list
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots).
	Roots func(ctx context.Context, server string) ([]messages.Root, error)
	// Sampling answers sampling/createMessage
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
	Sampling func(ctx context.Context, server string, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error)
	// Elicitation answers elicitation/create
	// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).
	// For form mode, the defaults of the requested schema are applied to an
	// accepted answer's content before it is sent.
	Elicitation func(ctx context.Context, server string, p *messages.ElicitParams) (*messages.ElicitResult, error)
	// Notification receives the server's notifications other than
	// progress (which goes to the call that asked for it): list_changed,
	// resources updated, log messages. Calls for one server are made in
	// order, one at a time, from a bounded queue that never delays
	// responses (Options.NotificationQueue). Without it (or
	// NotificationContext, a request handler above, or Spec.CacheReads),
	// a session over Streamable HTTP opens no stream for what a server
	// sends unasked, since nothing would read it (docs/architecture.md,
	// "The GET listener").
	Notification func(server string, n Notification)
	// NotificationContext, when set, is called instead of Notification,
	// in the same order and from the same queue, with a context that
	// holds the SERVER span of the notification's receipt: a child of
	// the trace context the server put in the notification's
	// params._meta, with that context's baggage
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/index#meta;
	// docs/telemetry.md). What the handler does with it (a call, a span
	// of its own) belongs to the server's trace. The span ends when the
	// handler returns; the context is never cancelled.
	NotificationContext func(ctx context.Context, server string, n Notification)
}

// notified reports whether h takes the server's notifications.
func (h *Handlers) notified() bool {
	return h.Notification != nil || h.NotificationContext != nil
}

// capabilities are what h answers, as the client declares them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation):
// a server must never be told we answer requests we would refuse.
func (h *Handlers) capabilities() messages.ClientCapabilities {
	var caps messages.ClientCapabilities
	if h.Roots != nil {
		caps.Roots = &messages.RootsCapability{ListChanged: true}
	}
	if h.Sampling != nil {
		caps.Sampling = &messages.SamplingCapability{}
	}
	if h.Elicitation != nil {
		caps.Elicitation = &messages.ElicitationCapability{Form: &messages.ElicitationFormCapability{}, URL: &messages.ElicitationURLCapability{}}
	}
	return caps
}

// answers reports whether h declares the capability of a server request.
func (h *Handlers) answers(method string) bool {
	switch method {
	case messages.MethodRootsList:
		return h.Roots != nil
	case messages.MethodSamplingCreateMessage:
		return h.Sampling != nil
	case messages.MethodElicitationCreate:
		return h.Elicitation != nil
	}
	return false
}

// answer decodes a server's request for the handler of its method and
// encodes the handler's result: the result to send, or an error (a
// *messages.Error is sent as is, any other as -32603). It is called only
// for a method h answers.
func (h *Handlers) answer(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case messages.MethodRootsList:
		roots, err := h.Roots(ctx, server)
		if roots == nil {
			roots = []messages.Root{}
		}
		return encodeAnswer(&messages.ListRootsResult{Roots: roots}, err)
	case messages.MethodSamplingCreateMessage:
		var p messages.CreateMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, invalidParams(err)
		}
		return encodeAnswer(h.Sampling(ctx, server, &p))
	case messages.MethodElicitationCreate:
		var p messages.ElicitParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, invalidParams(err)
		}
		res, err := h.Elicitation(ctx, server, &p)
		if err == nil && res != nil && res.Action == messages.ElicitActionAccept && p.Mode != messages.ElicitModeURL {
			// client/elicitation: the client applies the schema's
			// defaults to what the user left out (SEP-1034).
			res.Content = messages.ApplySchemaDefaults(p.RequestedSchema, res.Content)
		}
		return encodeAnswer(res, err)
	}
	return nil, &messages.Error{Code: messages.CodeMethodNotFound, Message: "Method not found: " + method}
}

// encodeAnswer encodes a handler's result; a nil result with a nil error
// is left for handlerFor to refuse.
func encodeAnswer[T any](res *T, err error) (json.RawMessage, error) {
	if err != nil || res == nil {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, &messages.Error{Code: messages.CodeInternalError, Message: "encode result: " + err.Error()}
	}
	return raw, nil
}

func invalidParams(err error) *messages.Error {
	return &messages.Error{Code: messages.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
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
