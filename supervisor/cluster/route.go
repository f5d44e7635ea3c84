package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/telemetry"
)

// maxRequestBytes refuses requests larger than the runtime's frame cap
// before they reach the remote layer.
const maxRequestBytes = 16 << 20

// do runs one method on id's owner, wherever it is, and returns the
// owner's response (whose Err is already decoded into the error).
//
// Routing: the owner in this member's view if it is alive; otherwise the
// member place picks, which takes the ownership key or answers with the
// member that won it. A *NotOwnerError (ownership moving, the owner
// fencing itself) is routed again after a backoff. A *MemberLostError
// ends a tools/call (task or not) at once: it may have run. Lists,
// reads, prompts and the task methods are routed again: the first have
// no effect on the server, a task's poll, wait or cancellation may be
// repeated.
func (m *Member) do(ctx context.Context, req *request) (resp *response, err error) {
	id := req.identity()
	if _, ok := m.cfg.Servers[id.Server]; !ok {
		return nil, &UnknownServerError{Server: id.Server, Member: m.cfg.Name, Method: req.Method}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.cfg.CallTimeout)
		defer cancel()
	}
	// The hop's CLIENT span, a child of the caller's; the owner's SERVER
	// span is its child, and the owner's MCP client span that one's
	// (docs/telemetry.md, "The cluster hop").
	ctx, op, carrier := m.tel.StartHop(ctx, &telemetry.Hop{Peer: hopPeer(id), Member: m.cfg.Name})
	defer func() {
		if resp != nil {
			op.SetHopOwner(resp.Member, resp.Generation)
		}
		endHop(op, err, id)
	}()
	req.From = m.cfg.Name
	req.Trace = carrier
	retry := newBackoff(20*time.Millisecond, 500*time.Millisecond)
	var last error
	for {
		if m.ctx.Err() != nil {
			return nil, fmt.Errorf("cluster: %s %s: member %s: %w", id, req.Method, m.cfg.Name, ErrStopped)
		}
		target, addr := m.route(id)
		op.SetHopOwner(target, 0)
		var resp *response
		var err error
		switch {
		case target == "":
			err = fmt.Errorf("cluster: %s %s: member %s sees %w to own it yet (its owner left or its connection broke)", id, req.Method, m.cfg.Name, ErrNoMember)
		case target == m.cfg.Name:
			resp = m.serve(ctx, req)
		default:
			resp, err = m.send(ctx, target, addr, req)
		}
		if err == nil && resp.Err != nil {
			err = resp.Err.decode(id, resp.Member, req.Method)
		}
		switch {
		case err == nil:
			return resp, nil
		case errors.Is(err, ErrMemberLost) && (req.Method == methodCallTool || req.Method == methodStartTask):
			return nil, err
		case errors.Is(err, ErrNotOwner), errors.Is(err, ErrMemberLost), errors.Is(err, ErrNoMember), errors.Is(err, ErrEtcdUnavailable):
			last = err
			// This member cannot reach etcd: its view of owners and
			// members is stale and nobody can take the identity over
			// through it, so waiting out the deadline would not help.
			if cause, down := m.lease.unreachable(); down {
				return nil, &EtcdUnavailableError{Identity: id, Method: req.Method, Member: m.cfg.Name, Reason: cause.Error()}
			}
		default:
			return resp, err
		}
		if !retry.sleep(ctx) {
			return nil, fmt.Errorf("%w (then %w)", last, ctx.Err())
		}
	}
}

// route names the member to send id's requests to, and its address.
// An owner whose connection broke is no route: its calls in flight ended
// with *MemberLostError when the connection broke, and a call that
// starts after that waits (routed again with backoff, bounded by its
// deadline) for etcd to drop the member and a new owner to take the
// identity, rather than be sent to it and lost in a second wave. The
// mark lasts two lease TTLs and a second: by then a dead member is gone
// from etcd (which expires a lease up to about a second after its TTL),
// and a live one whose connection merely broke is tried again.
func (m *Member) route(id Identity) (member, addr string) {
	if rec, ok := m.view.owner(id); ok {
		if mem, alive := m.view.member(rec.Member); alive {
			if m.lost.is(mem.Address) {
				return "", ""
			}
			return rec.Member, mem.Address
		}
		// The key goes with its member's lease; until then nobody else
		// may take the identity.
		return "", ""
	}
	target := place(id, m.view.memberNames(true))
	if target == "" {
		return "", ""
	}
	mem, _ := m.view.member(target)
	if m.lost.is(mem.Address) {
		return "", ""
	}
	return target, mem.Address
}

// lostAddresses are the addresses of members whose connection broke,
// each until a time on the monotonic clock.
type lostAddresses struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (l *lostAddresses) mark(addr string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.until == nil {
		l.until = map[string]time.Time{}
	}
	now := time.Now()
	for a, t := range l.until { // forget the expired: the map stays small
		if now.After(t) {
			delete(l.until, a)
		}
	}
	l.until[addr] = now.Add(d)
}

func (l *lostAddresses) is(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.until[addr]
	return ok && time.Now().Before(t)
}

// send sends req to the member at addr and waits for its response, for
// the loss of that member, or for ctx's end.
func (m *Member) send(ctx context.Context, member, addr string, req *request) (*response, error) {
	id := req.identity()
	call := &pendingCall{id: id, method: req.Method, member: member, address: addr}
	if req.Progress {
		call.progress = newProgressQueue()
	}
	reqID := m.calls.add(call)
	defer m.calls.remove(reqID)
	// The member may have been dropped before the call was registered:
	// failMember ran already, so look again now.
	if _, alive := m.view.member(member); !alive {
		return nil, &MemberLostError{Identity: id, Member: member, Method: req.Method, Reason: "left the cluster"}
	}
	r := *req
	r.ID = reqID
	r.ReplyAddr, r.ReplyID = m.self.Address, m.self.Id
	r.Token = call.token[:]
	if dl, ok := ctx.Deadline(); ok {
		r.Timeout = time.Until(dl)
	}
	msg := encodeRequest(&r)
	if n := len(msg.GetValue()); n > maxRequestBytes {
		return nil, fmt.Errorf("cluster: %s %s to member %s: request of %d bytes is above the %d-byte cap", id, req.Method, member, n, maxRequestBytes)
	}
	if err := m.out.admit(member, addr, len(msg.GetValue())); err != nil {
		return nil, fmt.Errorf("cluster: %s %s: %w", id, req.Method, err)
	}
	m.sys.Root.Send(m.pids.get(addr, actorName), msg)
	return m.await(ctx, call, req)
}

// memberLost is the view's report that membership dropped a member: its
// calls in flight end now.
func (m *Member) memberLost(member, reason string) {
	m.log("cluster member lost", "lost", member, "reason", reason)
	m.calls.failMember(member, reason)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
