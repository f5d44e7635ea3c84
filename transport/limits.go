package transport

import "time"

// Limits bound one connection, whatever its transport: how long a request
// may take, how many may be out, how large a frame may be and how many
// bytes may wait in each queue (docs/architecture.md, "Bounded
// everything"). The zero value of each field selects its default.
type Limits struct {
	RequestTimeout time.Duration // each request; default DefaultRequestTimeout
	MaxInFlight    int           // requests queued or awaiting an answer; default defaultMaxInFlight
	// QueueTimeout bounds the wait for an in-flight slot when MaxInFlight
	// requests are out; default DefaultQueueTimeout, negative: only the
	// request's timeout bounds it.
	QueueTimeout time.Duration
	// MaxFrameSize is the longest frame accepted: a stdio line, a JSON
	// body or an SSE event; default defaultMaxFrameSize (16 MiB).
	MaxFrameSize int
	// MaxWriteBytes bounds the frames (request bodies over HTTP) waiting
	// to be written; callers beyond it wait. Default defaultMaxWriteBytes.
	MaxWriteBytes int
	// MaxProgressBytes bounds the progress waiting for all callers of the
	// connection, MaxCallProgressBytes for one caller. Defaults
	// defaultMaxProgressBytes and defaultMaxCallProgressBytes.
	MaxProgressBytes     int
	MaxCallProgressBytes int
}

func (l *Limits) setDefaults() {
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = DefaultRequestTimeout
	}
	if l.MaxInFlight <= 0 {
		l.MaxInFlight = defaultMaxInFlight
	}
	if l.MaxFrameSize <= 0 {
		l.MaxFrameSize = defaultMaxFrameSize
	}
	if l.MaxWriteBytes <= 0 {
		l.MaxWriteBytes = defaultMaxWriteBytes
	}
	if l.MaxProgressBytes <= 0 {
		l.MaxProgressBytes = defaultMaxProgressBytes
	}
	if l.MaxCallProgressBytes <= 0 {
		l.MaxCallProgressBytes = defaultMaxCallProgressBytes
	}
}

// queueTimeout applies the default of a configured queue timeout.
func queueTimeout(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultQueueTimeout
	case d < 0:
		return 0
	}
	return d
}
