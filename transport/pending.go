package transport

import (
	"encoding/json"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/messages"
)

// rpcCore is the request correlation every transport actor embeds: the id
// counter, the pending table, progress routing and the hand-off of
// server-initiated messages to the owner. A transport adds only framing and
// I/O, through the frameSink it supplies. All of it runs inside the actor's
// Receive, so none of it needs a lock.
type rpcCore struct {
	server  string
	owner   *actor.PID // the client actor; nil in transport-only tests
	sink    frameSink
	log     *slog.Logger
	stats   *counters
	pending map[int64]*call
	tokens  map[string]*call // progress token key -> call
	nextID  int64            // ids are 1, 2, 3 ... and never reused
	batches bool             // batches accepted (2025-03-26 only)
	failed  error            // set once the transport is ending: new calls fail with it
	retired retiredCalls     // observers of recently retired calls, for late answers
}

// frameSink is the framing and I/O half of a transport. The core appends
// each message to the buffer the sink lends it, so a stdio transport encodes
// straight into its next write and allocates nothing per frame.
type frameSink interface {
	// frameBuffer returns the slice to append the next frame to.
	frameBuffer() []byte
	// commitFrame queues the frame just appended; c is the request it
	// carries, nil for notifications and responses. It never blocks: a
	// failed write is reported later by the sink failing the ids it carried.
	commitFrame(frame []byte, c *call)
}

func newRPCCore(server string, owner *actor.PID, sink frameSink, log *slog.Logger, stats *counters) rpcCore {
	return rpcCore{
		server:  server,
		owner:   owner,
		sink:    sink,
		log:     log,
		stats:   stats,
		pending: make(map[int64]*call),
		tokens:  make(map[string]*call),
	}
}

// receive handles the messages common to every transport; it reports
// whether msg was one of them.
func (r *rpcCore) receive(ctx actor.Context, msg any) bool {
	switch m := msg.(type) {
	case *call:
		r.send(m)
	case cancelCall:
		r.cancel(m)
	case notify:
		if r.failed == nil {
			r.sink.commitFrame(messages.AppendNotification(r.sink.frameBuffer(), m.method, m.params), nil)
		}
	case respond:
		if r.failed == nil {
			r.sink.commitFrame(encodeResponse(r.sink.frameBuffer(), m), nil)
		}
	case inbound:
		for _, msg := range m.msgs {
			r.dispatch(ctx, msg)
		}
	case inboundBatch:
		r.batch(ctx, m.msgs)
	case SetBatchPolicy:
		r.batches = m.Allow
	case oversizedResponse:
		r.failOversized(m)
	default:
		return false
	}
	return true
}

func (r *rpcCore) send(c *call) {
	if r.failed != nil {
		c.reply <- outcome{err: r.failed}
		return
	}
	r.nextID++
	c.id = r.nextID
	r.pending[c.id] = c
	if c.token != "" && c.progress != nil {
		r.tokens[c.token] = c
	}
	frame := messages.AppendRequest(r.sink.frameBuffer(), c.id, c.method, c.params)
	c.params = nil // the frame holds the bytes now; let them go
	r.sink.commitFrame(frame, c)
}

// resolve ends the pending call id with out, if it is still pending.
func (r *rpcCore) resolve(id int64, out outcome) bool {
	c, ok := r.pending[id]
	if !ok {
		return false
	}
	delete(r.pending, id)
	if r.tokens[c.token] == c { // a caller may reuse a token; keep the newer call's
		delete(r.tokens, c.token)
	}
	out.id = id
	c.reply <- out
	return true
}

func (r *rpcCore) cancel(m cancelCall) {
	c := m.c
	if r.pending[c.id] != c {
		return // already answered: the outcome is in the caller's channel
	}
	if !c.noCancel && r.failed == nil {
		// basic/utilities/cancellation: the receiver may ignore it, and a
		// response may still come; it will be counted as late. Queued
		// before the caller is released, so its span still sees it.
		params, _ := json.Marshal(messages.CancelledParams{RequestID: messages.Int64ID(c.id), Reason: m.reason})
		r.sink.commitFrame(messages.AppendNotification(r.sink.frameBuffer(), messages.NotificationCancelled, params), nil)
		if c.obs != nil {
			c.obs.CancelSent(m.reason)
		}
	}
	if c.obs != nil {
		r.retired.add(c.id, c.obs)
	}
	r.resolve(c.id, outcome{err: errRetired})
}

