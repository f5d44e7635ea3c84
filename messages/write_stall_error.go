package messages

import (
	"fmt"
	"time"
)

// WriteStallError ends a connection whose peer stopped reading: a write
// made no progress for the stall timeout.
type WriteStallError struct {
	After time.Duration
}

// Error reads `write stalled: the server read none of our input for
// <n>ms`.
func (e *WriteStallError) Error() string {
	return fmt.Sprintf("write stalled: the server read none of our input for %dms", e.After.Milliseconds())
}

// Is makes errors.Is(err, ErrWriteStalled) true.
func (e *WriteStallError) Is(target error) bool { return target == ErrWriteStalled }
