package mcpactor

import "github.com/mcpactor/mcpactor/actors"

// Stats count what a client dropped or refused, over all its connections,
// and the user callbacks that misbehaved (Client.Stats). Nothing is dropped
// silently: each drop is counted here, logged, and reported as the
// mcpactor.transport.frames.dropped metric (docs/telemetry.md). The engine
// declares it, since it does the counting; each field is an int64:
//
//   - Malformed: lines that were not JSON, or JSON but not JSON-RPC.
//   - Oversized: messages over ServerConfig.MaxFrameSize, discarded.
//   - UnknownIDs: responses to ids never issued (or to id null).
//   - LateResponses: responses to requests already ended by timeout or
//     cancellation.
//   - DroppedProgress: progress nobody waited for, or a slow
//     CallOptions.OnProgress could not take.
//   - RefusedBatches: JSON-RPC batches from a server that did not
//     negotiate 2025-03-26.
//   - InboundRequests: server-to-client requests received.
//   - InvalidRequests: server requests whose id was null, an object, an
//     array, a boolean or a fraction, answered with Invalid Request.
//   - BadResponses: answers that could not be used (both result and
//     error, nested too deeply...); their request failed at once.
//   - DroppedStderrLines: stderr lines a slow Options.StderrLine could not
//     take, and those still queued for it when a Close ran out of time.
//   - BusyRetries: requests sent again after a 429 or 503 with
//     Retry-After (ServerConfig.BusyRetries).
//   - DroppedWrites: requests whose call ended before they were written;
//     nothing was sent for them.
//   - WriteOverflow: the runtime's own small messages (cancellations,
//     error replies) dropped behind a stuck write.
//   - DroppedNotifications: notifications dropped because
//     Handlers.Notification fell behind (Options.NotificationQueue).
//   - AbandonedCallbacks: handler and subscriber calls still running when
//     Close returned.
//   - PanickedCallbacks: calls of user code (Handlers, their
//     Notification, Options.StderrLine) that panicked: each panic was
//     recovered and logged with its stack, a request handler's answered
//     with an internal error, and the client went on.
type Stats = actors.Stats
