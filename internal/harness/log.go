package harness

import (
	"bytes"
	"log/slog"
	"sync"
)

// Log collects what a logger writes, for tests that check that something
// was logged (a drop, a panic's stack). It is safe for concurrent use.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write records p.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything logged so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Logger returns a logger that writes text records of every level to l.
func (l *Log) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
