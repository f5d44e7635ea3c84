package telemetry

import "testing"

// The verdict is remembered per provider: a new provider is judged again,
// and providers of types that cannot be compared are judged every time
// (never compared, which would panic).
func TestGlobalVerdict(t *testing.T) {
	type named struct{ name string }
	type withSlice struct{ names []string }
	var g globalVerdict
	judged := 0
	decide := func(noop bool) func(any) bool {
		return func(any) bool { judged++; return noop }
	}

	a, b := &named{"a"}, &named{"b"}
	if !g.noop(a, decide(true)) || !g.noop(a, decide(false)) || judged != 1 {
		t.Fatalf("the same provider: judged %d times, want once, and the first verdict kept", judged)
	}
	if g.noop(b, decide(false)) || judged != 2 {
		t.Fatalf("a new provider: judged %d times in all, want 2, and its own verdict", judged)
	}
	if g.noop(named{"v"}, decide(false)) || !g.noop(named{"w"}, decide(true)) || judged != 4 {
		t.Fatalf("providers held by value are told apart by value: judged %d times in all, want 4", judged)
	}
	u := withSlice{[]string{"x"}}
	g.noop(u, decide(true))
	g.noop(u, decide(true))
	if judged != 6 {
		t.Fatalf("a provider of a type that cannot be compared: judged %d times in all, want 6 (never remembered)", judged)
	}
	if !g.noop(nil, decide(true)) {
		t.Fatal("nil: want the verdict decide gives")
	}
}
