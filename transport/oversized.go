package transport

import (
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

// readerNote carries what the reader found wrong with a line, other than
// plain malformed input, to the actor: one of the messages below. It takes
// a reader credit, like a run of frames, so a server sending nothing but
// such lines cannot grow the mailbox.
type readerNote struct{ msg any }

// oversizedResponse tells the actor that the answer to id was discarded for
// exceeding the frame cap, so that its caller fails at once with a clear
// error instead of waiting for the timeout.
type oversizedResponse struct {
	id    int64
	size  int64
	limit int
}

// badResponse tells the actor that the answer to id arrived but cannot be
// used (jsonrpc.SalvageResponse names the problem): its caller fails at
// once, and the connection lives on.
type badResponse struct {
	id      int64
	problem string
}

// invalidRequest is a server request whose id JSON-RPC does not allow: it
// is answered with Invalid Request and id null (JSON-RPC 2.0 §5), since
// there is no id to echo.
type invalidRequest struct{ method string }

// responseID is the id of one of our requests in a line's head, if the
// line is a response (an id of ours, a result or an error, no method: a
// server request's ids are its own and must not be mistaken for ours).
func responseID(h jsonrpc.FrameHead) (int64, bool) {
	if !h.IsResponse() {
		return 0, false
	}
	return h.ID.Int64()
}

// failOversized ends the call whose answer was discarded, if it is ours
// and still pending.
func (r *rpcCore) failOversized(m oversizedResponse) {
	c, ok := r.pending[m.id]
	if !ok {
		return
	}
	r.resolve(m.id, Outcome{err: callerr.NewFrameTooLarge(&callerr.Error{
		Server: r.server, Method: c.method, ID: messages.Int64ID(m.id), Size: m.size, Limit: m.limit})})
}

// failBadResponse ends the call whose answer could not be used.
func (r *rpcCore) failBadResponse(m badResponse) {
	c, ok := r.pending[m.id]
	if !ok {
		return
	}
	r.log.Warn("mcp: unusable answer failed its request", "server", r.server, "id", m.id, "method", c.method, "problem", m.problem)
	r.resolve(m.id, Outcome{err: callerr.NewBadResponse(&callerr.Error{
		Server: r.server, Method: c.method, ID: messages.Int64ID(m.id), Problem: m.problem})})
}

// refuseInvalidRequest answers a server request that had no usable id.
func (r *rpcCore) refuseInvalidRequest(m invalidRequest) {
	r.log.Warn("mcp: server request with an invalid id refused", "server", r.server, "method", m.method)
	r.replyError(messages.ID{}, messages.CodeInvalidRequest, "Invalid Request: the request id must be a string or an integer")
}
