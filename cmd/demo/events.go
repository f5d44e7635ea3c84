package main

import (
	"context"
	"log/slog"
	"sync"

	"github.com/mcpactor/mcpactor"
)

// eventLog keeps what the manager's OnEvent reports, so that a step can
// wait for the change it is about (the live tool list replacing the cached
// one) and print it in its place, rather than events interleaving with the
// steps' output from the manager's goroutine.
type eventLog struct {
	logger *slog.Logger

	mu     sync.Mutex
	events []mcpactor.ManagerEvent
	wake   chan struct{} // closed at the next event
}

func newEventLog(logger *slog.Logger) *eventLog {
	return &eventLog{logger: logger, wake: make(chan struct{})}
}

// add is the manager's OnEvent.
func (l *eventLog) add(e mcpactor.ManagerEvent) {
	l.logger.Debug("demo: manager event", "kind", e.Kind, "server", e.Server, "state", e.State, "err", e.Err)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	close(l.wake)
	l.wake = make(chan struct{})
}

// snapshot returns the events so far and a channel closed at the next one.
func (l *eventLog) snapshot() ([]mcpactor.ManagerEvent, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events, l.wake
}

// changed returns a channel closed at the next event.
func (l *eventLog) changed() <-chan struct{} {
	_, wake := l.snapshot()
	return wake
}

// waitFor returns the first event from index from on that match accepts.
func (l *eventLog) waitFor(ctx context.Context, from int, match func(mcpactor.ManagerEvent) bool) (mcpactor.ManagerEvent, error) {
	for {
		events, wake := l.snapshot()
		for _, e := range events[min(from, len(events)):] {
			if match(e) {
				return e, nil
			}
		}
		from = len(events)
		select {
		case <-wake:
		case <-ctx.Done():
			return mcpactor.ManagerEvent{}, context.Cause(ctx)
		}
	}
}
