package transport

import (
	"context"
	"errors"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"golang.org/x/sync/semaphore"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
)

// feed is how the goroutines that read an HTTP transport's streams (each
// POST's answer, the GET listener, a resumed stream) hand what they decode
// to the actor, without letting its mailbox grow: every message takes a
// credit, and its bytes, which the actor gives back once it has handled it.
// A reader that runs out of credits waits, and its TCP connection pushes
// back on the server.
type feed struct {
	root    *actor.RootContext
	self    *actor.PID
	credits chan struct{}       // messages in the mailbox (the Conn's, for MailboxDepth)
	bytes   *semaphore.Weighted // and their bytes; many readers share it
	limit   int64
	life    context.Context // ends with the transport
}

func newFeed(conn *Conn, self *actor.PID) *feed {
	return &feed{root: conn.root, self: self, credits: conn.inbound,
		bytes: semaphore.NewWeighted(defaultInboundBytes), limit: defaultInboundBytes, life: conn.end.life}
}

// send hands msg, carrying n bytes, to the actor; false when the transport
// has ended. A message larger than the whole budget takes all of it.
func (f *feed) send(msg any, n int64) bool {
	n = min(n, f.limit)
	select {
	case f.credits <- struct{}{}:
	case <-f.life.Done():
		return false
	}
	if err := f.bytes.Acquire(f.life, n); err != nil {
		<-f.credits
		return false
	}
	f.root.Send(f.self, msg)
	return true
}

// release gives back the credits of one message the actor has handled.
func (f *feed) release(n int64) {
	select {
	case <-f.credits:
	default:
	}
	if n = min(n, f.limit); n > 0 {
		f.bytes.Release(n)
	}
}

// fed is a message from a feed: what the actor must hand back with
// release once it has dealt with msg.
type fed struct {
	msg   any
	bytes int64
}

// decoded is what one frame of JSON (a line, an SSE event's data, a JSON
// body) turned out to be.
type decoded struct {
	msgs  []jsonrpc.Message // the messages, in order (several for a batch)
	batch bool              // a JSON-RPC batch, judged as a whole by the core
	note  any               // instead: what the actor must do about a bad frame
	// one is the message of a frame that held one (msgs is then nil):
	// the common case, carried without a slice of its own.
	one    jsonrpc.Message
	single bool
}

// inboundOne is one message a feed hands to the actor, with what it must
// give back (release) once it has dealt with it: the common case of an
// HTTP answer, in one allocation where fed and inbound would take three
// (the slice, and each boxed).
type inboundOne struct {
	msg   jsonrpc.Message
	proto string // HTTP version of the response it came on
	bytes int64
}

// decodeFrame decodes one frame. A frame that is not a usable JSON-RPC
// message is counted and logged here; when it still tells something the
// actor must act on (a pending request's unusable answer, a server request
// with an id JSON-RPC forbids) the returned note says so. An owned frame is
// the decoded message's to keep (jsonrpc.DecodeOwnedMessage).
func decodeFrame(frame []byte, owned bool, stats *Counters, log *slog.Logger, server string) decoded {
	if jsonrpc.IsBatch(frame) {
		msgs, errs, err := jsonrpc.DecodeBatch(frame)
		if err != nil {
			countMalformed(stats, log, server, frame, err)
			return decoded{}
		}
		kept := msgs[:0]
		for i, m := range msgs {
			if errs[i] != nil {
				countMalformed(stats, log, server, frame, errs[i])
				continue
			}
			kept = append(kept, m)
		}
		return decoded{msgs: kept, batch: true}
	}
	decode := jsonrpc.DecodeMessage
	if owned {
		decode = jsonrpc.DecodeOwnedMessage
	}
	m, err := decode(frame)
	if err == nil {
		return decoded{one: m, single: true}
	}
	if errors.Is(err, messages.ErrInvalidRequestID) {
		stats.drop(InvalidRequests)
		return decoded{note: invalidRequest{method: m.Method}}
	}
	if id, problem, ok := jsonrpc.SalvageResponse(frame); ok {
		if n, ok := id.Int64(); ok {
			stats.drop(BadResponses)
			return decoded{note: badResponse{id: n, problem: problem}}
		}
	}
	countMalformed(stats, log, server, frame, err)
	return decoded{}
}

// countMalformed counts and logs a frame that is not JSON-RPC at all.
func countMalformed(stats *Counters, log *slog.Logger, server string, frame []byte, err error) {
	n := stats.drop(Malformed)
	if n <= 10 || n%malformedLogEvery == 0 {
		log.Warn("mcp: malformed message skipped", "server", server,
			"err", err, "message", snippet(frame, 120), "malformed_total", n)
	}
}
