package actors

import "sync"

// callbackGate guards every call into user code made on a client's behalf
// (handlers, the notification subscriber, stderr lines), so that after
// Close returns none of them starts again. Close never waits for user
// code: the callbacks running when it shuts the gate are abandoned, and
// counted.
//
// A mutex, not actor state: the gate is crossed from the goroutines that
// run user code, and it must answer at once, without a round trip through
// the client actor. It holds no protocol state.
type callbackGate struct {
	mu      sync.Mutex
	shut    bool
	running int
}

// enter reports whether a callback may start; if so, the caller must call
// exit when it returns.
func (g *callbackGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		return false
	}
	g.running++
	return true
}

func (g *callbackGate) exit() {
	g.mu.Lock()
	g.running--
	g.mu.Unlock()
}

// shutAndCount shuts the gate and returns how many callbacks are still
// running: those are abandoned. Only the first call counts them.
func (g *callbackGate) shutAndCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		return 0
	}
	g.shut = true
	return g.running
}

// isShut reports whether the gate has been shut.
func (g *callbackGate) isShut() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.shut
}

// run calls f if the gate is open, and reports whether it did.
func (g *callbackGate) run(f func()) bool {
	if !g.enter() {
		return false
	}
	defer g.exit()
	f()
	return true
}
