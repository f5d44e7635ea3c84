package measure

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestLatenciesQuantiles(t *testing.T) {
	var h, a, b Latencies
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
		if i%2 == 0 {
			a.Record(time.Duration(i) * time.Microsecond)
		} else {
			b.Record(time.Duration(i) * time.Microsecond)
		}
	}
	a.Merge(&b)
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, 1000 * time.Microsecond}} {
		for _, h := range []*Latencies{&h, &a} {
			got := h.Quantile(c.q)
			if d := float64(got-c.want) / float64(c.want); d < -0.02 || d > 0.02 {
				t.Errorf("Quantile(%v) = %v, want %v within 2%%", c.q, got, c.want)
			}
		}
	}
	if a.Count() != 1000 {
		t.Errorf("merged count %d, want 1000", a.Count())
	}
	var empty Latencies
	if empty.Quantile(0.5) != 0 {
		t.Errorf("empty histogram's median is %v", empty.Quantile(0.5))
	}
}

// TestLatenciesPrecision checks the histogram's promise: a value is known
// to within 1/64 of itself, over the whole range of durations.
func TestLatenciesPrecision(t *testing.T) {
	for v := uint64(0); v < math.MaxInt64/2; v += v/8 + 1 {
		mid := bucketValue(bucketOf(v))
		if d := float64(mid) - float64(v); d < -float64(v)/64-1 || d > float64(v)/64+1 {
			t.Fatalf("value %d lands in the bucket whose middle is %d", v, mid)
		}
	}
}

func TestAppendToolCall(t *testing.T) {
	req := AppendToolCall(nil, 7, "echo", AppendArgs(nil, "message", "hi"))
	var m struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(append(req, "}}"...), &m); err != nil || m.ID != 7 || m.Method != "tools/call" ||
		m.Params.Name != "echo" || m.Params.Arguments["message"] != "hi" {
		t.Fatalf("AppendToolCall: %s: %+v, %v", req, m, err)
	}
}

func TestMedianAndRoundRatio(t *testing.T) {
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("Median odd = %v", got)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median even = %v", got)
	}
	if got := Median(nil); got != 0 {
		t.Errorf("Median(nil) = %v", got)
	}
	// Round 2 measured nothing for a, so it is left out.
	if got := RoundRatio([]float64{2, 0, 9}, []float64{4, 5, 10}); got != (0.5+0.9)/2 {
		t.Errorf("RoundRatio = %v", got)
	}
}

func TestSummarize(t *testing.T) {
	c := Summarize([]Sample{
		{Calls: 10, Rate: 100, P50: time.Millisecond, CPUPerCall: 3},
		{Errors: 2, FirstErr: "boom"},
		{Calls: 30, Rate: 300, P50: 3 * time.Millisecond, CPUPerCall: 5},
	})
	if c.Rate != 200 || c.MinRate != 100 || c.MaxRate != 300 || c.P50 != 2*time.Millisecond || c.CPU != 4 {
		t.Errorf("medians: %+v", c)
	}
	if !c.Flagged() || c.FirstErr != "boom" || len(c.Rates) != 3 || c.Rates[1] != 0 {
		t.Errorf("errors and rounds: %+v", c)
	}
}
