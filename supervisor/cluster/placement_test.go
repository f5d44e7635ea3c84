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

// TestPlacementBalanced: identities spread evenly over members whose
// names differ in one character, as the demo's do (with FNV-1a, five of
// its six servers went to one member of three).
func TestPlacementBalanced(t *testing.T) {
	for _, members := range [][]string{{"member-1", "member-2", "member-3"}, {"m1", "m2", "m3", "m4"}} {
		demo := map[string]int{}
		for _, srv := range []string{"files", "search", "notes", "mail", "calendar", "weather"} {
			demo[place(Identity{Server: srv}, members)]++
		}
		if len(members) == 3 {
			for _, m := range members {
				if demo[m] == 0 || demo[m] > 3 {
					t.Errorf("the demo's six servers on %v: %v", members, demo)
					break
				}
			}
		}
		const n = 3000
		counts := map[string]int{}
		for i := range n {
			counts[place(Identity{Server: fmt.Sprintf("server-%d", i%40), Tenant: fmt.Sprintf("user%d@example.com", i/40)}, members)]++
		}
		for _, m := range members {
			if want := n / len(members); counts[m] < want*85/100 || counts[m] > want*115/100 {
				t.Errorf("%d identities on %v: %v, want about %d each", n, members, counts, want)
				break
			}
		}
	}
}
