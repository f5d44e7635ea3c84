package mcpactor_test

// The independent peers as rows of a table: each feature's test (tools,
// progress, resources ...) is written once and run by run on every peer
// and transport that has the feature, one subtest per row, as net/http's
// tests run once per HTTP mode. A row is one peer (server-everything,
// peer_everything_test.go; the go-sdk server, peer_gosdk_test.go) reached
// one way: over stdio (peer_fixture_test.go) or over HTTP through a
// recording proxy (http_peer_fixture_test.go), in the session era or the
// 2026-07-28 one.

import (
	"testing"

	"github.com/mcpactor/mcpactor"
)

// peerConn is one connection of a row, with what the row can show of the
// wire.
type peerConn struct {
	peer      string // everythingServer or gosdkServer
	stateless bool   // the 2026-07-28 protocol was negotiated
	c         *mcpactor.Client
	rec       *peerRecorder

	stdio *peerFixture  // over stdio with a process of its own; nil otherwise
	http  *httpConn     // over HTTP: the connection and its wire; nil otherwise
	sent  *wireRecorder // over stdio through ServerConfig.Dial: what the client wrote; nil otherwise
}

// peerRow is a peer reached one way. A row's connection is shared by every
// test using the row (they take turns) unless the row was made with own:
// tests that change the session's state (log level, subscriptions, roots)
// or end it have a connection of their own.
type peerRow struct {
	name      string // the subtest's name
	peer      string
	stateless bool

	count  func(t *testing.T)                       // counts t as a user of the row's shared server; may be nil
	shared func(t *testing.T) *peerConn             // t's turn on the shared connection; nil if there is none
	ownFn  func(t *testing.T, plain bool) *peerConn // a connection of t's own

	owned bool
	plain bool
}

// own returns the row with a connection of each test's own; plain leaves
// out the handlers that declare client capabilities (roots, sampling,
// elicitation).
func (r peerRow) own(plain bool) peerRow {
	r.owned, r.plain = true, plain
	return r
}

// connect returns t's connection for the row.
func (r peerRow) connect(t *testing.T) *peerConn {
	t.Helper()
	if r.owned || r.shared == nil {
		return r.ownFn(t, r.plain)
	}
	return r.shared(t)
}

// run runs f once per row, as a subtest named by the row. It first counts
// t as a user of every shared server it needs and then makes t parallel,
// so that the count is complete before any user runs (sharedPeer,
// sharedHTTP); the rows then run one after the other.
func run(t *testing.T, f func(t *testing.T, p *peerConn), rows ...peerRow) {
	t.Helper()
	for _, r := range rows {
		if r.count != nil {
			r.count(t)
		}
	}
	t.Parallel()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) { f(t, r.connect(t)) })
	}
}

// stdioRow is a peer over stdio, shared through s or started for a test
// alone from spec.
func stdioRow(name, peer string, s *sharedPeer, spec func(t *testing.T) peerSpec) peerRow {
	return peerRow{
		name:  name,
		peer:  peer,
		count: s.count,
		shared: func(t *testing.T) *peerConn {
			f := s.take(t)
			return &peerConn{peer: peer, c: f.c, rec: f.rec, stdio: f}
		},
		ownFn: func(t *testing.T, plain bool) *peerConn {
			sp := spec(t)
			sp.plain = plain
			f := ownPeer(t, sp)
			return &peerConn{peer: peer, c: f.c, rec: f.rec, stdio: f}
		},
	}
}

// httpRow is a peer over HTTP, in the mode of its shared server s.
func httpRow(name, peer string, stateless bool, s *sharedHTTP) peerRow {
	conn := func(h *httpConn) *peerConn {
		return &peerConn{peer: peer, stateless: stateless, c: h.c, rec: h.rec, http: h}
	}
	return peerRow{
		name:      name,
		peer:      peer,
		stateless: stateless,
		count:     s.count,
		shared:    func(t *testing.T) *peerConn { return conn(s.shared(t)) },
		ownFn:     func(t *testing.T, plain bool) *peerConn { return conn(s.own(t, plain)) },
	}
}

// The rows.
var (
	everythingStdio      = stdioRow("everything-stdio", everythingServer, everything, everythingSpec)
	everythingStreamable = httpRow("everything-streamable", everythingServer, false, everythingStreamableHTTP)
	everythingSSE        = httpRow("everything-sse", everythingServer, false, everythingSSEHTTP)

	gosdkStdio         = stdioRow("gosdk-stdio", gosdkServer, gosdk, gosdkSpec)
	gosdkHTTP          = httpRow("gosdk-http", gosdkServer, false, gosdkSessionHTTP)
	gosdkHTTPStateless = httpRow("gosdk-http-stateless", gosdkServer, true, gosdkStatelessHTTP)
	// gosdkStdioStateless has no shared connection: each test starts the
	// server through a wireRecorder of its own.
	gosdkStdioStateless = peerRow{
		name:      "gosdk-stdio-stateless",
		peer:      gosdkServer,
		stateless: true,
		ownFn: func(t *testing.T, _ bool) *peerConn {
			c, rec, w := statelessGoSDK(t)
			return &peerConn{peer: gosdkServer, stateless: true, c: c, rec: rec, sent: w}
		},
	}
)
