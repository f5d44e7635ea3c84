package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

var exposedNameShape = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)

func nameHashSuffix(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:8]
}

func TestNameSanitising(t *testing.T) {
	long57 := strings.Repeat("a", 57)
	cases := []struct {
		name         string
		server, tool string
		want         string
	}{
		{"plain", "github", "create_issue", "mcp__github__create_issue"},
		{"upper case", "GitHub", "CreateIssue", "mcp__github__createissue"},
		{"hyphens kept", "my-server", "get-file", "mcp__my-server__get-file"},
		{"digits kept", "context7", "resolve-library-id", "mcp__context7__resolve-library-id"},
		{"dot", "my.server", "tool", "mcp__my_server__tool"},
		{"run of illegal characters", "s", "do  this!!now", "mcp__s__do_this_now"},
		{"illegal at the ends", "s", "/path/", "mcp__s___path_"},
		{"illegal next to underscores", "s", "a_!_b", "mcp__s__a___b"},
		{"unicode letters", "café", "naïve✓tool", "mcp__caf___na_ve_tool"},
		{"unicode run", "s", "日本語", "mcp__s___"},
		{"unicode that lower-cases to ascii", "s", "\u212Aelvin", "mcp__s__kelvin"},
		{"invalid utf-8", "s", "a\xff\xfeb", "mcp__s__a_b"},
		{"exactly 64", "s", strings.Repeat("a", 56), "mcp__s__" + strings.Repeat("a", 56)},
		{"65 is shortened", "s", long57,
			"mcp__s__" + strings.Repeat("a", 47) + "_" + nameHashSuffix("mcp__s__"+long57)},
		{"shortened after sanitising", "S", strings.Repeat("B", 100),
			("mcp__s__" + strings.Repeat("b", 100))[:55] + "_" + nameHashSuffix("mcp__s__"+strings.Repeat("b", 100))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ix := NewToolIndex([]ToolPair{{c.server, c.tool}})
			got, ok := ix.Exposed(c.server, c.tool)
			if !ok || got != c.want {
				t.Fatalf("Exposed(%q, %q) = %q, %v; want %q", c.server, c.tool, got, ok, c.want)
			}
			if !exposedNameShape.MatchString(got) {
				t.Errorf("%q is not a valid exposed name", got)
			}
			if s, tool, ok := ix.lookup(got); !ok || s != c.server || tool != c.tool {
				t.Errorf("Lookup(%q) = %q, %q, %v", got, s, tool, ok)
			}
		})
	}
}

func TestNameLongNamesDifferingAtTheEnd(t *testing.T) {
	a := strings.Repeat("x", 80) + "_read"
	b := strings.Repeat("x", 80) + "_write"
	ix := NewToolIndex([]ToolPair{{"s", a}, {"s", b}})
	na, _ := ix.Exposed("s", a)
	nb, _ := ix.Exposed("s", b)
	if na == nb || len(na) != 64 || len(nb) != 64 {
		t.Fatalf("names %q and %q", na, nb)
	}
	// Not a collision: each keeps its own shortened base name.
	if na != shortenToolName("mcp__s__"+a) || nb != shortenToolName("mcp__s__"+b) {
		t.Errorf("long names were treated as colliding: %q, %q", na, nb)
	}
}

