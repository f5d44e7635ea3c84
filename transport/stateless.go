package transport

import (
	"errors"
	"strconv"
)

// ErrStreamBroken matches every *StreamBrokenError.
var ErrStreamBroken = errors.New("stream broken")

// StreamBrokenError fails a request of the 2026-07-28 era whose response
// stream broke before the response: that era has no resumption, and the
// request must be issued again with a new id
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http),
// which the client does once, within the caller's deadline.
type StreamBrokenError struct {
	Server string
	ID     int64
	Err    error // how it broke, if known
}

func (e *StreamBrokenError) Error() string {
	s := "MCP server " + strconv.Quote(e.Server) + ": the response stream of request " + strconv.FormatInt(e.ID, 10) + " broke before its response"
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrStreamBroken) true.
func (e *StreamBrokenError) Is(target error) bool { return target == ErrStreamBroken }

func (e *StreamBrokenError) Unwrap() error { return e.Err }
