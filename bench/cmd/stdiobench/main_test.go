package main

import (
	"encoding/json"
	"testing"
	"time"
)

func TestHistQuantiles(t *testing.T) {
	var h hist
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, 1000 * time.Microsecond}} {
		got := h.quantile(c.q)
		if d := float64(got-c.want) / float64(c.want); d < -0.02 || d > 0.02 {
			t.Errorf("quantile(%v) = %v, want %v within 2%%", c.q, got, c.want)
		}
	}
	for v := uint64(0); v < 1<<20; v = v*9/8 + 1 {
		mid := bucketValue(bucketOf(v))
		if d := float64(mid) - float64(v); d < -float64(v)/64-1 || d > float64(v)/64+1 {
			t.Fatalf("value %d lands in bucket with middle %d", v, mid)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "hello-1-2", `quo"te\back`, "tab\tnl\nctl\x01", "héllo ☃", "bad\xffutf8"} {
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q encodes as %s: %v", s, b, err)
		}
		want := s
		if s == "bad\xffutf8" {
			want = "bad\uFFFDutf8"
		}
		if got != want {
			t.Errorf("%q round-trips as %q", s, got)
		}
	}
}
