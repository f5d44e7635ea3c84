package messages

import (
	"strconv"
	"strings"
)

// FrameTooLargeError ends a request whose response was longer than the
// transport's frame cap. The frame was discarded unread; the request failed
// at once instead of waiting for its timeout.
type FrameTooLargeError struct {
	Server string
	Method string
	ID     ID
	Size   int64 // bytes of the discarded frame
	Limit  int   // the frame cap
}

// Error reads `MCP server "<name>": <method> (id <id>): response of <n>
// bytes exceeds the <limit>-byte frame limit`, each part of the prefix
// only when known.
func (e *FrameTooLargeError) Error() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, e.ID)
	b.WriteString("response of " + strconv.FormatInt(e.Size, 10) + " bytes exceeds the " +
		strconv.Itoa(e.Limit) + "-byte frame limit")
	return b.String()
}

// Is makes errors.Is(err, ErrFrameTooLarge) true.
func (e *FrameTooLargeError) Is(target error) bool { return target == ErrFrameTooLarge }
