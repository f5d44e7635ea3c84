package measure

import "slices"

// Median is the median of xs, 0 for none. The benchmarks quote medians
// over rounds because a shared machine's noise comes in bursts that a
// mean would carry into the result.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// RoundRatio is the median over rounds of as[r]/bs[r], over the rounds
// where both were measured (both positive). It is the second way the
// reports give a ratio, beside the ratio of the medians: two clients
// measured in the same round met the same noise, so their ratio within a
// round is steadier than either number.
func RoundRatio(as, bs []float64) float64 {
	var ratios []float64
	for r := range min(len(as), len(bs)) {
		if as[r] > 0 && bs[r] > 0 {
			ratios = append(ratios, as[r]/bs[r])
		}
	}
	return Median(ratios)
}
