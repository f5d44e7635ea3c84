package cluster

import (
	"fmt"
	"slices"
	"testing"
)

// TestPlaceStable: every member picks the same owner from the same view,
// whatever its order, and only the identities of a member that leaves
// move.
func TestPlaceStable(t *testing.T) {
	members := []string{"m1", "m2", "m3"}
	counts := map[string]int{}
	moved := 0
	for i := range 300 {
		id := Identity{Server: fmt.Sprintf("s%d", i)}
		a := place(id, members)
		if b := place(id, []string{"m3", "m1", "m2"}); a != b {
			t.Fatalf("%v: %s vs %s by order", id, a, b)
		}
		counts[a]++
		if b := place(id, slices.DeleteFunc(slices.Clone(members), func(m string) bool { return m == "m2" })); b != a {
			moved++
			if a != "m2" {
				t.Errorf("%v moved from %s, which stayed", id, a)
			}
		}
	}
	for _, m := range members {
		if counts[m] < 60 {
			t.Errorf("uneven placement: %v", counts)
		}
	}
	if moved != counts["m2"] {
		t.Errorf("%d moved, m2 had %d", moved, counts["m2"])
	}
	if place(Identity{Server: "x"}, nil) != "" {
		t.Error("placed on no member")
	}
}
