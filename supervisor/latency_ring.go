package supervisor

import (
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// latencyRing keeps the durations of a server's last calls, written by
// the callers (atomics: no lock on the call path), read for Status. A slot
// holds microseconds in 32 bits (up to 71 minutes; longer calls are kept
// as that).
//
// Its slots grow with use: none until the first call, latencyFirstSlots
// for the first calls, all latencySlots (2 KiB) once a server has had
// more. A runtime may manage hundreds of servers of which most answer a
// call now and then; they keep 64 bytes each, not 2 KiB.
type latencyRing struct {
	next  atomic.Uint64
	slots atomic.Pointer[[]atomic.Uint32]
}

const (
	latencyFirstSlots = 16
	latencySlots      = 512
)

func (l *latencyRing) record(d time.Duration) {
	if l == nil {
		return
	}
	i := l.next.Add(1) - 1
	slots := l.slots.Load()
	if slots == nil || uint64(len(*slots)) <= i && len(*slots) < latencySlots {
		slots = l.grow(slots, i)
	}
	s := *slots
	s[i%uint64(len(s))].Store(uint32(min(max(d/time.Microsecond, 0), math.MaxUint32)))
}

// grow replaces old (nil at first) with slots enough for call i. Callers
// that race here agree on one replacement (the CompareAndSwap); a sample
// stored in the old slots after they were copied is lost, which a ring of
// the last calls' durations can afford.
func (l *latencyRing) grow(old *[]atomic.Uint32, i uint64) *[]atomic.Uint32 {
	n := latencyFirstSlots
	if old != nil || i >= latencyFirstSlots {
		n = latencySlots
	}
	s := make([]atomic.Uint32, n)
	if old != nil {
		for j := range *old {
			s[j].Store((*old)[j].Load())
		}
	}
	if l.slots.CompareAndSwap(old, &s) {
		return &s
	}
	return l.slots.Load()
}

// percentiles returns the median and the 99th percentile of the kept
// durations (0, 0 with none).
func (l *latencyRing) percentiles() (p50, p99 time.Duration) {
	slots := l.slots.Load()
	if slots == nil {
		return 0, 0
	}
	s := *slots
	n := min(l.next.Load(), uint64(len(s)))
	if n == 0 {
		return 0, 0
	}
	v := make([]uint32, n)
	for i := range v {
		v[i] = s[i].Load()
	}
	slices.Sort(v)
	return time.Duration(v[(len(v)-1)/2]) * time.Microsecond, time.Duration(v[(len(v)-1)*99/100]) * time.Microsecond
}
