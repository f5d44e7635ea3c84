package actors

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/transport"
)

// A client outlives its connections. Each connection to the server (a
// transport actor and the handshake run over it) is a generation: the
// first connect is generation 1, and every repair (a restart by the
// manager, an expired HTTP session, or Client.Reconnect) starts the next
// one on the same client actor and the same Client handle
// (docs/architecture.md, "Connection generations"). A second probe of the
// server's protocol, and the fallback to legacy HTTP+SSE, happen within
// one generation's handshake.
//
// The client actor publishes each generation through an atomic pointer in
// the handle. A generation's fields are written once, before ready closes,
// so callers read them without locks; callers read the pointer on every
// call, so a call made during a repair waits for the new generation and a
// call made after it runs on it.
type generation struct {
	n     uint64
	ready chan struct{} // closed when the handshake has ended, either way
	// Written once by the client actor before ready is closed.
	conn *transport.Conn // nil only when the generation never started a transport
	sess *session
	err  error // why the handshake did not establish a session
	// replaced is closed when a newer generation is published or the
	// client is closed for good.
	replaced chan struct{}
	// final marks the generation published by Close: there is no next one.
	final bool
	// headers maps each tool to its x-mcp-header arguments, once the tool
	// list has been read on this connection (stateless protocol over HTTP).
	headers atomic.Pointer[map[string][]headerParam]
	// listing shares a tool listing among the calls waiting for headers.
	listing singleflight.Group
	// routes holds the read-only header maps of sharedHeaders.
	routes atomic.Pointer[map[headerRoute]map[string]string]
}

func newGeneration(n uint64) *generation {
	return &generation{n: n, ready: make(chan struct{}), replaced: make(chan struct{})}
}

// finish publishes the outcome of the handshake.
func (g *generation) finish(conn *transport.Conn, s *session, err error) {
	select {
	case <-g.ready:
		return
	default:
	}
	g.conn, g.sess, g.err = conn, s, err
	close(g.ready)
}

// isReady reports whether the handshake has ended.
func (g *generation) isReady() bool {
	select {
	case <-g.ready:
		return true
	default:
		return false
	}
}

// established returns the generation's session once its handshake has
// succeeded, else nil.
func (g *generation) established() *session {
	if g.isReady() && g.err == nil {
		return g.sess
	}
	return nil
}

// publish makes g the current generation and tells whoever watches the
// previous one. Only the client actor calls it.
func (c *Client) publish(g *generation) {
	old := c.gen.Swap(g)
	if old != nil {
		close(old.replaced)
	}
}

// current waits until the current generation's handshake has ended and
// returns it when it established a session. A caller that finds the
// handshake failed while a newer generation is already on its way (a
// repair) waits for that one instead, bounded by ctx; the handshake itself
// is bounded by the connect timeout.
func (c *Client) current(ctx context.Context) (*generation, error) {
	for {
		g := c.gen.Load()
		if !g.isReady() {
			// A generation superseded before its handshake ended (a
			// repair, the close) may never be ready: wait for its
			// successor then, and for nothing once the client is closed.
			select {
			case <-g.ready:
			case <-g.replaced:
				continue
			case <-c.closed:
				return nil, closedError(c.name, nil)
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		if g.err == nil {
			return g, nil
		}
		select {
		case <-g.replaced:
			if next := c.gen.Load(); next != g && !next.final {
				continue
			}
			return nil, c.gen.Load().err
		default:
			return nil, g.err
		}
	}
}

// Generation describes one connection generation of a Client.
type Generation struct {
	// Number is 1 for the first connection and one more for each repair.
	Number uint64
	// Ready is closed when the generation's handshake has ended, either
	// way; Client.Err then tells which.
	Ready <-chan struct{}
	// Replaced is closed when a newer generation starts or the client is
	// closed for good: the moment to look again.
	Replaced <-chan struct{}
}

// Generation returns the current connection generation. Err, ServerInfo,
// Capabilities and ProtocolVersion describe it; Stats count over all of
// them. Watching Replaced observes every change:
//
//	for {
//		g := c.Generation()
//		<-g.Replaced // a repair started, or the client closed
//	}
func (c *Client) Generation() Generation {
	g := c.gen.Load()
	return Generation{Number: g.n, Ready: g.ready, Replaced: g.replaced}
}

// closedError is the error of the final generation: the last
// generation's failure when it never connected, else an asked-for close.
func closedError(server string, last *generation) error {
	if last != nil && last.isReady() && last.err != nil {
		return last.err
	}
	return callerr.NewTransportClosed(&callerr.Error{Server: server, Closed: true})
}

// stateless reports whether g speaks the stateless protocol (2026-07-28):
// the value the request path reads wherever the two protocols differ
// (request.go).
func (g *generation) stateless() bool { return g.sess != nil && g.sess.stateless }
