package main

import (
	"math/bits"
	"time"
)

// hist is a log-linear latency histogram in the HDR style: values below
// subCount nanoseconds get a bucket each, larger ones keep their top
// subBits significant bits, so any recorded value is known to within
// 1/64 (about 1.6%). Recording never allocates.
type hist struct {
	counts [histBuckets]uint32
	n      uint64
}

const (
	subBits     = 7
	subCount    = 1 << subBits // 128
	halfCount   = subCount / 2 // 64
	histBuckets = 64*halfCount + subCount
)

func bucketOf(v uint64) int {
	if v < subCount {
		return int(v)
	}
	shift := bits.Len64(v) - subBits // >= 1
	return shift*halfCount + int(v>>uint(shift))
}

// bucketValue is the middle of bucket i's range of values.
func bucketValue(i int) uint64 {
	if i < subCount {
		return uint64(i)
	}
	shift := i/halfCount - 1
	m := uint64(i - shift*halfCount)
	lo := m << uint(shift)
	return lo + (uint64(1)<<uint(shift))/2
}

func (h *hist) record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.n++
}

func (h *hist) merge(o *hist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// quantile returns the value at quantile q (0..1), 0 for an empty histogram.
func (h *hist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	if rank < 1 {
		rank = 1
	}
	if rank > h.n {
		rank = h.n
	}
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			return time.Duration(bucketValue(i))
		}
	}
	return 0
}
