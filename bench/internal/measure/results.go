package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Result is one cell of a report in the form cmd/benchrun reads to draw
// its charts: one client at one level of one load against one server,
// summarized over rounds.
type Result struct {
	Bench     string  `json:"bench"` // the command: stdiobench, httpbench, ...
	Server    string  `json:"server"`
	Load      string  `json:"load"`
	Client    string  `json:"client"`
	InFlight  int     `json:"inflight"`
	Rate      float64 `json:"callsPerSec"`
	MinRate   float64 `json:"minCallsPerSec"`
	MaxRate   float64 `json:"maxCallsPerSec"`
	P50       float64 `json:"p50Micros"`
	P99       float64 `json:"p99Micros"`
	CPU       float64 `json:"cpuMicrosPerCall"`
	ServerCPU float64 `json:"serverCpuMicrosPerCall"`
	Allocs    float64 `json:"allocsPerCall"`
	Bytes     float64 `json:"bytesPerCall"`
	Errors    uint64  `json:"errors"`
	// Extra holds what only some benchmarks measure (peak memory, memory
	// per in-flight call, completion time), by name.
	Extra map[string]float64 `json:"extra,omitempty"`
}

// NewResult is the Result of a summary.
func NewResult(bench, server, load, client string, n int, s Summary) Result {
	return Result{
		Bench: bench, Server: server, Load: load, Client: client, InFlight: n,
		Rate: s.Rate, MinRate: s.MinRate, MaxRate: s.MaxRate,
		P50: micros(s.P50), P99: micros(s.P99), CPU: micros(s.CPU), ServerCPU: micros(s.ServerCPU),
		Allocs: s.Allocs, Bytes: s.Bytes, Errors: s.Errors + s.Mismatches,
	}
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// WriteResults writes rs to path as JSON; an empty path writes nothing.
func WriteResults(path string, rs []Result) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadResults reads what WriteResults wrote.
func ReadResults(path string) ([]Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rs []Result
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rs, nil
}

// WriteOutputs writes a program's two outputs: report (to stdout, and to
// reportPath unless it is empty, as WriteReport does) and rs (to jsonPath
// unless it is empty, as WriteResults does). The error names the file
// that could not be written.
func WriteOutputs(report, reportPath string, rs []Result, jsonPath string) error {
	if err := WriteReport(report, reportPath); err != nil {
		return fmt.Errorf("writing %s: %w", reportPath, err)
	}
	if err := WriteResults(jsonPath, rs); err != nil {
		return fmt.Errorf("writing %s: %w", jsonPath, err)
	}
	return nil
}
