package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
)

// receive takes a message from the member's inbox, on the remote
// layer's reader goroutine: a request from another member is served by a
// worker (a call may take minutes; the reader must not wait), a response
// to this member's request is handed to its caller.
func (m *Member) receive(msg any) {
	tag, req, resp, err := decode(msg)
	if err != nil {
		m.log("cluster message dropped", "error", err)
		return
	}
	switch tag {
	case tagRequest:
		m.mu.Lock()
		if m.stopping {
			m.mu.Unlock()
			if m.knownCaller(req) {
				m.reply(req, &response{ID: req.ID, Member: m.cfg.Name, Err: &wireError{Kind: kindStopped, Message: "member stopping"}})
			}
			return
		}
		m.wg.Add(1)
		m.mu.Unlock()
		m.workers.run(func() {
			defer m.wg.Done()
			if !m.awaitKnownCaller(req) {
				m.counts.refusedRequests.Add(1)
				m.cfg.Logger.Warn("cluster request refused: its reply address is not the inbox of the member it names in etcd",
					"member", m.cfg.Name, "from", req.From, "replyAddr", req.ReplyAddr)
				return
			}
			ctx, cancel := context.WithTimeout(m.ctx, min(req.Timeout, m.cfg.MaxServeTimeout))
			defer cancel()
			id := req.identity()
			ctx, op := m.tel.StartHopServer(ctx, req.Trace, &telemetry.Hop{Peer: hopPeer(id), Member: req.From, Owner: m.cfg.Name})
			resp := m.serve(ctx, req)
			var err error
			if resp.Err != nil {
				err = resp.Err.decode(id, m.cfg.Name, req.Method)
			}
			op.SetHopOwner("", resp.Generation)
			endHop(op, err, id)
			m.reply(req, resp)
		})
	case tagProgress:
		if !m.calls.progress(resp, &m.counts) {
			m.counts.refusedResponses.Add(1)
			m.cfg.Logger.Warn("cluster progress refused: not from the member the request was sent to, or without its token",
				"member", m.cfg.Name, "claimed", resp.Member, "request", resp.ID)
		}
	case tagResponse:
		if !m.calls.deliver(resp) {
			m.counts.refusedResponses.Add(1)
			m.cfg.Logger.Warn("cluster response refused: not from the member the request was sent to, or without its token",
				"member", m.cfg.Name, "claimed", resp.Member, "request", resp.ID)
		}
	}
}

// knownCaller reports whether req's reply goes to the inbox of the
// member it names as its sender, at the address that member registered
// in etcd. A reply goes nowhere else: a peer cannot make this member
// send (and queue, for a peer that never reads) replies to an address of
// its choosing.
func (m *Member) knownCaller(req *request) bool {
	if req.ReplyID != actorName {
		return false
	}
	rec, ok := m.view.member(req.From)
	return ok && rec.Address == req.ReplyAddr
}

// awaitKnownCaller is knownCaller, given a little time for a member that
// has just joined to reach this member's view of etcd.
func (m *Member) awaitKnownCaller(req *request) bool {
	deadline := time.Now().Add(knownCallerWait)
	for !m.knownCaller(req) {
		if time.Now().After(deadline) || m.ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// knownCallerWait bounds awaitKnownCaller.
const knownCallerWait = time.Second

func (m *Member) reply(req *request, resp *response) {
	resp.ID, resp.Token = req.ID, req.Token
	msg := encodeResponse(resp)
	if err := m.out.admit(req.From, req.ReplyAddr, len(msg.GetValue())); err != nil {
		// The caller is not reading: its call ends at its deadline, or
		// with *MemberLostError once the stall evicts its connection.
		m.cfg.Logger.Warn("cluster reply dropped", "member", m.cfg.Name, "to", req.From, "error", err)
		return
	}
	m.sys.Root.Send(m.pids.get(req.ReplyAddr, req.ReplyID), msg)
}

// serve runs req on this member's activation of its identity, activating
// it if nobody owns it.
func (m *Member) serve(ctx context.Context, req *request) *response {
	id := req.identity()
	resp := &response{ID: req.ID, Member: m.cfg.Name}
	act, err := m.activate(ctx, id, req.Method)
	if err != nil {
		if cause, down := m.lease.unreachable(); down && errors.Is(err, ErrNotOwner) {
			// Not the owner because it cannot reach etcd: say so, so
			// that the caller does not read it as "another member is".
			err = &EtcdUnavailableError{Identity: id, Method: req.Method, Member: m.cfg.Name, Reason: cause.Error()}
		}
		resp.Err = encodeError(err, "", id)
		return resp
	}
	resp.Generation = act.generation
	// Checked again at the last moment: a member that resumes after a
	// pause past its fencing time refuses before its watchdog has run.
	if !m.lease.valid(act.lease) {
		resp.Err = encodeError(&NotOwnerError{Identity: id, Member: m.cfg.Name, Method: req.Method, Reason: "its lease could not be renewed in time"}, "", id)
		return resp
	}
	result, err := m.invoke(ctx, act, req)
	if err != nil {
		resp.Err = encodeError(err, act.name, id)
		m.mu.Lock()
		stopping := m.stopping
		m.mu.Unlock()
		// The server was closed under the call because ownership ended:
		// say so, as a loss (the call may have run), not as the
		// transport's closing.
		switch {
		case stopping:
			resp.Err = &wireError{Kind: kindStopped, Message: err.Error()}
		case !m.lease.valid(act.lease):
			resp.Err = &wireError{Kind: kindFenced, Message: err.Error()}
		}
		return resp
	}
	resp.Result = result
	return resp
}

// invoke runs one method on the server through the member's manager
// (owned.go) and returns its result as JSON.
func (m *Member) invoke(ctx context.Context, act *activation, req *request) (json.RawMessage, error) {
	c := act.client
	var v any
	var err error
	switch req.Method {
	case methodCallTool:
		var opts mcpactor.CallOptions
		if opts, err = req.callOptions(); err == nil {
			opts.OnProgress = m.progressFor(req)
			v, err = m.callTool(ctx, act, req.Name, req.toolArgs(), opts)
		}
	case methodListTools:
		v, err = m.listTools(ctx, act)
	case methodListResources:
		v, err = c.ListResources(ctx)
	case methodReadResource:
		v, err = m.mgr.ReadResource(ctx, act.name, req.URI)
	case methodListPrompts:
		v, err = c.ListPrompts(ctx)
	case methodGetPrompt:
		v, err = c.GetPrompt(ctx, req.Name, req.PromptArgs)
	case methodInfo:
		v = SessionInfo{
			Identity: act.id, Member: m.cfg.Name, Generation: act.generation, Connection: c.Generation().Number,
			Server: c.ServerInfo(), ProtocolVersion: c.ProtocolVersion(),
		}
	default:
		var ok bool
		if v, ok, err = m.invokeTask(ctx, act, req); !ok {
			return nil, &callerr.RPCError{Server: act.id.String(), Method: req.Method, Code: -32601, Message: "method not found"}
		}
	}
	if err != nil {
		return nil, m.ownedError(act, err)
	}
	var b []byte
	if r, ok := v.(*messages.CallToolResult); ok && r != nil {
		// Its own encoder: json.Marshal would scan its output again.
		b, err = r.MarshalJSON()
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: %s %s on member %s: encode result: %w", act.id, req.Method, m.cfg.Name, err)
	}
	return b, nil
}
