package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// servingKey names a server request being served: its id is the server's,
// unique only within one connection generation.
type servingKey struct {
	gen uint64
	id  string
}

// served is a server request being served.
type served struct {
	cancel context.CancelFunc
}

// maxServingBytes bounds the params of the server requests being served at
// once (as MaxConcurrentHandlers bounds their number): a request that would
// go beyond it is refused, as when there are too many.
const maxServingBytes = 16 << 20

// serve answers a server-to-client request. ping is answered at once by the
// actor (basic/utilities/ping: promptly); the others run their handler on a
// goroutine and answer on the connection they came from, and only while
// it lives.
func (a *clientActor) serve(ctx actor.Context, req transport.InboundRequest) {
	conn := a.conns[req.Generation]
	if conn == nil || req.Generation != a.gen.n {
		return // its connection is gone or going: nobody to answer
	}
	sctx, op := a.serverOp(req)
	if req.Method == messages.MethodPing {
		conn.RespondNow(req.ID, json.RawMessage("{}"), nil)
		op.End(nil, false)
		return
	}
	run := handlerFor(&a.env.Handlers, a.h.name, req.Method)
	if run == nil || a.state != stateReady && a.state != stateHandshaking || a.closing {
		a.refuse(conn, req, op, &messages.Error{Code: messages.CodeMethodNotFound, Message: "Method not found: " + req.Method})
		return
	}
	size := int64(len(req.Params))
	if len(a.serving) >= a.env.MaxConcurrentHandlers || (a.servingBytes > 0 && a.servingBytes+size > maxServingBytes) {
		a.refuse(conn, req, op, &messages.Error{Code: messages.CodeInternalError, Message: "client is busy: too many concurrent server requests"})
		return
	}
	key := servingKey{gen: req.Generation, id: idKey(req.ID)}
	hctx, cancel := context.WithCancel(sctx)
	a.serving[key] = served{cancel: cancel}
	a.servingBytes += size
	root, self, log, server, gate, panicked := ctx.ActorSystem().Root, ctx.Self(), a.env.Logger, a.h.name, &a.h.callbacks, &a.h.panicked
	a.work.Go(func() {
		defer cancel()
		defer root.Send(self, handlerDone{key: key, bytes: size})
		if !gate.enter() {
			op.End(errClientStopped, false)
			return // closed before the handler could start
		}
		result, rpcErr, failure := runHandler(hctx, run, req, log, server, panicked)
		gate.exit()
		if failure != nil {
			// The server hears that the handler failed (rpcErr); the
			// why stays here, in the log and on the span.
			log.Warn("mcp: handler failed", "server", server, "method", req.Method, "err", failure)
			op.Event(telemetry.EventException, telemetry.KeyExceptionMessage.String(failure.Error()))
		}
		// A request the server cancelled gets no answer
		// (basic/utilities/cancellation: the receiver SHOULD NOT
		// respond), and neither does one whose client has closed.
		if hctx.Err() != nil || gate.isShut() {
			op.End(context.Cause(hctx), false)
			return
		}
		if err := conn.Respond(hctx, req.ID, result, rpcErr); err != nil {
			op.End(err, false)
			return
		}
		op.End(errOrNil(rpcErr), false)
	})
}

// handlerFunc answers a server request: the result, or the error to
// answer with and, when the handler failed rather than chose that answer,
// what went wrong (failure), which is not the server's to read.
type handlerFunc func(ctx context.Context, params json.RawMessage) (result json.RawMessage, rpcErr *messages.Error, failure error)

// runHandler runs a user's handler. A panic is the handler's bug, not the
// runtime's: it becomes a -32603 answer, so the server is not left waiting
// for one, and it does not reach the WaitGroup, which would re-panic it in
// Close and take the program down.
//
// What the server is told of a failure is generic (handlerFailed): the
// text of a handler's error or panic is the program's own, and may hold
// what the server must not see (a path, a query, a credential). It is
// returned as failure, for the log, the span and a local caller.
func runHandler(ctx context.Context, run handlerFunc, req transport.InboundRequest, log *slog.Logger, server string, panicked *atomic.Int64) (result json.RawMessage, rpcErr *messages.Error, failure error) {
	defer func() {
		if p := recover(); p != nil {
			panicked.Add(1)
			log.Error("mcp: handler panicked", "server", server, "method", req.Method, "panic", p, "stack", string(debug.Stack()))
			result, rpcErr = nil, handlerFailed(req.Method)
			failure = fmt.Errorf("handler for %s panicked: %v", req.Method, p)
		}
	}()
	return run(ctx, req.Params)
}

// handlerFailed is the answer to a server request whose handler failed
// (an error that is not a *messages.Error, a panic): -32603, naming the
// method and nothing of the failure.
func handlerFailed(method string) *messages.Error {
	return &messages.Error{Code: messages.CodeInternalError, Message: "Internal error: the client's handler for " + method + " failed"}
}

