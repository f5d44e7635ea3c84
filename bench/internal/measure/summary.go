package measure

import (
	"slices"
	"time"
)

// Summary is one client's samples at one level, over rounds: medians of
// the measured numbers, the spread of calls/s, and every error. A round
// whose client made no successful call adds its errors but no numbers.
type Summary struct {
	Rate             float64 // calls/s
	P50, P99, CPU    time.Duration
	ServerCPU        time.Duration // per call
	Allocs, Bytes    float64       // per call
	MinRate, MaxRate float64
	Errors           uint64
	Mismatches       uint64
	FirstErr         string
	// Rates are the calls/s of each round in order, 0 where the round
	// measured nothing: for RoundRatio.
	Rates []float64
}

// Summarize reduces the samples of the rounds to their Summary.
func Summarize(ss []Sample) Summary {
	var c Summary
	var rates, p50s, p99s, cpus, srvs, allocs, bytes []float64
	for _, s := range ss {
		c.Errors += s.Errors
		c.Mismatches += s.Mismatches
		if c.FirstErr == "" {
			c.FirstErr = s.FirstErr
		}
		c.Rates = append(c.Rates, s.Rate)
		if s.Calls == 0 {
			continue
		}
		rates = append(rates, s.Rate)
		p50s = append(p50s, float64(s.P50))
		p99s = append(p99s, float64(s.P99))
		cpus = append(cpus, float64(s.CPUPerCall))
		srvs = append(srvs, float64(s.ServerCPUPerCall))
		allocs = append(allocs, s.Allocs)
		bytes = append(bytes, s.Bytes)
	}
	c.ServerCPU = time.Duration(Median(srvs))
	c.Allocs, c.Bytes = Median(allocs), Median(bytes)
	c.Rate = Median(rates)
	c.P50, c.P99, c.CPU = time.Duration(Median(p50s)), time.Duration(Median(p99s)), time.Duration(Median(cpus))
	if len(rates) > 0 {
		c.MinRate, c.MaxRate = slices.Min(rates), slices.Max(rates)
	}
	return c
}

// Flagged is whether any call failed or came back with another message.
func (c Summary) Flagged() bool { return c.Errors+c.Mismatches > 0 }
