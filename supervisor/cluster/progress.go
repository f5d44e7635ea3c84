package cluster

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/messages"
)

// Progress across the hop
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
// A tools/call whose options set OnProgress or ResetTimeoutOnProgress
// is sent with request.Progress. The owner runs it with an OnProgress of
// its own that sends each notification's params back to the caller's
// inbox as a tagProgress message, carrying the request's id and token,
// through the same outbound bound as replies (outbound.admit: a
// notification that does not fit is dropped and counted in Backlogged).
// The owner sends them before its response, to the same address, and
// protoactor's endpoint writer keeps one queue per address; the inbox
// hands messages over in order; so the caller has every notification
// sent before the response when the response arrives.
//
// The caller queues them on its pending call (at most
// maxCallProgressBytes; the oldest are dropped first, as the runtime
// drops them for one caller, since the newest progress says the most)
// and its calling goroutine hands them to OnProgress in order, all of
// them before CallToolWith returns. A notification for a call that has
// ended (its response came, its caller gave up) is dropped. Every
// dropped notification is counted in Counters.DroppedProgress.

// maxCallProgressBytes bounds the progress params waiting for one
// caller, as the runtime's default MaxCallProgressBytes does for one
// caller of a server.
const maxCallProgressBytes = 1 << 20

// progressQueue is one call's notifications waiting for its caller.
type progressQueue struct {
	mu    sync.Mutex
	items []json.RawMessage
	bytes int
	ready chan struct{} // 1 buffered: something was queued
}

func newProgressQueue() *progressQueue { return &progressQueue{ready: make(chan struct{}, 1)} }

// push queues p, dropping the oldest to stay within
// maxCallProgressBytes (one notification larger than that is kept
// alone); it returns how many it dropped.
func (q *progressQueue) push(p json.RawMessage) (dropped int) {
	q.mu.Lock()
	for len(q.items) > 0 && q.bytes+len(p) > maxCallProgressBytes {
		q.bytes -= len(q.items[0])
		q.items[0] = nil
		q.items = q.items[1:]
		dropped++
	}
	q.items = append(q.items, p)
	q.bytes += len(p)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return dropped
}

// pop returns the oldest notification queued, if any.
func (q *progressQueue) pop() (json.RawMessage, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil, false
	}
	p := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	q.bytes -= len(p)
	return p, true
}

// progress queues the notification r carries for its call, if r comes
// from the member the call was sent to with its token; it reports false
// for one that does not (forged, or misrouted). One for a call that has
// ended, or that asked for none, is dropped and counted, and true.
func (p *pendingCalls) progress(r *response, counts *counters) bool {
	p.mu.Lock()
	c, ok := p.calls[r.ID]
	if ok && (r.Member != c.member || subtle.ConstantTimeCompare(r.Token, c.token[:]) != 1) {
		p.mu.Unlock()
		return false
	}
	p.mu.Unlock()
	if !ok || c.progress == nil {
		counts.droppedProgress.Add(1)
		return true
	}
	if n := c.progress.push(r.Result); n > 0 {
		counts.droppedProgress.Add(uint64(n))
	}
	return true
}

// deliverProgress hands what call has queued to onProgress, in order,
// on the calling goroutine, and reports whether there was any. Each is
// taken off the queue as it is handed over, so that while onProgress
// runs the queue goes on holding at most its bound. A notification
// whose params do not decode is dropped and counted.
func (m *Member) deliverProgress(call *pendingCall, onProgress func(messages.ProgressParams)) bool {
	delivered := false
	for {
		b, ok := call.progress.pop()
		if !ok {
			return delivered
		}
		delivered = true
		if onProgress == nil {
			continue
		}
		var p messages.ProgressParams
		if err := json.Unmarshal(b, &p); err != nil {
			m.counts.droppedProgress.Add(1)
			continue
		}
		onProgress(p)
	}
}

// await waits for call's outcome, handing its progress to req's
// onProgress as it arrives. With req.progressIdle set
// (ResetTimeoutOnProgress), the wait also ends when neither progress
// nor the response has come for that long.
func (m *Member) await(ctx context.Context, call *pendingCall, req *request) (*response, error) {
	var idle <-chan time.Time
	var timer *time.Timer
	if call.progress != nil && req.progressIdle > 0 {
		timer = time.NewTimer(req.progressIdle)
		defer timer.Stop()
		idle = timer.C
	}
	var ready chan struct{}
	if call.progress != nil {
		ready = call.progress.ready
	}
	for {
		select {
		case o := <-call.done:
			if call.progress != nil {
				// Everything sent before the response is queued by now:
				// delivered before the result, as on one machine.
				m.deliverProgress(call, req.onProgress)
			}
			return o.resp, o.err
		case <-ready:
			if m.deliverProgress(call, req.onProgress) && timer != nil {
				timer.Reset(req.progressIdle)
			}
		case <-idle:
			return nil, fmt.Errorf("cluster: %s %s on member %s: neither progress nor an answer for %v (ResetTimeoutOnProgress): %w",
				call.id, call.method, call.member, req.progressIdle, context.DeadlineExceeded)
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: %s %s on member %s: %w", call.id, call.method, call.member, ctx.Err())
		}
	}
}

// progressSender is the owner's OnProgress for req from another member:
// each notification goes back to the caller's inbox, within the
// outbound bound.
func (m *Member) progressSender(req *request) func(messages.ProgressParams) {
	return func(p messages.ProgressParams) {
		b, err := json.Marshal(p)
		if err != nil {
			return
		}
		msg := encodeProgress(&response{ID: req.ID, Member: m.cfg.Name, Token: req.Token, Result: b})
		if err := m.out.admit(req.From, req.ReplyAddr, len(msg.GetValue())); err != nil {
			return // counted in Backlogged; the caller's call goes on
		}
		m.sys.Root.Send(m.pids.get(req.ReplyAddr, req.ReplyID), msg)
	}
}

// progressFor is the OnProgress the owner runs req's tools/call with:
// the caller's own when it runs here, a sender back to the caller when
// it came from another member and asked for progress, else nil.
func (m *Member) progressFor(req *request) func(messages.ProgressParams) {
	switch {
	case req.onProgress != nil:
		return req.onProgress
	case req.Progress && req.ReplyAddr != "":
		return m.progressSender(req)
	}
	return nil
}