// handlerFor returns the user's handler of a server request (roots,
// sampling, elicitation), nil when none is declared. Session-protocol requests
// on the wire and stateless-protocol input requests (multi round-trip) use the
// same.
func handlerFor(h *Handlers, server, method string) handlerFunc {
	if !h.answers(method) {
		return nil
	}
	return func(ctx context.Context, params json.RawMessage) (json.RawMessage, *messages.Error, error) {
		res, err := h.answer(ctx, server, method, params)
		if err != nil {
			var rpcErr *messages.Error
			if errors.As(err, &rpcErr) {
				return nil, rpcErr, nil // the handler's chosen answer, sent as it is
			}
			return nil, handlerFailed(method), err
		}
		if res == nil {
			return nil, &messages.Error{Code: messages.CodeInternalError, Message: "handler returned no result"}, nil
		}
		return res, nil, nil
	}
}

func idKey(id messages.ID) string {
	if id.IsString() {
		return "s:" + id.String()
	}
	return "n:" + id.String()
}

// notification routes what the transport did not: cancellation of a request
// we are serving stops its handler; everything else goes to the subscriber
// queue. Each gets a SERVER span of its receipt (noteOp), ended once it is
// handled.
func (a *clientActor) notification(n transport.InboundNotification) {
	ctx, op := a.noteOp(n)
	if n.Method == messages.NotificationCancelled {
		var p messages.CancelledParams
		if json.Unmarshal(n.Params, &p) == nil {
			if s, ok := a.serving[servingKey{gen: n.Generation, id: idKey(p.RequestID)}]; ok {
				s.cancel()
				op.End(nil, false)
				return
			}
		}
	}
	if n.Method == messages.NotificationSubscriptionsAcknowledged {
		// The server's answer to our listen stream: for us, not the
		// subscriber.
		a.env.Logger.Debug("mcp: listen stream acknowledged", "server", a.h.name, "params", string(n.Params))
		op.End(nil, false)
		return
	}
	if n.Generation == a.gen.n {
		a.h.noteChange(n.Method, n.Params)
	}
	if a.closing || n.Generation != a.gen.n || !a.env.Handlers.notified() || !a.notes.push(inboundNote{n: Notification{Method: n.Method, Params: n.Params, Generation: n.Generation}, ctx: ctx, op: op}) {
		op.End(nil, false)
	}
}

// noteOp starts the SERVER span of a notification from the server, as the
// conventions record an incoming notification
// (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md),
// parented on the trace context in its params._meta, if any: the
// returned context, which the subscriber's handler gets, continues the
// server's trace. The params are decoded only when telemetry is on.
func (a *clientActor) noteOp(n transport.InboundNotification) (context.Context, *telemetry.Op) {
	ctx := context.Background()
	if a.env.Instruments == nil {
		return ctx, nil
	}
	var p struct {
		Meta messages.Meta `json:"_meta"`
		URI  string        `json:"uri"`
	}
	_ = json.Unmarshal(n.Params, &p) // a malformed _meta only loses the parent
	req := telemetry.Request{Peer: inboundPeer(a.h.peer(), n.HTTPVersion), Method: n.Method, Notification: true}
	if n.Method == messages.NotificationResourcesUpdated {
		req.ResourceURI = p.URI
	}
	return a.env.Instruments.StartServer(ctx, &req, p.Meta)
}

// cancelHandlers cancels the handlers serving requests of generation gen,
// or of every generation when gen is 0.
func (a *clientActor) cancelHandlers(gen uint64) {
	for key, s := range a.serving {
		if gen == 0 || key.gen == gen {
			s.cancel()
		}
	}
}

func (a *clientActor) refuse(conn *transport.Conn, req transport.InboundRequest, op *telemetry.Op, rpcErr *messages.Error) {
	conn.RespondNow(req.ID, nil, rpcErr)
	op.End(rpcErr, false)
}

// serverOp starts the SERVER span of a request we answer, parented on the
// trace context the server put in params._meta, if any (docs/telemetry.md,
// "Context propagation"). The _meta is decoded only when someone listens.
func (a *clientActor) serverOp(req transport.InboundRequest) (context.Context, *telemetry.Op) {
	ctx := context.Background()
	if a.env.Instruments == nil {
		return ctx, nil
	}
	var p struct {
		Meta messages.Meta `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p) // a malformed _meta only loses the parent
	return a.env.Instruments.StartServer(ctx, &telemetry.Request{Peer: inboundPeer(a.h.peer(), req.HTTPVersion), Method: req.Method, ID: req.ID}, p.Meta)
}

// inboundPeer is the peer of a message the server sent on an HTTP
// response of version proto: network.protocol.version is that
// response's, as the conventions record for a SERVER span
// (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md).
func inboundPeer(p telemetry.Peer, proto string) telemetry.Peer {
	if proto != "" {
		p.NetworkProtocolVersion = proto
	}
	return p
}

// errOrNil keeps a nil *messages.Error from becoming a non-nil error.
func errOrNil(e *messages.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// dropReporter feeds a client's drops to telemetry's dropped-frames
// counter and to the debug log. Each drop is also counted in Stats, and
// the ones that deserve a warning are logged where they happen.
func dropReporter(tel *telemetry.Telemetry, log *slog.Logger, server string) func(string) {
	debug := log.Enabled(context.Background(), slog.LevelDebug)
	if tel == nil && !debug {
		return nil
	}
	return func(reason string) {
		if tel != nil {
			tel.Dropped(server, reason, 1)
		}
		if debug {
			log.Debug("mcp: frame dropped", "server", server, "reason", reason)
		}
	}
}
