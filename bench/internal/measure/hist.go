package measure

import (
	"math/bits"
	"time"
)

// Latencies is a log-linear histogram of durations, in the HDR style:
// values below 128 ns get a bucket each, larger ones keep their 7 most
// significant bits, so any recorded value is known to within 1/64 of
// itself (reported at its bucket's middle). Recording is an index
// computation and an increment, and never allocates: each caller
// goroutine records into its own, and they are merged afterwards, so that
// recording shares no memory between goroutines and does not disturb what
// is measured.
type Latencies struct {
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

// Record adds one duration; a negative one counts as 0.
func (h *Latencies) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.n++
}

// Merge adds o's counts to h's.
func (h *Latencies) Merge(o *Latencies) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// Count is the number of durations recorded.
func (h *Latencies) Count() uint64 { return h.n }

// Quantile is the value at quantile q (0 to 1); 0 for an empty histogram.
func (h *Latencies) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	rank = max(1, min(rank, h.n))
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			return time.Duration(bucketValue(i))
		}
	}
	return 0
}
