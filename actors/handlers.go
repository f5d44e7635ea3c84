package actors

import (
	"context"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport"
)

// Handlers answer the requests a server sends to the client and receive its
// notifications. A nil handler means the capability is not declared and the
// request is answered with -32601 Method not found (ping is always
// answered). Handlers run on their own goroutines, never on an actor's, and
// their context ends when the server cancels the request or the client
// closes.
type Handlers struct {
	// Roots answers roots/list (client/roots).
	Roots func(ctx context.Context, server string) ([]messages.Root, error)
	// Sampling answers sampling/createMessage (client/sampling).
	Sampling func(ctx context.Context, server string, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error)
	// Elicitation answers elicitation/create (client/elicitation). For form
	// mode, the defaults of the requested schema are applied to an accepted
	// answer's content before it is sent.
	Elicitation func(ctx context.Context, server string, p *messages.ElicitParams) (*messages.ElicitResult, error)
	// Notification receives the server's notifications other than progress
	// (which goes to the call that asked for it): list_changed, resources
	// updated, log messages. Calls for one server are made in order, one at
	// a time, from a bounded queue that never delays responses.
	Notification func(server string, n Notification)
}

// Notification is one notification from a server.
type Notification = transport.InboundNotification

// capabilities declares exactly what the registered handlers can answer
// (lifecycle, "Capability Negotiation").
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
