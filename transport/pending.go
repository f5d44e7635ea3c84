package transport

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
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
	gen     uint64     // the connection generation, stamped on what goes to owner
	proto   string     // the HTTP version of the run being dispatched ("" over stdio)
	sink    frameSink
	log     *slog.Logger
	stats   *Counters
	budget  *writeBudget
	limits  *limits
	pending map[int64]*call
	tokens  map[string]*call // progress token key -> call
	nextID  int64            // ids are 1, 2, 3 ... and never reused
	batches bool             // batches accepted (2025-03-26 only)
	failed  error            // set once the transport is ending: new calls fail with it
	retired retiredCalls     // observers of recently retired calls, for late answers
	times   deadlines        // the pending calls' timeouts
}

// frameSink is the framing and I/O half of a transport. The core appends
// each message to the buffer the sink lends it, so a stdio transport encodes
// straight into its next write and allocates nothing per frame.
type frameSink interface {
	// frameBuffer returns the slice to append the next frame to; size is
	// about how long the frame will be (0: not known), for a sink that
	// makes a buffer per frame, so that the frame is not grown by
	// doubling while it is encoded.
	frameBuffer(size int) []byte
	// commitFrame queues the frame just appended; c is the request it
	// carries, nil for notifications and responses, and weight the write
	// budget it holds, which the sink gives back once the frame is written
	// or dropped. It never blocks. It reports false when the frame was
	// dropped instead of queued.
	commitFrame(frame []byte, c *call, weight int64) bool
	// dropUnsent removes c's frame if it has not started on its way to
	// the server, and reports whether it did.
	dropUnsent(c *call) bool
	// retire tells the sink that request c has ended, whichever way
	// (an HTTP sink aborts its POST).
	retire(c *call)
}

func newRPCCore(server string, owner *actor.PID, gen uint64, sink frameSink, log *slog.Logger, stats *Counters, budget *writeBudget, lim *limits) rpcCore {
	return rpcCore{
		server:  server,
		owner:   owner,
		gen:     gen,
		sink:    sink,
		log:     log,
		stats:   stats,
		budget:  budget,
		limits:  lim,
		pending: make(map[int64]*call),
		tokens:  make(map[string]*call),
	}
}

// receiveOne dispatches one message a feed handed over.
func (r *rpcCore) receiveOne(ctx actor.Context, m inboundOne) {
	r.proto = m.proto
	r.dispatch(ctx, m.msg)
}

// receive handles the messages common to every transport; it reports
// whether msg was one of them.
func (r *rpcCore) receive(ctx actor.Context, msg any) bool {
	switch m := msg.(type) {
	case *call:
		r.send(ctx, m)
	case cancelCall:
		r.cancel(m)
	case deadlineTick:
		r.expire(ctx)
	case notify:
		if r.failed != nil {
			r.budget.release(m.weight)
			return true
		}
		r.sink.commitFrame(jsonrpc.AppendNotification(r.sink.frameBuffer(frameSize(m.method, m.params)), m.method, m.params), nil, m.weight)
	case respond:
		if r.failed != nil {
			r.budget.release(m.weight)
			return true
		}
		r.sink.commitFrame(encodeResponse(r.sink.frameBuffer(frameSize("", m.result)), m), nil, m.weight)
	case inboundOne:
		r.receiveOne(ctx, m)
	case inbound:
		r.proto = m.proto
		for _, msg := range m.msgs {
			r.dispatch(ctx, msg)
		}
	case inboundBatch:
		r.proto = m.proto
		r.batch(ctx, m.msgs)
	case Established:
		// JSON-RPC batches are accepted only from peers that negotiated
		// 2025-03-26, the one version that had them.
		r.batches = m.ProtocolVersion == messages.Version20250326
	case oversizedResponse:
		r.failOversized(m)
	case badResponse:
		r.failBadResponse(m)
	case invalidRequest:
		r.refuseInvalidRequest(m)
	default:
		return false
	}
	return true
}

