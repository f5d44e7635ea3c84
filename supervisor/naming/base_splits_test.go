package naming

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// resolveBySplits is what a caller of BaseSplits does: the pairs whose
// sanitised names match a split, one owner or none. ok is false for a
// Derived name, which needs the index.
func resolveBySplits(pairs []ToolPair, exposed string) (owner ToolPair, found, ok bool) {
	if Derived(exposed) {
		return ToolPair{}, false, false
	}
	n := 0
	for server, tool := range BaseSplits(exposed) {
		for _, p := range pairs {
			if Sanitize(p.Server) == server && Sanitize(p.Tool) == tool {
				owner, n = p, n+1
			}
		}
	}
	return owner, n == 1, true
}

// Wherever a name is not Derived, the pairs its splits match give the
// same owner as an index of every pair: for every exposed name, every
// pair's base name (shared ones too) and names that are nobody's, over
// sets of pairs with colliding, long, "__"-holding and hash-shaped names.
func TestBaseSplitsAgreeWithTheIndex(t *testing.T) {
	servers := []string{"a", "A", "a__b", "a_b", "web search", "Web-Search", strings.Repeat("long", 12), "x"}
	tools := []string{"b", "b__c", "c", "Echo", "echo", "run_deadbeef", strings.Repeat("t", 50), "ünï", "__", "a__b"}
	rng := rand.New(rand.NewPCG(1, 2))
	checked := map[string]int{}
	for round := range 300 {
		var pairs []ToolPair // distinct, as a manager's are
		for range 1 + rng.IntN(14) {
			if p := (ToolPair{servers[rng.IntN(len(servers))], tools[rng.IntN(len(tools))]}); !slices.Contains(pairs, p) {
				pairs = append(pairs, p)
			}
		}
		ix := NewToolIndex(pairs)
		names := []string{"mcp__", "mcp____", "mcp__nobody__echo", "echo", strings.Repeat("m", 70)}
		for _, p := range pairs {
			name, _ := ix.Exposed(p.Server, p.Tool)
			full := "mcp__" + Sanitize(p.Server) + "__" + Sanitize(p.Tool)
			names = append(names, name, full, shortenToolName(full))
		}
		for _, name := range names {
			owner, found, ok := resolveBySplits(pairs, name)
			if !ok {
				checked["derived"]++
				continue
			}
			server, tool, want := ix.lookup(name)
			if found != want || found && (owner != ToolPair{server, tool}) {
				t.Fatalf("round %d, %q among %v: splits say %v %v, the index %v %v", round, name, pairs, owner, found, ToolPair{server, tool}, want)
			}
			checked[fmt.Sprint("found ", found)]++
		}
	}
	t.Logf("names checked: %v", checked)
	if checked["found true"] == 0 || checked["found false"] == 0 || checked["derived"] == 0 {
		t.Errorf("the sets of pairs did not cover every case: %v", checked)
	}
}

func TestDerivedShapes(t *testing.T) {
	for name, want := range map[string]bool{
		"mcp__a__b":                           false,
		"mcp__a__b_0123abcd":                  true,
		"mcp__a__b_0123ABCD":                  false, // the hash is lower-case hex
		"mcp__a__b0123abcd":                   false,
		"_0123abcd":                           true,
		"0123abcd":                            false,
		strings.Repeat("x", 55) + "_0123abcd": true,
		strings.Repeat("x", 56) + "_0123abcd": false, // longer than any name
	} {
		if got := Derived(name); got != want {
			t.Errorf("Derived(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestBaseSplitsReadsEverySplit(t *testing.T) {
	var got []string
	for s, tl := range BaseSplits("mcp__a__b__c") {
		got = append(got, fmt.Sprintf("%s|%s", s, tl))
	}
	if strings.Join(got, " ") != "a|b__c a__b|c" {
		t.Errorf("splits of mcp__a__b__c: %v", got)
	}
	for range BaseSplits("tool") {
		t.Error("a name without the prefix has splits")
	}
}
