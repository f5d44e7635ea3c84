package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// outbound bounds what a member queues for each other member: protoactor's
// endpoint writer keeps, per peer address, a queue of up to a million
// messages with no byte bound, and its handshake waits for the peer's
// answer with no timeout, so a peer that accepts the gRPC stream and then
// never answers (or never reads) would pin every message sent to it in
// memory. The pinned protoactor is used as it is; the bound is ours, at
// both ends of its queue:
//
//   - admit counts the bytes of each message the member hands protoactor
//     for an address (requests in route.go, replies in serve.go) and
//     refuses one that would take the address's backlog, the bytes
//     handed over and not yet written to its sockets, above
//     Config.MaxOutboundBytes (a message is always admitted when nothing
//     is waiting: one above the bound passes alone).
//   - The remote layer dials through dial, whose connections count the
//     bytes written to each address's sockets.
//   - watch evicts an address whose backlog has made no progress for
//     Config.OutboundStallTimeout, a handshake that never completed
//     included: it closes that address's connections, which fails
//     protoactor's handshake or send, so that its endpoint writer stops
//     (its queue is then dropped) and the remote layer reports the
//     endpoint terminated, which ends the calls waiting on that member
//     with *MemberLostError.
//
// The counts are of bytes on the wire, framing and TLS included, so a
// backlog reads a little smaller than it is: by the framing of the
// messages in flight, not more (written never runs ahead of admitted).
type outbound struct {
	limit  int64
	stall  time.Duration
	counts *counters
	log    *slog.Logger
	member string

	mu    sync.Mutex
	peers map[string]*peerOut
}

// peerOut is one address's backlog, under outbound.mu.
type peerOut struct {
	admitted, written int64
	progress          time.Time // when the backlog was last empty or moved
	conns             map[*countedConn]struct{}
}

func newOutbound(cfg Config, counts *counters) *outbound {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &outbound{limit: cfg.MaxOutboundBytes, stall: cfg.OutboundStallTimeout, counts: counts,
		log: cfg.Logger, member: cfg.Name, peers: map[string]*peerOut{}}
}

// BackloggedError refuses a message to a member whose backlog (messages
// handed to the remote layer and not yet written to its connection) is
// at Config.MaxOutboundBytes: the member is not reading, or not as fast
// as it is sent to. The message was not sent. It matches ErrBacklogged.
type BackloggedError struct {
	Member  string // the member the message was for
	Address string
	Backlog int64 // bytes waiting for it
	Limit   int64 // Config.MaxOutboundBytes
}

func (e *BackloggedError) Error() string {
	return fmt.Sprintf("cluster: member %s at %s has %d bytes waiting to be written, at the %d-byte bound (Config.MaxOutboundBytes): not sent",
		e.Member, e.Address, e.Backlog, e.Limit)
}

func (e *BackloggedError) Is(target error) bool { return target == ErrBacklogged }

func (o *outbound) peer(addr string) *peerOut {
	p := o.peers[addr]
	if p == nil {
		p = &peerOut{progress: time.Now(), conns: map[*countedConn]struct{}{}}
		o.peers[addr] = p
	}
	return p
}

// admit counts n bytes about to be sent to member at addr, or refuses
// them (counted) with a *BackloggedError.
func (o *outbound) admit(member, addr string, n int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.peer(addr)
	backlog := p.admitted - p.written
	if backlog > 0 && backlog+int64(n) > o.limit {
		o.counts.backlogged.Add(1)
		return &BackloggedError{Member: member, Address: addr, Backlog: backlog, Limit: o.limit}
	}
	if backlog == 0 {
		p.progress = time.Now()
	}
	p.admitted += int64(n)
	return nil
}

// wrote counts n bytes written to a connection of addr.
func (o *outbound) wrote(addr string, n int) {
	if n <= 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.peer(addr)
	if p.written < p.admitted {
		p.written = min(p.written+int64(n), p.admitted)
		p.progress = time.Now()
	}
}

// backlog is what waits for addr, for tests and logs.
func (o *outbound) backlog(addr string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if p := o.peers[addr]; p != nil {
		return p.admitted - p.written
	}
	return 0
}

// forget drops addr's backlog: its endpoint terminated, and its queue
// with it.
func (o *outbound) forget(addr string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.peers[addr]
	if p == nil {
		return
	}
	p.admitted, p.written = 0, 0
	if len(p.conns) == 0 {
		delete(o.peers, addr)
	}
}

// dial is the remote layer's dialer: a TCP connection that counts what
// is written to it.
func (o *outbound) dial(ctx context.Context, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	cc := &countedConn{Conn: c, o: o, addr: addr}
	o.mu.Lock()
	o.peer(addr).conns[cc] = struct{}{}
	o.mu.Unlock()
	return cc, nil
}

// watch evicts stalled addresses until ctx ends.
func (o *outbound) watch(ctx context.Context) {
	t := time.NewTicker(max(o.stall/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			o.evictStalled(time.Now())
		}
	}
}

// evictStalled closes the connections of each address whose backlog has
// not moved for the stall timeout, and drops its backlog.
func (o *outbound) evictStalled(now time.Time) {
	var closing []*countedConn
	o.mu.Lock()
	for addr, p := range o.peers {
		backlog := p.admitted - p.written
		if backlog <= 0 || now.Sub(p.progress) < o.stall {
			continue
		}
		o.counts.stalledPeers.Add(1)
		o.log.Warn("cluster peer evicted: nothing it was sent was written for the stall timeout (a handshake that never completed, or a peer that does not read)",
			"member", o.member, "address", addr, "backlog", backlog, "stall", o.stall)
		for c := range p.conns {
			closing = append(closing, c)
		}
		p.admitted, p.written = 0, 0
	}
	o.mu.Unlock()
	for _, c := range closing {
		_ = c.Close()
	}
}

// countedConn is a connection to a peer that reports what is written.
type countedConn struct {
	net.Conn
	o    *outbound
	addr string
	once sync.Once
}

func (c *countedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.o.wrote(c.addr, n)
	return n, err
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.o.mu.Lock()
		if p := c.o.peers[c.addr]; p != nil {
			delete(p.conns, c)
		}
		c.o.mu.Unlock()
	})
	return c.Conn.Close()
}