func (r *rpcCore) send(ctx actor.Context, c *call) {
	c.heapIndex = -1
	if r.failed != nil {
		r.budget.release(c.weight)
		c.reply <- Outcome{err: r.failed}
		return
	}
	r.nextID++
	c.id = r.nextID
	r.pending[c.id] = c
	if !c.deadline.IsZero() {
		r.times.add(ctx, c)
	}
	if c.token != "" && c.progress != nil {
		r.tokens[c.token] = c
	}
	frame := jsonrpc.AppendRequest(r.sink.frameBuffer(frameSize(c.method, c.params)), c.id, c.method, c.params)
	if c.recycle {
		jsonrpc.RecycleParams(c.params)
	}
	c.params = nil // the frame holds the bytes now; let them go
	r.sink.commitFrame(frame, c, c.weight)
}

// resolve ends the pending call id with out, if it is still pending.
func (r *rpcCore) resolve(id int64, out Outcome) bool {
	c, ok := r.pending[id]
	if !ok {
		return false
	}
	delete(r.pending, id)
	r.times.remove(c)
	if c.progress != nil && r.tokens[c.token] == c { // a caller may reuse a token; keep the newer call's
		delete(r.tokens, c.token)
	}
	r.sink.retire(c)
	out.id = id
	c.reply <- out
	return true
}

func (r *rpcCore) cancel(m cancelCall) {
	c := m.c
	if c.life.Load() != m.life || r.pending[c.id] != c {
		// Already answered: the outcome is in the caller's channel (and
		// the record may even be serving another call by now).
		return
	}
	r.retire(c, m.reason, errRetired)
}

// expire retires every call whose deadline has passed, then sets the timer
// for the next one.
func (r *rpcCore) expire(ctx actor.Context) {
	now := time.Now()
	for c := r.times.due(now); c != nil; c = r.times.due(now) {
		r.retire(c, timeoutText(time.Duration(c.after.Load())), errExpired)
	}
	if r.failed == nil {
		r.times.rearm(ctx)
	}
}

// retire ends the pending call c with why (errRetired or errExpired)
// instead of its answer, and tells the server unless the request never
// left.
func (r *rpcCore) retire(c *call, reason string, why error) {
	switch {
	case r.sink.dropUnsent(c):
		// The request never left: the server cannot have seen it, so
		// there is nothing to cancel on the wire, and its frame no
		// longer holds memory or write budget.
	case !c.noCancel && r.failed == nil:
		// basic/utilities/cancellation: the receiver may ignore it, and a
		// response may still come; it will be counted as late. Queued
		// before the caller is released, so its span still sees it.
		params, _ := json.Marshal(messages.CancelledParams{RequestID: messages.Int64ID(c.id), Reason: reason})
		if c.obs != nil {
			params = c.obs.Cancelling(reason, params)
		}
		r.sink.commitFrame(jsonrpc.AppendNotification(r.sink.frameBuffer(frameSize(messages.NotificationCancelled, params)), messages.NotificationCancelled, params), nil, 0)
	}
	if c.obs != nil {
		r.retired.add(c.id, c.obs)
	}
	r.resolve(c.id, Outcome{err: why})
}

// failAll ends every pending call with err and refuses new ones.
func (r *rpcCore) failAll(err error) {
	if r.failed == nil {
		r.failed = err
	}
	r.times.stop()
	for id := range r.pending {
		r.resolve(id, Outcome{err: err})
	}
}

func (r *rpcCore) dispatch(ctx actor.Context, m jsonrpc.Message) {
	switch m.Kind() {
	case jsonrpc.KindResponse:
		r.response(m)
	case jsonrpc.KindNotification:
		r.notification(ctx, m)
	case jsonrpc.KindRequest:
		r.stats.drop(InboundRequests)
		if r.owner == nil {
			r.replyError(m.ID, messages.CodeMethodNotFound, "Method not found")
			return
		}
		ctx.Send(r.owner, InboundRequest{ID: m.ID, Method: m.Method, Params: m.Params, Generation: r.gen, HTTPVersion: r.proto})
	}
}

