package cluster

import (
	"crypto/rand"
	"crypto/subtle"
	"sync"
)

// pendingCall is a request sent to another member, waiting for its
// response. It ends exactly once: with the response, with an error when
// its member is lost, or when its caller stops waiting.
//
// Request ids are sequential, hence guessable; token is not. It goes
// only to member (over the connection to its address, under TLS when
// configured), and a response completes the call only if it names that
// member and carries the token back: another peer that can send this
// member messages cannot answer in member's place.
type pendingCall struct {
	id      Identity
	method  string
	member  string
	address string
	token   [tokenSize]byte
	done    chan outcome // buffered: the one outcome never blocks
	// progress holds the call's progress notifications until its
	// caller takes them; nil for a call that asked for none
	// (progress.go).
	progress *progressQueue
}

// tokenSize is the size of a request's token: 128 random bits.
const tokenSize = 16

type outcome struct {
	resp *response
	err  error
}

// pendingCalls is the table of requests in flight to other members, by
// request id.
type pendingCalls struct {
	mu    sync.Mutex
	next  uint64
	calls map[uint64]*pendingCall
}

func (p *pendingCalls) init() { p.calls = map[uint64]*pendingCall{} }

func (p *pendingCalls) add(c *pendingCall) uint64 {
	c.done = make(chan outcome, 1)
	_, _ = rand.Read(c.token[:]) // never fails (crypto/rand)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	p.calls[p.next] = c
	return p.next
}

// deliver ends the call r answers, if r comes from the member the call
// was sent to with its token. It reports false for a response that does
// not (forged, or misrouted): the call keeps waiting for its own. A
// response to a call that ended already (its caller gave up, its member
// was lost) is dropped, and true.
func (p *pendingCalls) deliver(r *response) bool {
	p.mu.Lock()
	c, ok := p.calls[r.ID]
	if ok && (r.Member != c.member || subtle.ConstantTimeCompare(r.Token, c.token[:]) != 1) {
		p.mu.Unlock()
		return false
	}
	delete(p.calls, r.ID)
	p.mu.Unlock()
	if ok {
		c.done <- outcome{resp: r}
	}
	return true
}

func (p *pendingCalls) remove(id uint64) {
	p.mu.Lock()
	delete(p.calls, id)
	p.mu.Unlock()
}

// failWhere ends every call for which match holds with err(call).
func (p *pendingCalls) failWhere(match func(*pendingCall) bool, err func(*pendingCall) error) {
	p.mu.Lock()
	var ended []*pendingCall
	for id, c := range p.calls {
		if match(c) {
			delete(p.calls, id)
			ended = append(ended, c)
		}
	}
	p.mu.Unlock()
	for _, c := range ended {
		c.done <- outcome{err: err(c)}
	}
}

func (p *pendingCalls) failMember(member, reason string) {
	p.failWhere(func(c *pendingCall) bool { return c.member == member }, lostError(reason))
}

func (p *pendingCalls) failAddress(address, reason string) {
	p.failWhere(func(c *pendingCall) bool { return c.address == address }, lostError(reason))
}

func (p *pendingCalls) failAll(err func(*pendingCall) error) {
	p.failWhere(func(*pendingCall) bool { return true }, err)
}

func lostError(reason string) func(*pendingCall) error {
	return func(c *pendingCall) error {
		return &MemberLostError{Identity: c.id, Member: c.member, Method: c.method, Reason: reason}
	}
}
