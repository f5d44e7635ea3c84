package docpage

import "testing"

func TestReplace(t *testing.T) {
	page := "intro\n<!-- t:a -->\nold\n<!-- /t:a -->\nafter\n"
	got, err := Replace(page, "t", "a", "  new  ")
	if want := "intro\n<!-- t:a -->\nnew\n<!-- /t:a -->\nafter\n"; err != nil || got != want {
		t.Errorf("Replace = %q, %v; want %q", got, err, want)
	}
	if _, err := Replace(page, "t", "b", "x"); err == nil {
		t.Error("a block without its markers was replaced")
	}
	if _, err := Replace(page+page, "t", "a", "x"); err == nil {
		t.Error("a block whose markers stand twice was replaced")
	}
}

func TestAxis(t *testing.T) {
	for x, want := range map[float64]float64{0: 1, 0.3: 0.5, 7: 10, 120: 200, 1000: 1000} {
		if got := NiceStep(x); got != want {
			t.Errorf("NiceStep(%v) = %v, want %v", x, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 250: "250", 1500: "1.5k", 2000: "2k", 0.25: "0.25"} {
		if got := Tick(v); got != want {
			t.Errorf("Tick(%v) = %q, want %q", v, got, want)
		}
	}
}