// Names that only a parser splitting on "__" could confuse are not a
// collision, and each reaches its own server.
func TestNameBoundaryWithoutCollision(t *testing.T) {
	ix := NewToolIndex([]ToolPair{{"a_b", "c"}, {"a", "b_c"}})
	for _, c := range []struct{ server, tool, want string }{
		{"a_b", "c", "mcp__a_b__c"},
		{"a", "b_c", "mcp__a__b_c"},
	} {
		if got, _ := ix.Exposed(c.server, c.tool); got != c.want {
			t.Errorf("Exposed(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
		if s, tool, ok := ix.lookup(c.want); !ok || s != c.server || tool != c.tool {
			t.Errorf("Lookup(%q) = %q, %q, %v", c.want, s, tool, ok)
		}
	}
}

func TestNameCollisions(t *testing.T) {
	cases := []struct {
		name  string
		pairs []ToolPair
		base  string // the name they all share before resolution
	}{
		{"server/tool boundary", []ToolPair{{"a__b", "c"}, {"a", "b__c"}}, "mcp__a__b__c"},
		{"underscore at the boundary", []ToolPair{{"a_", "b"}, {"a", "_b"}, {"a.", "b"}}, "mcp__a___b"},
		{"dot and underscore", []ToolPair{{"a_b", "c"}, {"a.b", "c"}}, "mcp__a_b__c"},
		{"case", []ToolPair{{"Foo", "x"}, {"foo", "x"}, {"FOO", "x"}}, "mcp__foo__x"},
		{"same server, sanitised alike", []ToolPair{{"s", "get file"}, {"s", "get.file"}, {"s", "get_file"}}, "mcp__s__get_file"},
		{"long names alike after sanitising", []ToolPair{{"s", strings.Repeat("A", 100)}, {"s", strings.Repeat("a", 100)}},
			shortenToolName("mcp__s__" + strings.Repeat("a", 100))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ix := NewToolIndex(c.pairs)
			seen := map[string]ToolPair{}
			for _, p := range c.pairs {
				got, ok := ix.Exposed(p.Server, p.Tool)
				if !ok {
					t.Fatalf("%v has no name", p)
				}
				if got == c.base {
					t.Errorf("%v kept the shared name %q", p, got)
				}
				if !strings.HasPrefix(got, c.base[:min(len(c.base), 55)]+"_") || !exposedNameShape.MatchString(got) {
					t.Errorf("%v: %q is not the shared name plus a suffix", p, got)
				}
				if other, dup := seen[got]; dup {
					t.Errorf("%v and %v both got %q", p, other, got)
				}
				seen[got] = p
				if s, tool, ok := ix.lookup(got); !ok || (ToolPair{s, tool}) != p {
					t.Errorf("Lookup(%q) = %q, %q, %v; want %v", got, s, tool, ok, p)
				}
			}
			if _, _, ok := ix.lookup(c.base); ok {
				t.Errorf("the shared name %q still resolves", c.base)
			}
			if ix.count() != len(c.pairs) {
				t.Errorf("Len = %d, want %d", ix.count(), len(c.pairs))
			}
		})
	}
}

// A tool whose own name is what another's suffix would be keeps it; the
// suffixed one moves on to its next candidate.
func TestNameCollisionWithASuffixedName(t *testing.T) {
	first := suffixToolName("mcp__a_b__c", ToolPair{"a_b", "c"}, 0)
	squatter := ToolPair{"a_b", strings.TrimPrefix(first, "mcp__a_b__")}
	pairs := []ToolPair{{"a_b", "c"}, {"a.b", "c"}, squatter}
	ix := NewToolIndex(pairs)
	if got, _ := ix.Exposed(squatter.Server, squatter.Tool); got != first {
		t.Errorf("the tool literally named %q got %q", first, got)
	}
	got, _ := ix.Exposed("a_b", "c")
	if got == first || got != suffixToolName("mcp__a_b__c", ToolPair{"a_b", "c"}, 1) {
		t.Errorf("a_b/c got %q, want its second candidate", got)
	}
	names := map[string]bool{}
	for _, p := range pairs {
		n, _ := ix.Exposed(p.Server, p.Tool)
		names[n] = true
	}
	if len(names) != len(pairs) {
		t.Errorf("names not unique: %v", names)
	}
}

func TestNameDeterministicUnderShuffle(t *testing.T) {
	pairs := []ToolPair{
		{"a_b", "c"}, {"a.b", "c"}, {"a", "b_c"}, {"github", "create_issue"}, {"GitHub", "create_issue"},
		{"context7", "resolve-library-id"}, {"s", strings.Repeat("q", 90)}, {"s", strings.Repeat("Q", 90)},
		{"files", "read"}, {"files", "write"}, {"files", "read"}, // a duplicate counts once
	}
	want := NewToolIndex(pairs)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		shuffled := append([]ToolPair(nil), pairs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got := NewToolIndex(shuffled)
		for _, p := range pairs {
			w, _ := want.Exposed(p.Server, p.Tool)
			g, _ := got.Exposed(p.Server, p.Tool)
			if g != w {
				t.Fatalf("order %v: %v named %q, want %q", shuffled, p, g, w)
			}
		}
		if got.count() != 10 {
			t.Fatalf("Len = %d, want 10", got.count())
		}
	}
}

func exposedNames(ix *ToolIndex, server string, tools ...string) []string {
	out := make([]string, len(tools))
	for i, tool := range tools {
		out[i], _ = ix.Exposed(server, tool)
	}
	return out
}

func TestNameOtherServersStable(t *testing.T) {
	// Server "a.b" is the one whose tools change; "a_b" and "z" stay put.
	ix := NewToolIndex([]ToolPair{{"a.b", "x"}, {"a.b", "y"}, {"a_b", "c"}, {"a_b", "d"}, {"z", "x"}})
	b := exposedNames(ix, "a_b", "c", "d")
	z := exposedNames(ix, "z", "x")
	if fmt.Sprint(b) != "[mcp__a_b__c mcp__a_b__d]" {
		t.Fatalf("a_b starts as %v", b)
	}

	// No new collision: nobody else moves.
	ix2 := ix.replace("a.b", []string{"y", "w", "new"})
	if got := exposedNames(ix2, "a_b", "c", "d"); fmt.Sprint(got) != fmt.Sprint(b) {
		t.Errorf("a_b renamed: %v -> %v", b, got)
	}
	if got := exposedNames(ix2, "z", "x"); fmt.Sprint(got) != fmt.Sprint(z) {
		t.Errorf("z renamed: %v -> %v", z, got)
	}
	if _, ok := ix2.Exposed("a.b", "x"); ok {
		t.Error("a.b/x survived the replacement")
	}
	if got := exposedNames(ix2, "a.b", "w"); got[0] != "mcp__a_b__w" {
		t.Errorf("a.b/w = %q", got[0])
	}
	if ix.count() != 5 {
		t.Error("Replace modified the original index")
	}

	// a.b gains c, which collides with a_b/c: that one tool moves, a_b/d
	// and z/x do not.
	ix3 := ix2.replace("a.b", []string{"y", "c"})
	got := exposedNames(ix3, "a_b", "c", "d")
	if got[0] == b[0] || got[1] != b[1] {
		t.Errorf("after a collision on a_b/c: %v -> %v", b, got)
	}
	if got := exposedNames(ix3, "z", "x"); fmt.Sprint(got) != fmt.Sprint(z) {
		t.Errorf("z renamed: %v -> %v", z, got)
	}
	if _, _, ok := ix3.lookup(b[0]); ok {
		t.Errorf("%q still resolves after the collision", b[0])
	}

	// The collision goes away: a_b/c has its base name back.
	ix4 := ix3.replace("a.b", nil)
	if got := exposedNames(ix4, "a_b", "c", "d"); fmt.Sprint(got) != fmt.Sprint(b) {
		t.Errorf("a_b after a.b left: %v, want %v", got, b)
	}
	if ix4.count() != 3 {
		t.Errorf("Len after removing a.b = %d", ix4.count())
	}

	// Replace gives what building from scratch gives.
	fresh := NewToolIndex([]ToolPair{{"z", "x"}, {"a.b", "c"}, {"a_b", "d"}, {"a.b", "y"}, {"a_b", "c"}})
	for _, p := range fresh.sortedPairs() {
		w, _ := fresh.Exposed(p.Server, p.Tool)
		g, _ := ix3.Exposed(p.Server, p.Tool)
		if g != w {
			t.Errorf("%v: Replace gave %q, a fresh index %q", p, g, w)
		}
	}
}

func TestNameRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("aAbB_-.. 9é日/_")
	word := func() string {
		n := 1 + rng.IntN(90)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	var pairs []ToolPair
	for range 500 {
		server := word()
		pairs = append(pairs, ToolPair{server[:min(len(server), 1+rng.IntN(3))], word()})
	}
	ix := NewToolIndex(pairs)
	seen := map[string]bool{}
	for _, p := range ix.sortedPairs() {
		name, ok := ix.Exposed(p.Server, p.Tool)
		if !ok || !exposedNameShape.MatchString(name) {
			t.Fatalf("%q/%q -> %q, %v", p.Server, p.Tool, name, ok)
		}
		if seen[name] {
			t.Fatalf("%q given twice", name)
		}
		seen[name] = true
		if s, tool, ok := ix.lookup(name); !ok || s != p.Server || tool != p.Tool {
			t.Fatalf("Lookup(%q) = %q, %q, %v; want %q, %q", name, s, tool, ok, p.Server, p.Tool)
		}
	}
	if _, _, ok := ix.lookup("mcp__nope__nope"); ok {
		t.Error("an unknown name resolved")
	}
}

func TestNameNilIndex(t *testing.T) {
	var ix *ToolIndex
	if _, ok := ix.Exposed("a", "b"); ok {
		t.Error("nil index has a name")
	}
	if _, _, ok := ix.lookup("mcp__a__b"); ok {
		t.Error("nil index resolves a name")
	}
	if ix.count() != 0 || ix.sortedPairs() != nil {
		t.Error("nil index is not empty")
	}
	if got, _ := ix.replace("a", []string{"b"}).Exposed("a", "b"); got != "mcp__a__b" {
		t.Errorf("Replace on nil: %q", got)
	}
}

func TestNameNormalizeTools(t *testing.T) {
	in := []messages.Tool{
		{Name: "ok", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		{Name: "missing"},
		{Name: "null", InputSchema: json.RawMessage(` null `)},
		{Name: "array", InputSchema: json.RawMessage(`[1]`)},
		{Name: "broken", InputSchema: json.RawMessage(`{"type":`)},
		{Name: ""},
		{Name: "ok", Description: "the second one"},
		{Name: "last", InputSchema: json.RawMessage(`{}`)},
	}
	out, warnings := NormalizeTools(in)
	var got []string
	for _, tool := range out {
		got = append(got, tool.Name+"="+string(tool.InputSchema))
	}
	want := []string{
		`ok={"type":"object","properties":{"q":{"type":"string"}}}`,
		`missing={"type":"object","properties":{}}`,
		`null={"type":"object","properties":{}}`,
		`array={"type":"object","properties":{}}`,
		`broken={"type":"object","properties":{}}`,
		`last={}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tools:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantWarnings := []string{
		`tool "missing" has no inputSchema; using an empty object schema`,
		`tool "null" has no inputSchema; using an empty object schema`,
		`tool "array" has an inputSchema that is not a JSON object; using an empty object schema`,
		`tool "broken" has an inputSchema that is not a JSON object; using an empty object schema`,
		`tool #5 has no name; skipped`,
		`tool "ok" is listed more than once; the first is used`,
	}
	if strings.Join(warnings, "\n") != strings.Join(wantWarnings, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(wantWarnings, "\n"))
	}
	if in[1].InputSchema != nil {
		t.Error("the caller's slice was modified")
	}
	// Each repaired schema is its own copy.
	out[1].InputSchema[0] = 'X'
	if out[2].InputSchema[0] != '{' {
		t.Error("repaired schemas share their bytes")
	}
	if out, warnings := NormalizeTools(nil); len(out) != 0 || warnings != nil {
		t.Errorf("NormalizeTools(nil) = %v, %v", out, warnings)
	}
}
