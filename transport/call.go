package transport

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

// call is one outgoing request on its way through a transport actor. The
// caller allocates it and waits on reply; the actor assigns id and records it
// in its pending table. Only the actor touches id before the outcome is
// delivered; the caller reads the outcome, never the table.
type call struct {
	method string
	params json.RawMessage
	token  string       // progress token key (messages.ProgressTokenKey), "" for none
	obs    CallObserver // nil unless someone listens
	// The timeout in force, for the error and the cancellation's reason;
	// atomic because a caller's own timer (ResetTimeoutOnProgress) runs
	// on a goroutine of its own and changes it.
	after atomic.Int64
	// deadline is when the actor retires the call as timed out (zero:
	// never, or the caller keeps its own timer). Written by the caller
	// before the call is sent.
	deadline time.Time
	reply    chan Outcome
	progress chan json.RawMessage // nil when the caller wants no progress
	// progressBytes is the size of what waits in progress: the actor adds,
	// the caller subtracts as it takes.
	progressBytes atomic.Int64
	weight        int64             // write budget held by the request's frame
	header        map[string]string // the request's own HTTP headers
	// values is the caller's context, for its values only: an HTTP
	// request made for the call carries them (an Authorizer reads whom
	// the call acts for), never its deadline or cancellation.
	values context.Context
	id     int64 // actor-only

	// The small fields last, packed: a waiting call holds its record, and
	// 192 bytes is a smaller size class than the 224 they took between
	// the others.

	// life numbers the uses of a pooled record (Conn.release): a
	// cancelCall names the life it was sent for, so that one arriving
	// after the record has been reused is ignored. Atomic because the
	// actor reads it while a new caller may be taking the record.
	life atomic.Uint32
	// expired: the caller's own timer fired (ResetTimeoutOnProgress only).
	expired atomic.Bool
	// Actor-only: where the frame is (frameQueued: at index frame of the
	// writer's current batch), and the call's place in the deadlines.
	frame     int32
	heapIndex int32 // -1 when not there
	where     uint8
	noCancel  bool // initialize: never send notifications/cancelled
	recycle   bool // params go back to messages' pool once in the frame (RequestOptions.RecycleParams)
	busyRetry bool // RequestOptions.BusyRetryUnsafe
	// Caller-only: the request took no in-flight slot (Unslotted), so
	// Conn.Finish gives none back.
	unslotted bool
	// Caller-only: the caller keeps the request's timer
	// (ResetTimeoutOnProgress), which may fire after the call has ended,
	// so the record is never reused.
	ownTimer bool
	// Caller-only: the outcome has been read from reply.
	settled bool
}

// Outcome is the single end of a call: a result, a JSON-RPC error, the
// transport's closing error, or errRetired when a cancellation won the race.
// Conn.Await returns it and Conn.Finish, which alone reads it, turns it
// into the request's result or error.
type Outcome struct {
	id     int64
	result json.RawMessage
	err    error
	// post, when set, is no end but the request's POST, handed to its
	// caller to run (http_caller_posts.go); the end comes after it.
	post *post
}

// errRetired marks an outcome produced by the caller's own cancellation; the
// caller turns it into a timeout or cancellation error.
var errRetired = errors.New("request retired by its caller")

// errExpired marks an outcome produced by the actor's deadline for the call:
// the caller turns it into a timeout error, whatever else it was doing.
var errExpired = errors.New("request timed out")

// cancelCall asks the actor to retire c (timeout or context end) and tell the
// server, unless the answer is already on its way. life is c.life when it
// was sent.
type cancelCall struct {
	c      *call
	life   uint32
	reason string
}

// notify sends a notification; nobody waits for an answer.
type notify struct {
	method string
	params json.RawMessage
	weight int64 // write budget held
}

// respond answers a server-to-client request.
type respond struct {
	id     messages.ID
	result json.RawMessage
	err    *messages.Error
	weight int64 // write budget held
}

// inbound carries a run of decoded frames, in the order read, from a reader
// goroutine to the actor; bytes is the reader credit it holds.
type inbound struct {
	msgs  []jsonrpc.Message
	bytes int64
	proto string // HTTP version of the response they came on; "" over stdio
}

// inboundBatch carries a JSON-RPC batch; whether batches are acceptable
// depends on the negotiated protocol version, which only the owner knows.
type inboundBatch struct {
	msgs  []jsonrpc.Message
	bytes int64
	proto string
}

// closeRequest starts an orderly shutdown; cause, if set, is what pending
// requests are told.
type closeRequest struct{ cause error }

// forceClose skips the remaining shutdown grace periods: kill at once.
type forceClose struct{}

// Established is what a finished handshake settled, for the transport.
type Established struct {
	ProtocolVersion string
	// Stateless is true for the stateless protocol (2026-07-28): no
	// session, no GET listener, and no resumption of a broken stream
	// (the request is issued again instead).
	Stateless bool
}
