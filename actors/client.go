package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// Client is the handle on one MCP server connection. Its methods are safe
// for concurrent use. Requests made before the handshake has finished wait
// for it (bounded by the connect timeout); afterwards they go straight to
// the transport actor, without a hop through the client actor.
type Client struct {
	name string
	cfg  ServerConfig
	root *actor.RootContext
	pid  *actor.PID

	ready  chan struct{} // closed when the handshake has ended, either way
	closed chan struct{} // closed when everything is released
	// Written once by the client actor before ready is closed.
	conn *transport.Conn
	sess *session
	err  error

	progressSeq  atomic.Int64
	tel          *telemetry.Telemetry // nil when telemetry is off
	droppedNotes atomic.Int64         // written by the notification queue
	onClosed     func(*Client)
}

// Spawn starts a client for the server name under root and returns at once;
// the handshake runs in the background. onClosed, if set, runs once the
// client is fully closed.
func Spawn(root *actor.RootContext, name string, cfg ServerConfig, env Env, onClosed func(*Client)) *Client {
	env = env.withDefaults()
	h := &Client{name: name, cfg: cfg, root: root, ready: make(chan struct{}), closed: make(chan struct{}), onClosed: onClosed, tel: env.Telemetry}
	props := actor.PropsFromProducer(func() actor.Actor {
		return &clientActor{h: h, env: env, era: newSessionEra(name, cfg.ProtocolVersion, env)}
	})
	h.pid = root.Spawn(props)
	return h
}

func (c *Client) publishReady(s *session, conn *transport.Conn, err error) {
	select {
	case <-c.ready:
		return
	default:
	}
	c.sess, c.conn, c.err = s, conn, err
	close(c.ready)
}

func (c *Client) publishClosed() {
	if c.onClosed != nil {
		c.onClosed(c)
	}
	close(c.closed)
}

// Name returns the server's configured name.
func (c *Client) Name() string { return c.name }

// WaitReady waits for the handshake to end and returns its error, if any.
func (c *Client) WaitReady(ctx context.Context) error {
	_, err := c.session(ctx)
	return err
}

