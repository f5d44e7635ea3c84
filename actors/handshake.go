package actors

import (
	"context"
	"errors"
	"slices"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// session is what a finished handshake established. It never changes after
// it is published, so callers read it without synchronisation.
type session struct {
	version      string
	info         messages.Implementation
	capabilities messages.ServerCapabilities
	instructions string
	peer         telemetry.Peer // the server as telemetry describes it
	// stateless marks the stateless protocol (2026-07-28): no session on the
	// server, and every request carries meta in its _meta.
	stateless bool
	meta      []byte // the _meta members of every request (stateless only)
	// taskTools knows which tools must run as tasks, on a session-protocol
	// server that declared tasks for tools/call; nil on the others.
	taskTools *taskTools
	// outputs are the tools' output schemas, once a tools/list is read.
	outputs outputsOf
	// cache keeps the results the server lets be cached (result_cache.go).
	cache resultCache
}

// protocol is how a connection of one of the two protocols starts. The
// session protocol (2024-11-05 to 2025-11-25) does initialize +
// notifications/initialized;
// the stateless protocol (2026-07-28) probes with server/discover instead and
// attaches its version to every request (stateless.go); the negotiator
// (negotiator.go) chooses between them. The client actor only sees "start the
// handshake, get a session or an error", so a protocol is a type, not
// states.
type protocol interface {
	handshake(ctx context.Context, conn *transport.Conn, peer telemetry.Peer) (*session, error)
}

// sessionProtocol implements lifecycle "Initialization" (basic/lifecycle).
type sessionProtocol struct {
	server string
	offer  string // the version we offer
	accept []string
	caps   messages.ClientCapabilities
	info   messages.Implementation
	tel    *telemetry.Telemetry
}

func newSessionProtocol(server, pinned string, caps messages.ClientCapabilities, env Env) *sessionProtocol {
	offer := messages.Version20251125
	if pinned != "" && slices.Contains(messages.SessionEraVersions(), pinned) {
		offer = pinned
	}
	return &sessionProtocol{server: server, offer: offer, accept: messages.SessionEraVersions(), caps: caps, info: env.ClientInfo, tel: env.Instruments}
}

func (e *sessionProtocol) handshake(ctx context.Context, conn *transport.Conn, peer telemetry.Peer) (*session, error) {
	ictx, op := e.tel.Start(ctx, &telemetry.Request{Peer: peer, Method: messages.MethodInitialize})
	// initialize MUST NOT be cancelled (basic/utilities/cancellation). Its
	// bound is the connect timeout, which ctx carries, not the request
	// timeout: a server may take longer to start than to answer a call.
	var res messages.InitializeResult
	err := exchangeConn(ictx, op, conn, messages.MethodInitialize,
		messages.InitializeParams{ProtocolVersion: e.offer, Capabilities: e.caps, ClientInfo: e.info},
		&res, &transport.RequestOptions{NoCancel: true, Timeout: -1})
	if err == nil {
		op.SetProtocolVersion(res.ProtocolVersion)
	}
	op.End(err, false)
	if err != nil {
		return nil, err
	}
	// Version negotiation: the server answers with ours or another it
	// supports; if we do not speak that one we must disconnect.
	if !slices.Contains(e.accept, res.ProtocolVersion) {
		return nil, callerr.NewUnsupportedVersion(&callerr.Error{Server: e.server, Version: res.ProtocolVersion, Supported: e.accept})
	}
	// Before notifications/initialized: an HTTP transport sends the version
	// with it, and with every request after.
	conn.Establish(transport.Established{ProtocolVersion: res.ProtocolVersion})
	peer.ProtocolVersion, peer.SessionID = res.ProtocolVersion, conn.SessionID()
	if err := notifyTraced(ctx, e.tel, peer, conn, messages.NotificationInitialized, nil); err != nil {
		return nil, err
	}
	return &session{version: res.ProtocolVersion, info: res.ServerInfo, capabilities: res.Capabilities, instructions: res.Instructions, peer: peer, taskTools: newTaskTools(res.Capabilities)}, nil
}

// connectError turns the end of a handshake bounded by the connect timeout
// into the reference system's error.
func connectError(ctx context.Context, conn *transport.Conn, server string, cfg *Spec, err error) error {
	if errors.Is(context.Cause(ctx), errConnectDeadline) {
		// A server that printed something other than JSON-RPC on stdout
		// (a banner, a prompt, its failure) and never answered: what it
		// printed says why.
		n, first := conn.SkippedStdout()
		return callerr.NewConnectTimeout(&callerr.Error{Server: server, After: cfg.connectTimeout(), SkippedStdout: n, Stdout: first})
	}
	return err
}

var errConnectDeadline = errors.New("connect timeout")
