package mcpactor

import "github.com/mcpactor/mcpactor/actors"

// Handlers answer the requests a server sends to the client and receive its
// notifications. A nil handler means the capability is not declared and the
// request is answered with -32601 Method not found (ping is always
// answered). Handlers run on their own goroutines, never on an actor's;
// their context ends when the server cancels the request or the client
// closes. A handler still running when Close returns is abandoned: its
// answer is never sent. The engine declares it, since it runs them; its
// fields, each a func:
//
//   - Roots(ctx, server) ([]messages.Root, error) answers roots/list
//     (https://modelcontextprotocol.io/specification/2025-11-25/client/roots).
//   - Sampling(ctx, server, *messages.CreateMessageParams)
//     (*messages.CreateMessageResult, error) answers sampling/createMessage
//     (https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
//   - Elicitation(ctx, server, *messages.ElicitParams)
//     (*messages.ElicitResult, error) answers elicitation/create
//     (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).
//     For form mode, the defaults of the requested schema are applied to
//     an accepted answer's content before it is sent.
//   - Notification(server, Notification) receives the server's
//     notifications other than progress (which goes to the call that
//     asked for it): list_changed, resources updated, log messages. Calls
//     for one server are made in order, one at a time, from a bounded
//     queue that never delays responses (Options.NotificationQueue).
//   - NotificationContext(ctx, server, Notification), when set, is called
//     instead of Notification, in the same order and from the same queue,
//     with a context that holds the SERVER span of the notification's
//     receipt: a child of the trace context the server put in the
//     notification's params._meta, with that context's baggage
//     (https://modelcontextprotocol.io/specification/2025-11-25/basic/index#meta;
//     docs/telemetry.md). What the handler does with it (a call, a span
//     of its own) belongs to the server's trace. The span ends when the
//     handler returns; the context is never cancelled.
type Handlers = actors.Handlers