// failAll ends every pending call with err and refuses new ones.
func (r *rpcCore) failAll(err error) {
	if r.failed == nil {
		r.failed = err
	}
	for id := range r.pending {
		r.resolve(id, outcome{err: err})
	}
}

// failIDs ends the given calls (a write that failed) with err.
func (r *rpcCore) failIDs(ids []int64, err error) {
	for _, id := range ids {
		r.resolve(id, outcome{err: err})
	}
}

func (r *rpcCore) dispatch(ctx actor.Context, m messages.Message) {
	switch m.Kind() {
	case messages.KindResponse:
		r.response(m)
	case messages.KindNotification:
		r.notification(ctx, m)
	case messages.KindRequest:
		r.stats.inboundRequests.Add(1)
		if r.owner == nil {
			r.replyError(m.ID, messages.CodeMethodNotFound, "Method not found")
			return
		}
		ctx.Send(r.owner, messages.InboundRequest{ID: m.ID, Method: m.Method, Params: m.Params})
	}
}

func (r *rpcCore) response(m messages.Message) {
	id, ok := m.ID.Int64()
	if !ok {
		r.stats.drop(dropUnknownID, &r.stats.unknownIDs)
		r.log.Warn("mcp: response with an id we never issued", "server", r.server, "id", m.ID.String())
		return
	}
	out := outcome{result: m.Result}
	if m.Error != nil {
		out.err = m.Error
	}
	if r.resolve(id, out) {
		return
	}
	if id > 0 && id <= r.nextID {
		// Ours once: retired by timeout or cancellation, or answered twice.
		r.stats.drop(dropLateResponse, &r.stats.lateResponses)
		if obs, ok := r.retired.take(id); ok {
			obs.LateResponse()
		}
		r.log.Debug("mcp: late response ignored", "server", r.server, "id", id)
		return
	}
	r.stats.drop(dropUnknownID, &r.stats.unknownIDs)
	r.log.Warn("mcp: response with an id we never issued", "server", r.server, "id", m.ID.String())
}

// notification routes progress to the call that asked for it and the rest
// to the owner. Progress is per request (basic/utilities/progress), so it
// never goes through the owner's shared queue.
func (r *rpcCore) notification(ctx actor.Context, m messages.Message) {
	if m.Method == messages.NotificationProgress {
		if key, ok := progressKey(m.Params); ok {
			if c, ok := r.tokens[key]; ok {
				select {
				case c.progress <- m.Params:
				default:
					r.stats.drop(dropProgress, &r.stats.droppedProgress)
				}
				return
			}
		}
	}
	if r.owner != nil {
		ctx.Send(r.owner, messages.InboundNotification{Method: m.Method, Params: m.Params})
	}
}

func (r *rpcCore) batch(ctx actor.Context, msgs []messages.Message) {
	if !r.batches {
		// behaviour.md §1: batches only for peers that negotiated
		// 2025-03-26; answer each request in it with a clear error.
		r.stats.drop(dropBatch, &r.stats.refusedBatches)
		r.log.Warn("mcp: JSON-RPC batch refused: protocol version does not allow batches", "server", r.server)
		for _, m := range msgs {
			if m.Kind() == messages.KindRequest {
				r.replyError(m.ID, messages.CodeInvalidRequest, "JSON-RPC batches are not supported by the negotiated protocol version")
			}
		}
		return
	}
	for _, m := range msgs {
		r.dispatch(ctx, m)
	}
}

func progressKey(params json.RawMessage) (string, bool) {
	var p struct {
		Token any `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil || p.Token == nil {
		return "", false
	}
	return messages.ProgressTokenKey(p.Token)
}

func (r *rpcCore) replyError(id messages.ID, code int64, text string) {
	r.sink.commitFrame(messages.AppendError(r.sink.frameBuffer(), id, &messages.Error{Code: code, Message: text}), nil)
}

func encodeResponse(b []byte, m respond) []byte {
	if m.err != nil {
		return messages.AppendError(b, m.id, m.err)
	}
	return messages.AppendResult(b, m.id, m.result)
}