func (r *rpcCore) response(m jsonrpc.Message) {
	id, ok := m.ID.Int64()
	if !ok {
		if !m.ID.IsValid() && m.Error != nil {
			// JSON-RPC 2.0 §5: a server that could not read a request's id
			// (a parse error, an invalid request) answers with id null.
			// Nothing of ours can be matched; its own words say the most.
			r.stats.drop(UnknownIDs)
			r.log.Warn("mcp: server reported an error without a request id", "server", r.server,
				"code", m.Error.Code, "message", m.Error.Message)
			return
		}
		r.stats.drop(UnknownIDs)
		r.log.Warn("mcp: response with an id we never issued", "server", r.server, "id", m.ID.String())
		return
	}
	out := Outcome{result: m.Result}
	if m.Error != nil {
		out.err = m.Error
	}
	if r.resolve(id, out) {
		return
	}
	if id > 0 && id <= r.nextID {
		// Ours once: retired by timeout or cancellation, or answered twice.
		r.stats.drop(LateResponses)
		if obs, ok := r.retired.take(id); ok {
			obs.LateResponse()
		}
		r.log.Debug("mcp: late response ignored", "server", r.server, "id", id)
		return
	}
	r.stats.drop(UnknownIDs)
	r.log.Warn("mcp: response with an id we never issued", "server", r.server, "id", m.ID.String())
}

// notification routes progress to the call that asked for it and the rest
// to the owner. Progress is per request (basic/utilities/progress), so it
// never goes through the owner's shared queue: progress for a token nobody
// waits on (unknown, or its call has ended) is dropped and counted.
func (r *rpcCore) notification(ctx actor.Context, m jsonrpc.Message) {
	if m.Method == messages.NotificationProgress {
		if key, ok := progressKey(m.Params); ok {
			if c, ok := r.tokens[key]; ok {
				r.pushProgress(c, m.Params)
				return
			}
		}
		r.stats.drop(DroppedProgress)
		r.log.Debug("mcp: progress for no pending request dropped", "server", r.server)
		return
	}
	if r.owner != nil {
		ctx.Send(r.owner, InboundNotification{Method: m.Method, Params: m.Params, Generation: r.gen, HTTPVersion: r.proto})
	}
}

// pushProgress queues p for its call. A call keeps at most progressBuffer
// notifications and defaultMaxCallProgressBytes (configurable) of them; the
// oldest go first, since the newest progress says the most. All calls of a
// connection together keep at most the connection's progress budget; a
// notification that does not fit in it is dropped. Only the actor sends on
// c.progress, so once there is room the send cannot block.
func (r *rpcCore) pushProgress(c *call, p json.RawMessage) {
	n := int64(len(p))
	for len(c.progress) == cap(c.progress) || (len(c.progress) > 0 && c.progressBytes.Load()+n > r.limits.callProgress) {
		select {
		case old := <-c.progress:
			r.limits.tookProgress(c, old)
			r.stats.drop(DroppedProgress)
		default:
			// The caller has just taken them.
		}
	}
	if r.limits.progressBytes.Load()+n > r.limits.connProgress && r.limits.progressBytes.Load() > 0 {
		r.stats.drop(DroppedProgress)
		return
	}
	c.progressBytes.Add(n)
	r.limits.progressBytes.Add(n)
	c.progress <- p
}

func (r *rpcCore) batch(ctx actor.Context, msgs []jsonrpc.Message) {
	if !r.batches {
		// Batches exist only in 2025-03-26
		// (https://modelcontextprotocol.io/specification/2025-03-26/basic#batching);
		// answer each request in one from any other peer with a clear error.
		r.stats.drop(RefusedBatches)
		r.log.Warn("mcp: JSON-RPC batch refused: protocol version does not allow batches", "server", r.server)
		for _, m := range msgs {
			if m.Kind() == jsonrpc.KindRequest {
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
	r.sink.commitFrame(jsonrpc.AppendError(r.sink.frameBuffer(frameSize("", nil)+len(text)), id, &messages.Error{Code: code, Message: text}), nil, 0)
}

// frameSize is about how long the frame of a message with method and
// params (or result) is: those, and the envelope around them
// ({"jsonrpc":"2.0","id":...,"method":...,"params":...} and a newline),
// with room for an id of any size and for escapes in the method.
func frameSize(method string, params json.RawMessage) int {
	return len(method) + len(params) + 72
}

func encodeResponse(b []byte, m respond) []byte {
	if m.err != nil {
		return jsonrpc.AppendError(b, m.id, m.err)
	}
	return jsonrpc.AppendResult(b, m.id, m.result)
}
