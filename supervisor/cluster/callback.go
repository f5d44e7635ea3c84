package cluster

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/mcpactor/mcpactor"
)

// The member calls code of its user's: Config.ServerFor, on the owner,
// on a goroutine of the member's own (an activation's), where a panic
// would end the process. It is run contained: a panic becomes a
// *CallbackPanicError naming the callback, logged with its stack and
// counted (Counters.CallbackPanics), and the activation, hence the call
// that needed it, fails with that error, carried across the hop. (The
// runtime's handlers, which Config.Runtime sets, are contained by the
// runtime.)

// ErrCallbackPanicked matches every *CallbackPanicError.
var ErrCallbackPanicked = errors.New("cluster: a callback panicked")

// CallbackPanicError is the recovered panic of a user callback the
// member called. It matches ErrCallbackPanicked.
type CallbackPanicError struct {
	Callback string // "ServerFor"
	Identity Identity
	Member   string // where it ran
	Value    string // what it panicked with, as text, at most maxPanicText bytes
}

// maxPanicText bounds the panic value kept in the error.
const maxPanicText = 200

func (e *CallbackPanicError) Error() string {
	return fmt.Sprintf("cluster: %s: member %s: callback %s panicked: %s", e.Identity, e.Member, e.Callback, e.Value)
}

// Is makes errors.Is(err, ErrCallbackPanicked) true.
func (e *CallbackPanicError) Is(target error) bool { return target == ErrCallbackPanicked }

// serverFor runs Config.ServerFor contained.
func (m *Member) serverFor(id Identity, base mcpactor.ServerConfig) (cfg mcpactor.ServerConfig, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = m.recovered("ServerFor", id, r)
		}
	}()
	return m.cfg.ServerFor(id, base)
}

// recovered turns r, a recovered panic of callback, into its error,
// logged and counted.
func (m *Member) recovered(callback string, id Identity, r any) error {
	v := fmt.Sprint(r)
	if len(v) > maxPanicText {
		v = v[:maxPanicText] + "..."
	}
	err := &CallbackPanicError{Callback: callback, Identity: id, Member: m.cfg.Name, Value: v}
	m.counts.callbackPanics.Add(1)
	m.cfg.Logger.Error("cluster callback panicked", "member", m.cfg.Name, "callback", callback, "identity", id.String(),
		"err", err.Error(), "stack", string(debug.Stack()))
	return err
}