// session waits for the handshake and returns the live connection.
func (c *Client) session(ctx context.Context) (*transport.Conn, error) {
	select {
	case <-c.ready:
	default:
		select {
		case <-c.ready:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	return c.conn, nil
}

// ServerInfo returns the server's name and version from the handshake (zero
// before it has succeeded).
func (c *Client) ServerInfo() messages.Implementation {
	if s := c.established(); s != nil {
		return s.info
	}
	return messages.Implementation{}
}

// Capabilities returns what the server declared in the handshake.
func (c *Client) Capabilities() messages.ServerCapabilities {
	if s := c.established(); s != nil {
		return s.capabilities
	}
	return messages.ServerCapabilities{}
}

// Instructions returns the server's instructions for the model, if any.
func (c *Client) Instructions() string {
	if s := c.established(); s != nil {
		return s.instructions
	}
	return ""
}

// ProtocolVersion returns the negotiated protocol version.
func (c *Client) ProtocolVersion() string {
	if s := c.established(); s != nil {
		return s.version
	}
	return ""
}

func (c *Client) established() *session {
	select {
	case <-c.ready:
		return c.sess
	default:
		return nil
	}
}

// Stats returns the transport's counts of dropped and refused input.
func (c *Client) Stats() transport.Stats {
	select {
	case <-c.ready:
		if c.conn != nil {
			return c.conn.Stats()
		}
	default:
	}
	return transport.Stats{}
}

// DroppedNotifications returns how many notifications were dropped because
// Handlers.Notification fell behind and the queue (Env.NotificationQueue)
// was full; the oldest waiting ones go first.
func (c *Client) DroppedNotifications() int64 { return c.droppedNotes.Load() }

// MailboxDepth reports the messages from the server's reader waiting in the
// transport actor's mailbox, each a run of frames read together (0 before
// the handshake).
func (c *Client) MailboxDepth() int {
	if c.established() == nil || c.conn == nil {
		return 0
	}
	return c.conn.MailboxDepth()
}

// Err returns why the connection ended, or nil while it is usable.
func (c *Client) Err() error {
	select {
	case <-c.ready:
		if c.err != nil {
			return c.err
		}
		return c.conn.Err()
	default:
		return nil
	}
}

// Done is closed when the client has been closed and everything it started
// (process, goroutines) is gone.
func (c *Client) Done() <-chan struct{} { return c.closed }

// Close ends the connection in order: pending requests fail with
// ErrTransportClosed, the server is asked to exit (stdin closed, then
// SIGTERM, then SIGKILL), and Close returns when it has been reaped. If ctx
// ends first, the grace periods are skipped; Close still waits for the kill,
// which is quick.
func (c *Client) Close(ctx context.Context) error {
	c.root.Send(c.pid, closeClient{})
	select {
	case <-c.closed:
	case <-ctx.Done():
		c.root.Send(c.pid, forceClient{})
		<-c.closed
	}
	return nil
}

// call encodes params, sends the request and decodes the result into out.
// The span starts before the wait for the handshake, so that the wait shows
// in it (telemetry.md: "queued" events).
func (c *Client) call(ctx context.Context, method string, params any, out any, opts transport.CallOptions) error {
	return c.callProgress(ctx, method, params, out, opts, nil)
}

// callProgress is call for a request that carries a progress token
// (opts.ProgressToken): each notification is decoded once, recorded on the
// span, and handed to onProgress (which may be nil: the token may be there
// only to extend the timeout).
func (c *Client) callProgress(ctx context.Context, method string, params any, out any, opts transport.CallOptions, onProgress func(messages.ProgressParams)) error {
	var op *telemetry.Op
	if opts.ProgressToken != "" {
		opts.OnProgress = func(raw json.RawMessage) {
			var p messages.ProgressParams
			if json.Unmarshal(raw, &p) != nil {
				return
			}
			op.Progress(p.Progress, p.Total, p.Message)
			if onProgress != nil {
				onProgress(p)
			}
		}
	}
	if c.tel == nil {
		conn, err := c.session(ctx)
		if err != nil {
			return err
		}
		return exchange(ctx, nil, conn, method, params, out, opts)
	}
	req := telemetry.Request{Peer: c.peer(), Method: method}
	describe(&req, params, c.tel.RecordsToolArguments())
	ctx, op = c.tel.Start(ctx, &req)
	c.tel.InFlight(c.name, 1)
	defer c.tel.InFlight(c.name, -1)
	conn, err := c.sessionObserved(ctx, op)
	if err == nil {
		err = exchange(ctx, op, conn, method, params, out, opts)
	}
	toolError := false
	if res, ok := out.(*messages.CallToolResult); ok && err == nil {
		toolError = res.IsError
	}
	op.End(err, toolError)
	return err
}

// sessionObserved is session, with the wait for the handshake shown on op.
func (c *Client) sessionObserved(ctx context.Context, op *telemetry.Op) (*transport.Conn, error) {
	select {
	case <-c.ready:
	default:
		op.Queued("handshake")
		defer op.Dequeued()
	}
	return c.session(ctx)
}

// peer describes the server for telemetry: the negotiated version once the
// handshake is done.
func (c *Client) peer() telemetry.Peer {
	if s := c.established(); s != nil {
		return s.peer
	}
	return telemetry.StdioPeer(c.name)
}

// InvalidResultError reports a result that does not decode as the method's
// result type.
type InvalidResultError struct {
	Server string
	Method string
	Err    error
	Body   string // the first bytes of the result
}

func (e *InvalidResultError) Error() string {
	return fmt.Sprintf("MCP server %q: invalid %s result: %v (result starts %q)", e.Server, e.Method, e.Err, e.Body)
}

func (e *InvalidResultError) Unwrap() error { return e.Err }

func snippet(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
