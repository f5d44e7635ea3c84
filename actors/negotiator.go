package actors

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// negotiator starts a connection in the right protocol, per
// server, without the user having to know which one the server speaks
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning):
//
//   - a version pinned in the configuration decides alone;
//   - else the protocol remembered for the server (from an earlier connection
//     of this runtime) skips the probe;
//   - else server/discover probes: the stateless protocol when the server
//     speaks it, the initialize handshake otherwise. HTTP connections to
//     one server that start together probe it once: the others wait for
//     the first one's probe and take its verdict (transportMemo.learn).
//
// When initialize, after a probe that timed out (or a remembered session
// protocol), meets an error only a stateless-protocol server sends, the
// server is probed once more: a slow server is not misjudged for good.
type negotiator struct {
	legacy       *sessionProtocol
	stateless    *statelessProtocol
	pinned       string
	probe        bool // false for the legacy HTTP+SSE transport, which predates the probe
	probeTimeout time.Duration
	memo         *transportMemo
	key          string // the server, for memo
	// shareProbe: connections to the server that start together take one
	// probe's verdict (transportMemo.learn). Over HTTP only, where many
	// sessions reach one endpoint; stdio servers of one command are
	// processes of their own, each answering its own probe at once, and
	// their handshakes stay apart.
	shareProbe bool
}

func (n *negotiator) handshake(ctx context.Context, conn *transport.Conn, peer telemetry.Peer) (*session, error) {
	switch {
	case slices.Contains(statelessVersions, n.pinned):
		sess, v, _, err := n.stateless.probe(ctx, conn, peer, 0)
		if err == nil && v != verdictStateless {
			err = callerr.NewUnsupportedVersion(&callerr.Error{Server: n.stateless.server, Version: "(session protocol)", Supported: statelessVersions})
		}
		return sess, err
	case n.pinned != "", !n.probe:
		return n.legacy.handshake(ctx, conn, peer)
	}
	found, probed, done := protocolUnknown, func(protocolOf) {}, func() {}
	if n.shareProbe {
		found, probed, done = n.memo.learn(ctx, n.key, n.probeTimeout)
	}
	defer done()
	remembered := n.memo.protocol(n.key)
	if remembered == protocolUnknown {
		remembered = found
	}
	timedOut := remembered == protocolSession
	if remembered != protocolSession {
		timeout := n.probeTimeout
		if remembered == protocolStateless {
			timeout = 0 // known to answer: wait for it as for any request
		}
		start := time.Now()
		sess, v, _, err := n.stateless.probe(ctx, conn, peer, timeout)
		switch {
		case v == verdictStateless:
			if err == nil {
				n.memo.setProtocol(n.key, protocolStateless)
				probed(protocolStateless)
			}
			return sess, err
		case err != nil:
			return nil, err
		}
		// Not the stateless protocol, or no answer in time: the
		// connections waiting for this probe go straight to
		// initialize, as after a remembered session protocol.
		probed(protocolSession)
		timedOut = timeout > 0 && time.Since(start) >= timeout
	}
	sess, err := n.legacy.handshake(ctx, conn, peer)
	if err != nil && timedOut && isStatelessError(err) {
		// The probe's silence was slowness, not the session protocol.
		n.memo.setProtocol(n.key, protocolUnknown)
		sess, v, _, perr := n.stateless.probe(ctx, conn, peer, 0)
		if perr == nil && v == verdictStateless {
			n.memo.setProtocol(n.key, protocolStateless)
			return sess, nil
		}
		return nil, err
	}
	if err == nil {
		n.memo.setProtocol(n.key, protocolSession)
	}
	return sess, err
}

// isStatelessError reports whether err carries an error code only a server of
// the stateless protocol sends.
func isStatelessError(err error) bool {
	var rpc *callerr.RPCError
	status := callerr.HTTPStatus(err)
	switch {
	case errors.As(err, &rpc):
		return statelessError(rpc.Code)
	case status != nil && status.RPC != nil:
		return statelessError(status.RPC.Code)
	}
	return false
}

// protocolOf names a protocol for the memo.
type protocolOf uint8

const (
	protocolUnknown   protocolOf = iota
	protocolSession              // the initialize handshake
	protocolStateless            // 2026-07-28
)
