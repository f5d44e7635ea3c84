package messages

import (
	"errors"
	"strconv"
)

// ErrBadResponse matches every *BadResponseError.
var ErrBadResponse = errors.New("unusable response")

// BadResponseError fails a request whose answer arrived but cannot be used:
// it carries both result and error, it is nested too deeply to decode, or
// it is larger than the frame cap with its id after the payload. The
// connection lives on; only this request fails, at once rather than at its
// timeout.
type BadResponseError struct {
	Server  string
	Method  string
	ID      ID
	Problem string // what is wrong with the answer, e.g. "both result and error"
}

func (e *BadResponseError) Error() string {
	return "MCP server " + strconv.Quote(e.Server) + " sent an unusable answer to " + e.Method +
		" (request " + e.ID.String() + "): " + e.Problem
}

// Is makes errors.Is(err, ErrBadResponse) true.
func (e *BadResponseError) Is(target error) bool { return target == ErrBadResponse }
