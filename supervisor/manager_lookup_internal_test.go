package supervisor

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A call's lookup by exposed name finds what the index of every tool (or
// prompt) finds, and builds that index only for a name that may be
// shortened or disambiguated.
func TestToolLookupAgreesWithTheIndex(t *testing.T) {
	long := strings.Repeat("long", 16)
	offered := map[string][]string{
		"alpha":      {"echo", "Echo", "add", "run_deadbeef"}, // echo and Echo collide
		"Beta":       {"echo", "b__c", long},
		"beta":       {"echo"}, // its echo collides with Beta's
		"a__b":       {"c"},
		"a":          {"b__c"}, // collides with a__b's c
		"web search": {"find"},
	}
	var views viewList
	index := map[string]int{}
	for server, names := range offered {
		v := &serverView{srv: &Server{Name: server}, toolNames: &itemNames{}, promptNames: &itemNames{}}
		for _, n := range names { // the same names for prompts as for tools
			v.tools = append(v.tools, messages.Tool{Name: n})
			v.prompts = append(v.prompts, messages.Prompt{Name: n})
		}
		index[server] = views.len()
		views.add(v)
	}
	full := &exposedTools{views: views}
	_, byName := full.get()
	prompts := (&exposedCatalog{views: views}).get().byName
	s := &snapshot{views: views, index: index, serverNames: &serverPositions{}, exposed: &exposedTools{views: views},
		catalog: &exposedCatalog{views: views}}

	names := []string{"mcp__alpha__add", "mcp__alpha__echo", "mcp__beta__echo", "mcp__a__b__c", "mcp__nobody__echo", "mcp__web_search__find"}
	for name := range byName {
		names = append(names, name)
	}
	// The names that need no index first: none of them may build it.
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(b2i(naming.Derived(a)), b2i(naming.Derived(b))) })
	derived := 0
	for _, name := range names {
		if naming.Derived(name) {
			derived++
		} else if s.exposed.tools != nil || s.catalog.byName != nil {
			t.Fatalf("a lookup before %s built an index of every name", name)
		}
		got, ok := s.tool(name)
		want, wantOK := byName[name]
		if ok != wantOK || ok && (got.server != want.server || got.tool != want.tool) {
			t.Errorf("%s: lookup found %s/%s (%v), the index %s/%s (%v)", name, got.server, got.tool, ok, want.server, want.tool, wantOK)
		}
		gotP, ok := s.prompt(name)
		wantP, wantOK := prompts[name]
		if ok != wantOK || gotP != wantP {
			t.Errorf("prompt %s: lookup found %+v (%v), the index %+v (%v)", name, gotP, ok, wantP, wantOK)
		}
	}
	if derived == 0 {
		t.Error("no name is disambiguated: the case that needs the index is not tested")
	}
	if ref, ok := s.tool("mcp__alpha__add"); !ok || ref.server != "alpha" || ref.tool != "add" {
		t.Errorf("mcp__alpha__add: %+v, %v", ref, ok)
	}
}
