// Package harness holds the helpers the repository's tests share, each
// defined once: a bound on every wait and polling with that bound, a quiet
// actor system, a log of a server's stderr lines and a buffer safe for
// concurrent writes (Log), the memory a test measures (stack, live heap),
// a free loopback port, a test rerun in a child process, and span events.
// Tests assert outcomes and order with it, never speed: machines are shared
// and noisy, so where time is the behaviour itself, a test asserts only a
// generous bound.
package harness

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/mcpactor/mcpactor/internal/actorsys"
)

// Bound caps every wait: a test that waits this long has found a hang, not
// a slow machine.
const Bound = 20 * time.Second

// Context returns a context that ends after Bound or with the test.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Bound)
	t.Cleanup(cancel)
	return ctx
}

// WaitFor polls cond until it holds, failing the test after Bound.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	WaitWithin(t, Bound, what, cond)
}

// WaitWithin is WaitFor with a bound of its own, for a wait whose length is
// set by a load the test makes (tens of MiB through a pipe under the race
// detector), not by the behaviour it checks.
func WaitWithin(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ActorSystem returns an actor system, configured as the runtime's, that is
// shut down when the test ends.
func ActorSystem(t testing.TB) *actor.ActorSystem {
	t.Helper()
	sys := actorsys.New()
	t.Cleanup(sys.Shutdown)
	return sys
}

// keptLines bounds the lines Lines keeps; a flood is counted, not kept.
const keptLines = 10000

// Lines collects the lines a server writes to stderr. Add is safe for
// concurrent use and fits StdioConfig.StderrLine.
type Lines struct {
	mu    sync.Mutex
	lines []string
	count atomic.Int64
}

// Add records one line.
func (l *Lines) Add(line string) {
	l.count.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < keptLines {
		l.lines = append(l.lines, line)
	}
}

// Count reports how many lines were added, kept or not.
func (l *Lines) Count() int64 { return l.count.Load() }

// All returns a copy of the kept lines.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// WithPrefix returns the kept lines that start with prefix.
func (l *Lines) WithPrefix(prefix string) []string {
	var out []string
	for _, line := range l.All() {
		if strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return out
}

// Find returns the first kept line with prefix, if any.
func (l *Lines) Find(prefix string) (string, bool) {
	if found := l.WithPrefix(prefix); len(found) > 0 {
		return found[0], true
	}
	return "", false
}

// Wait waits (up to Bound) for a line starting with prefix and returns it.
func (l *Lines) Wait(t testing.TB, prefix string) string {
	t.Helper()
	var line string
	WaitFor(t, "stderr line "+strconv.Quote(prefix), func() bool {
		var ok bool
		line, ok = l.Find(prefix)
		return ok
	})
	return line
}
