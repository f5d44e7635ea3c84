//go:build !unix

package transport

// canPollInput reports that waitInput does not work here: a reader waits
// inside its read.
const canPollInput = false

// inputPoll is unused where canPollInput is false.
type inputPoll struct{}

func (*inputPoll) start()             {}
func (*inputPoll) ready(uintptr) bool { return true }
