package actors

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// The 2026-07-28 revision of MCP has no handshake and no session: every
// request carries its protocol version, the client's capabilities and its
// identity in params._meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index),
// and server/discover tells what a server speaks
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
// statelessProtocol holds what that protocol does when a connection starts.

// statelessVersions are the stateless versions we speak, newest first.
var statelessVersions = []string{messages.Version20260728}

// Error codes of the stateless protocol
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-codes).
const (
	codeHeaderMismatch                  = -32020
	codeMissingRequiredClientCapability = -32021
	codeUnsupportedProtocolVersion      = -32022
)

// statelessError reports whether code is one only a server of the
// stateless protocol sends, which tells the protocol even when the request
// failed.
func statelessError(code int64) bool {
	switch code {
	case codeHeaderMismatch, codeMissingRequiredClientCapability, codeUnsupportedProtocolVersion:
		return true
	}
	return false
}

// defaultProbeTimeout bounds the wait for an answer to server/discover
// from a server that may be of the session protocol: some of those never answer
// a request before initialize. It counts within the connect timeout.
const defaultProbeTimeout = 3 * time.Second

// statelessProtocol starts connections of the 2026-07-28 revision.
type statelessProtocol struct {
	server string
	caps   messages.ClientCapabilities
	info   messages.Implementation
	tel    *telemetry.Telemetry
}

// verdict is what a probe concluded about a server's protocol.
type verdict uint8

const (
	verdictStateless verdict = iota // it speaks 2026-07-28: sess is set
	verdictLegacy                   // it does not: use initialize
)

// probe sends server/discover, the probe of a dual-protocol client
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility
// and .../streamable-http#backward-compatibility): a DiscoverResult that
// lists a version we speak, or a recognised stateless error, means the
// stateless protocol (never fall back then); any other error, no answer within
// timeout (0: none but ctx), or a reply that lists no versions (some
// servers answer every unknown method with an empty result) means the
// session protocol. legacyVersion, when the server named session-protocol
// versions only, is one we speak.
func (e *statelessProtocol) probe(ctx context.Context, conn *transport.Conn, peer telemetry.Peer, timeout time.Duration) (sess *session, v verdict, legacyVersion string, err error) {
	sess, v, legacyVersion, err = e.probeWith(ctx, conn, peer, timeout, statelessVersions[0])
	var refused *versionRefused
	if errors.As(err, &refused) && refused.retry != "" {
		// The server refused the version we offered and listed one we
		// speak (SEP-2575: the client retries with a version the server
		// supports): once, so that a server that keeps refusing cannot
		// hold the connect in a loop.
		sess, v, legacyVersion, err = e.probeWith(ctx, conn, peer, timeout, refused.retry)
	}
	if errors.As(err, &refused) {
		err = refused.err
	}
	return sess, v, legacyVersion, err
}

// versionRefused is a probe's -32022 (unsupported protocol version)
// answer, with the version to try again with, if the server listed one we
// speak.
type versionRefused struct {
	err   *callerr.Error
	retry string
}

func (r *versionRefused) Error() string { return r.err.Error() }

// probeWith is probe offering version.
func (e *statelessProtocol) probeWith(ctx context.Context, conn *transport.Conn, peer telemetry.Peer, timeout time.Duration, version string) (sess *session, v verdict, legacyVersion string, err error) {
	meta := e.metaMembers(version)
	peer.ProtocolVersion = version
	pctx, op := e.tel.Start(ctx, &telemetry.Request{Peer: peer, Method: messages.MethodServerDiscover})
	params, _ := jsonrpc.WithMeta(nil, meta)
	opts := transport.RequestOptions{NoCancel: true, Timeout: -1, Header: statelessHeaders(conn, version, messages.MethodServerDiscover, "")}
	if timeout > 0 {
		opts.Timeout = timeout
	}
	if op != nil {
		params = op.InjectParams(params)
		opts.Observer = op
	}
	raw, err := conn.Call(pctx, messages.MethodServerDiscover, params, opts)
	if err != nil {
		sess, v, legacyVersion, jerr := e.judgeError(err, version)
		if jerr == nil && v == verdictLegacy {
			// A session-protocol server's refusal is the answer the probe
			// asked for, not a failure.
			op.EndExpected(err, telemetry.ProbeSessionEra)
		} else {
			op.End(err, false)
		}
		return sess, v, legacyVersion, jerr
	}
	var res messages.DiscoverResult
	if json.Unmarshal(raw, &res) != nil || len(res.SupportedVersions) == 0 {
		op.EndExpected(nil, telemetry.ProbeSessionEra)
		return nil, verdictLegacy, "", nil
	}
	mutual := firstShared(statelessVersions, res.SupportedVersions)
	// The version the connection goes on with, and only that one: none
	// when the session protocol's initialize follows.
	op.SetProtocolVersion(mutual)
	op.End(nil, false)
	if mutual != "" {
		return e.session(mutual, res, peer, conn), verdictStateless, "", nil
	}
	if legacy := firstShared(messages.SessionEraVersions(), res.SupportedVersions); legacy != "" {
		return nil, verdictLegacy, legacy, nil
	}
	return nil, verdictStateless, "", callerr.NewUnsupportedVersion(&callerr.Error{Server: e.server, Version: res.SupportedVersions[0], Supported: append(slices.Clone(statelessVersions), messages.SessionEraVersions()...)})
}

