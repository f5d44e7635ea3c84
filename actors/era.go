package actors

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// negotiator starts a connection in the right era of the protocol, per
// server, without the user having to know which one the server speaks
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning):
//
//   - a version pinned in the configuration decides alone;
//   - else the era remembered for the server (from an earlier connection
//     of this runtime) skips the probe;
//   - else server/discover probes: the stateless era when the server
//     speaks it, the initialize handshake otherwise.
//
// When initialize, after a probe that timed out (or a remembered session
// era), meets an error only a stateless-era server sends, the server is
// probed once more: a slow server is not misjudged for good.
type negotiator struct {
	legacy       *sessionEra
	modern       *statelessEra
	pinned       string
	probe        bool // false for the legacy HTTP+SSE transport, which predates the probe
	probeTimeout time.Duration
	memo         *transportMemo
	key          string // the server, for memo
}

func (n *negotiator) handshake(ctx context.Context, conn *transport.Conn, peer telemetry.Peer) (*session, error) {
	switch {
	case slices.Contains(modernVersions, n.pinned):
		sess, v, _, err := n.modern.probe(ctx, conn, peer, 0)
		if err == nil && v != verdictModern {
			err = &messages.UnsupportedVersionError{Server: n.modern.server, Version: "(session era)", Supported: modernVersions}
		}
		return sess, err
	case n.pinned != "", !n.probe:
		return n.legacy.handshake(ctx, conn, peer)
	}
	remembered := n.memo.era(n.key)
	timedOut := remembered == eraLegacy
	if remembered != eraLegacy {
		timeout := n.probeTimeout
		if remembered == eraModern {
			timeout = 0 // known to answer: wait for it as for any request
		}
		start := time.Now()
		sess, v, _, err := n.modern.probe(ctx, conn, peer, timeout)
		switch {
		case v == verdictModern:
			if err == nil {
				n.memo.setEra(n.key, eraModern)
			}
			return sess, err
		case err != nil:
			return nil, err
		}
		timedOut = timeout > 0 && time.Since(start) >= timeout
	}
	sess, err := n.legacy.handshake(ctx, conn, peer)
	if err != nil && timedOut && isModernError(err) {
		// The probe's silence was slowness, not the session era.
		n.memo.setEra(n.key, eraUnknown)
		sess, v, _, perr := n.modern.probe(ctx, conn, peer, 0)
		if perr == nil && v == verdictModern {
			n.memo.setEra(n.key, eraModern)
			return sess, nil
		}
		return nil, err
	}
	if err == nil {
		n.memo.setEra(n.key, eraLegacy)
	}
	return sess, err
}

// isModernError reports whether err carries an error code only a server of
// the stateless era sends.
func isModernError(err error) bool {
	var rpc *messages.RPCError
	var status *messages.HTTPStatusError
	switch {
	case errors.As(err, &rpc):
		return modernError(rpc.Code)
	case errors.As(err, &status) && status.RPC != nil:
		return modernError(status.RPC.Code)
	}
	return false
}

// eraOf names an era for the memo.
type eraOf uint8

const (
	eraUnknown eraOf = iota
	eraLegacy        // the initialize handshake
	eraModern        // 2026-07-28
)
