package telemetry

import (
	"reflect"
	"sync/atomic"
)

// globalVerdict remembers whether the global provider last seen is a
// no-op. The otel getters return the same value until the application
// installs another, so the reflection behind the verdict (isGlobalDefault)
// runs once per provider instead of on every call.
type globalVerdict struct {
	last atomic.Pointer[verdict]
}

type verdict struct {
	provider any // of a comparable type
	noop     bool
}

var globalTracer, globalMeter, globalPropagator globalVerdict

// noop returns decide(p), from memory when p is the provider last seen.
func (g *globalVerdict) noop(p any, decide func(any) bool) bool {
	// Only values of comparable types are remembered, so == cannot
	// panic: values of one dynamic type are both comparable or both not.
	if v := g.last.Load(); v != nil && v.provider == p {
		return v.noop
	}
	noop := decide(p)
	if t := reflect.TypeOf(p); t != nil && t.Comparable() {
		g.last.Store(&verdict{provider: p, noop: noop})
	}
	return noop
}
