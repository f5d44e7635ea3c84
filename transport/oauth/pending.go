package oauth

import (
	"container/list"
	"errors"
	"sync"
	"time"
)

// Authorization requests waiting for their answer (Complete), when there
// is no UserStep. Each holds a PKCE verifier and what its code is
// exchanged with, so they are bounded in number and in time: at most
// maxPending at once (a new one pushes out the oldest, whose answer is
// then refused as a stale state), and each is forgotten pendingTTL after
// it was made, by a timer of its own, whether or not anything looks at
// the set again. Lookups are by state and by flight, never a scan.

// pendingTTL is how long an authorization request waits for its answer
// (Complete) when there is no UserStep.
const pendingTTL = 10 * time.Minute

// maxPending bounds the authorization requests a Client keeps waiting:
// one per identity (and scope set) whose user has not come back yet.
const maxPending = 4096

// errPendingExpired fails Complete for a request older than pendingTTL.
var errPendingExpired = errors.New("oauth: the authorization request has expired")

// pendingSet is the authorization requests waiting for their answer.
type pendingSet struct {
	mu       sync.Mutex
	byState  map[string]*pending
	byFlight map[string]*pending // the latest request of each flight
	order    list.List           // of *pending, oldest first
	ttl      time.Duration       // 0: pendingTTL
	max      int                 // 0: maxPending
}

func (s *pendingSet) limits() (time.Duration, int) {
	ttl, max := s.ttl, s.max
	if ttl <= 0 {
		ttl = pendingTTL
	}
	if max <= 0 {
		max = maxPending
	}
	return ttl, max
}

// add keeps p waiting, pushing out the oldest request when the set is
// full, and forgets p when its time is up.
func (s *pendingSet) add(p *pending) {
	ttl, max := s.limits()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byState == nil {
		s.byState, s.byFlight = map[string]*pending{}, map[string]*pending{}
	}
	for s.order.Len() >= max {
		s.removeLocked(s.order.Front().Value.(*pending))
	}
	p.elem = s.order.PushBack(p)
	s.byState[p.state] = p
	s.byFlight[p.flight] = p
	p.timer = time.AfterFunc(ttl, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.removeLocked(p)
	})
}

// removeLocked forgets p, if it is still here.
func (s *pendingSet) removeLocked(p *pending) {
	// p leaves the order whatever the maps say: add's eviction loop ends
	// only when the order shrinks.
	if p.elem != nil {
		s.order.Remove(p.elem)
		p.elem = nil
	}
	if s.byState[p.state] != p {
		return
	}
	delete(s.byState, p.state)
	if s.byFlight[p.flight] == p {
		delete(s.byFlight, p.flight)
	}
	p.timer.Stop()
}

// waiting returns the request of flight still waiting, if any.
func (s *pendingSet) waiting(flight string) *pending {
	ttl, _ := s.limits()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.byFlight[flight]
	if p == nil || time.Since(p.created) > ttl {
		return nil
	}
	return p
}

// take removes and returns the request of state for identity. One
// started for another identity stays (ErrWrongIdentity).
func (s *pendingSet) take(state, identity string) (*pending, error) {
	ttl, _ := s.limits()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.byState[state]
	switch {
	case p == nil || state == "":
		return nil, ErrStateMismatch
	case p.key.Identity != identity:
		return nil, ErrWrongIdentity
	}
	s.removeLocked(p)
	if time.Since(p.created) > ttl {
		return nil, errPendingExpired
	}
	return p, nil
}

// len returns how many requests wait.
func (s *pendingSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}
