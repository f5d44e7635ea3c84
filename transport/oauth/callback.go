package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// The package calls code of its user's: the UserStep, an
// AssertionSource's Func, CrossApp.IDToken, RefreshHeader.Fetch, a Store
// of their own, and, within a flow, a Config.HTTPClient's transport and
// redirect policy or a PrivateKey's signer. Most of it runs in a flow
// shared by several requests (Client.do), on a goroutine of
// golang.org/x/sync/singleflight, which re-raises a panic on a fresh
// goroutine where no caller can recover it: one bad callback would end
// the process. Each callback is therefore run contained: a panic becomes
// a *PanicError naming the callback, logged with its stack and counted
// (Client.PanickedCallbacks), and the request that needed it fails with
// that error. Client.do contains whatever else panics within a flow.

// ErrCallbackPanicked matches every *PanicError.
var ErrCallbackPanicked = errors.New("oauth: a callback panicked")

// PanicError is a callback's panic, recovered.
type PanicError struct {
	Callback string // "UserStep", "Config.Assertion.Func", "CrossApp.IDToken", "Store.Load"...
	Value    any    // what it panicked with
}

// maxPanicText bounds the panic value in an error's text.
const maxPanicText = 200

func (e *PanicError) Error() string {
	v := fmt.Sprint(e.Value)
	if len(v) > maxPanicText {
		v = v[:maxPanicText] + "..."
	}
	return "oauth: " + e.Callback + " panicked: " + v
}

// Is makes errors.Is(err, ErrCallbackPanicked) true.
func (e *PanicError) Is(target error) bool { return target == ErrCallbackPanicked }

// PanickedCallbacks returns how many callbacks of this Client (and of its
// copies made by As) have panicked.
func (c *Client) PanickedCallbacks() int64 { return c.sh.panics.Load() }

// recovered turns r, a recovered panic of callback, into its error,
// logged (when log is not nil) and counted (when sh is not nil).
func recovered(sh *shared, callback string, r any) error {
	err := &PanicError{Callback: callback, Value: r}
	if sh != nil {
		sh.panics.Add(1)
		sh.log.Error("oauth: callback panicked", "callback", callback, "err", err, "stack", string(debug.Stack()))
	} else {
		slog.Default().Error("oauth: callback panicked", "callback", callback, "err", err, "stack", string(debug.Stack()))
	}
	return err
}

// contain calls fn, a callback, with its panic recovered as an error.
func contain[T any](sh *shared, callback string, fn func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, recovered(sh, callback, r)
		}
	}()
	return fn()
}

// containedStore is a Store of the user's, each call contained.
type containedStore struct {
	s  Store
	sh *shared
}

func (cs containedStore) Load(ctx context.Context, key Key) (*Token, error) {
	return contain(cs.sh, "Store.Load", func() (*Token, error) { return cs.s.Load(ctx, key) })
}

func (cs containedStore) CompareAndSwap(ctx context.Context, key Key, old, new *Token) (bool, error) {
	return contain(cs.sh, "Store.CompareAndSwap", func() (bool, error) { return cs.s.CompareAndSwap(ctx, key, old, new) })
}

// clients returns the Store's ClientStore, contained, if it is one.
func (cs containedStore) clients() (ClientStore, bool) {
	s, ok := cs.s.(ClientStore)
	return containedClients{s, cs.sh}, ok
}

// locker returns the Store's Locker, contained, if it is one.
func (cs containedStore) locker() (Locker, bool) {
	l, ok := cs.s.(Locker)
	return containedLocker{l, cs.sh}, ok
}

type containedClients struct {
	s  ClientStore
	sh *shared
}

func (cc containedClients) LoadClient(ctx context.Context, issuer, profile string) (*ClientInfo, error) {
	return contain(cc.sh, "ClientStore.LoadClient", func() (*ClientInfo, error) { return cc.s.LoadClient(ctx, issuer, profile) })
}

func (cc containedClients) StoreClient(ctx context.Context, issuer, profile string, c *ClientInfo) error {
	_, err := contain(cc.sh, "ClientStore.StoreClient", func() (struct{}, error) { return struct{}{}, cc.s.StoreClient(ctx, issuer, profile, c) })
	return err
}

type containedLocker struct {
	l  Locker
	sh *shared
}

func (cl containedLocker) Lock(ctx context.Context, key Key) (func(), error) {
	unlock, err := contain(cl.sh, "Locker.Lock", func() (func(), error) { return cl.l.Lock(ctx, key) })
	if err != nil || unlock == nil {
		return func() {}, err
	}
	return func() {
		_, _ = contain(cl.sh, "Locker unlock", func() (struct{}, error) { unlock(); return struct{}{}, nil })
	}, nil
}