// judgeError classifies the error a probe offering version met.
func (e *statelessProtocol) judgeError(err error, version string) (*session, verdict, string, error) {
	var rpc *callerr.RPCError
	status := callerr.HTTPStatus(err)
	code, data := int64(0), json.RawMessage(nil)
	switch {
	case errors.As(err, &rpc):
		code, data = rpc.Code, rpc.Data
	case status != nil && status.RPC != nil:
		code, data = status.RPC.Code, status.RPC.Data
	case errors.As(err, &status), errors.Is(err, errkind.ErrTimeout):
		// An HTTP server that does not know the method (a session-protocol
		// server answers 400, 404 or 405), or a server that stays silent
		// before initialize.
		return nil, verdictLegacy, "", nil
	default:
		return nil, verdictLegacy, "", err // the transport itself failed
	}
	if !statelessError(code) {
		return nil, verdictLegacy, "", nil
	}
	// A server of the stateless protocol that refused the probe as it stood.
	if code == codeUnsupportedProtocolVersion {
		var d struct {
			Supported []string `json:"supported"`
		}
		_ = json.Unmarshal(data, &d)
		stateless := firstShared(statelessVersions, d.Supported)
		if legacy := firstShared(messages.SessionEraVersions(), d.Supported); legacy != "" && stateless == "" {
			return nil, verdictLegacy, legacy, nil
		}
		refused := callerr.NewUnsupportedVersion(&callerr.Error{Server: e.server, Version: version, Refused: true,
			Supported: append(slices.Clone(statelessVersions), messages.SessionEraVersions()...), Theirs: d.Supported})
		return nil, verdictStateless, "", &versionRefused{err: refused, retry: stateless}
	}
	return nil, verdictStateless, "", err
}

// session is what a successful probe establishes: nothing lives on the
// server, but the version, what the server declared and the _meta every
// request must carry are fixed for the connection.
func (e *statelessProtocol) session(version string, res messages.DiscoverResult, peer telemetry.Peer, conn *transport.Conn) *session {
	info, _ := res.Info()
	peer.ProtocolVersion = version
	conn.Establish(transport.Established{ProtocolVersion: version, Stateless: true})
	return &session{version: version, info: info, capabilities: res.Capabilities, instructions: res.Instructions,
		peer: peer, stateless: true, meta: e.metaMembers(version)}
}

// metaMembers encodes, once per connection, the _meta members of every
// request of the stateless protocol: the protocol version, the client's
// capabilities and its identity.
func (e *statelessProtocol) metaMembers(version string) []byte {
	caps, _ := json.Marshal(e.caps)
	info, _ := json.Marshal(e.info)
	v, _ := json.Marshal(version)
	b := make([]byte, 0, 128+len(caps)+len(info))
	b = append(b, `"`+messages.MetaKeyProtocolVersion+`":`...)
	b = append(b, v...)
	b = append(b, `,"`+messages.MetaKeyClientCapabilities+`":`...)
	b = append(b, caps...)
	b = append(b, `,"`+messages.MetaKeyClientInfo+`":`...)
	return append(b, info...)
}

// firstShared returns the first of ours that theirs lists too.
func firstShared(ours, theirs []string) string {
	for _, v := range ours {
		if slices.Contains(theirs, v) {
			return v
		}
	}
	return ""
}
