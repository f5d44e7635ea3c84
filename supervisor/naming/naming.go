// Package naming holds the names under which the manager offers its
// servers' tools and prompts to an agent, mcp__<server>__<tool>: the
// two-way index of exposed names (ToolIndex) and the repair of a server's
// tool list (NormalizeTools). It is an engine package of the manager
// (package supervisor); the supported API is the root package,
// github.com/mcpactor/mcpactor.
package naming

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
)

// Tool names as an agent sees them (docs/configuration.md, "Tool names and
// the tool-list cache"). Agent APIs accept tool names of at most 64
// characters from [a-zA-Z0-9_-]; several servers may offer tools of the same
// name, so each is exposed as mcp__<server>__<tool>.
const (
	// maxExposedNameLen is the longest exposed tool name.
	maxExposedNameLen = 64
	// nameHashLen hex digits of SHA-256 follow "_" in a shortened or
	// disambiguated name.
	nameHashLen = 8
	// namePrefixLen is what is kept of a name that gets a hash suffix.
	namePrefixLen = maxExposedNameLen - 1 - nameHashLen
)

// ToolPair names a tool as its server knows it.
type ToolPair struct {
	Server string
	Tool   string
}

// ToolIndex maps each (server, tool) pair to the name exposed to an agent and
// back. A call by exposed name is routed by the exposed name to the pair it was made from, never by splitting the
// name: server "a__b" with tool "c" and server "a" with tool "b__c" would
// both be mcp__a__b__c, and sanitising loses what was there.
//
// The names are a function of the set of pairs alone, whatever their order:
//
//   - a pair whose base name (mcp__<server>__<tool>, sanitised, and shortened
//     with a hash of itself when over 64 characters) is shared by no other
//     pair gets its base name;
//   - pairs that share a base name all give it up, and each gets the base
//     name's first 55 characters, "_" and 8 hex digits of a SHA-256 of its
//     own raw (server, tool) pair. No pair keeps the shared name, so a
//     collision never hands one tool's name to another tool: a call by the
//     old name fails rather than reaching the wrong tool.
//
// So one tool's name depends only on the tool itself and on whether another
// tool shares its base name. Changing server A's tools (replace) renames a
// tool of server B only when one of A's tools comes to share that tool's
// base name (both then take suffixes) or stops sharing it (B's tool gets its
// base name back). In the pathological case where a suffixed name equals some
// other tool's base name or an earlier suffixed name, the next suffix (the
// hash taken with a counter) is tried, in server-then-tool order.
//
// A ToolIndex is immutable and safe for concurrent use; the nil *ToolIndex is
// empty.
type ToolIndex struct {
	pairs  []ToolPair // sorted by server, then tool; no duplicates
	byPair map[ToolPair]string
	byName map[string]ToolPair
}

// NewToolIndex names the given tools. Duplicate pairs count once.
func NewToolIndex(pairs []ToolPair) *ToolIndex {
	sorted := slices.Clone(pairs)
	slices.SortFunc(sorted, compareToolPairs)
	sorted = slices.Compact(sorted)

	fulls := make([]string, len(sorted))
	bases := make([]string, len(sorted))
	owners := make(map[string]int, len(sorted)) // base name -> how many pairs have it
	for i, r := range sorted {
		fulls[i] = "mcp__" + Sanitize(r.Server) + "__" + Sanitize(r.Tool)
		bases[i] = shortenToolName(fulls[i])
		owners[bases[i]]++
	}

	ix := &ToolIndex{
		pairs:  sorted,
		byPair: make(map[ToolPair]string, len(sorted)),
		byName: make(map[string]ToolPair, len(sorted)),
	}
	for i, r := range sorted {
		if owners[bases[i]] == 1 {
			ix.add(r, bases[i])
		}
	}
	for i, r := range sorted {
		if owners[bases[i]] == 1 {
			continue
		}
		for k := 0; ; k++ {
			name := suffixToolName(fulls[i], r, k)
			if _, taken := ix.byName[name]; !taken && owners[name] == 0 {
				ix.add(r, name)
				break
			}
		}
	}
	return ix
}

func (ix *ToolIndex) add(r ToolPair, name string) {
	ix.byPair[r] = name
	ix.byName[name] = r
}

// Exposed returns the name under which server's tool is offered to an agent.
func (ix *ToolIndex) Exposed(server, tool string) (string, bool) {
	if ix == nil {
		return "", false
	}
	name, ok := ix.byPair[ToolPair{server, tool}]
	return name, ok
}

// lookup returns the server and the raw tool name behind an exposed name.
func (ix *ToolIndex) lookup(exposed string) (server, tool string, ok bool) {
	if ix == nil {
		return "", "", false
	}
	r, ok := ix.byName[exposed]
	return r.Server, r.Tool, ok
}

// count is the number of tools in the index.
func (ix *ToolIndex) count() int {
	if ix == nil {
		return 0
	}
	return len(ix.pairs)
}

// sortedPairs returns every pair in the index, sorted by server, then tool.
func (ix *ToolIndex) sortedPairs() []ToolPair {
	if ix == nil {
		return nil
	}
	return slices.Clone(ix.pairs)
}

// replace returns a new index in which server offers exactly tools (none
// removes it) and every other server's tools are unchanged. Other servers'
// exposed names stay as they were except where the type's rule forces a
// change: one of the new tools shares, or no longer shares, their base name.
func (ix *ToolIndex) replace(server string, tools []string) *ToolIndex {
	var pairs []ToolPair
	if ix != nil {
		pairs = make([]ToolPair, 0, len(ix.pairs)+len(tools))
		for _, r := range ix.pairs {
			if r.Server != server {
				pairs = append(pairs, r)
			}
		}
	}
	for _, t := range tools {
		pairs = append(pairs, ToolPair{server, t})
	}
	return NewToolIndex(pairs)
}

func compareToolPairs(a, b ToolPair) int {
	if c := cmp.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	return cmp.Compare(a.Tool, b.Tool)
}

// Sanitize lower-cases s and turns every run of characters outside
// [a-z0-9_-] into one "_". Letters outside ASCII become "_" too: agent APIs
// accept only ASCII names. The tool-list cache names its files with it
// too, for people looking at the directory.
func Sanitize(s string) string {
	b := make([]byte, 0, len(s))
	inRun := false
	for _, r := range s {
		r = unicode.ToLower(r)
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			b = append(b, byte(r))
			inRun = false
			continue
		}
		if !inRun {
			b = append(b, '_')
			inRun = true
		}
	}
	return string(b)
}

// shortenToolName keeps a sanitised name of at most 64 characters as it is
// and shortens a longer one to a prefix plus a hash of the whole, so that
// long names differing only at the end stay apart.
func shortenToolName(full string) string {
	if len(full) <= maxExposedNameLen {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	return full[:namePrefixLen] + "_" + hex.EncodeToString(sum[:])[:nameHashLen]
}

// suffixToolName is the k-th disambiguated name of r: the hash covers the
// raw pair (which, unlike the sanitised name, differs between colliding
// pairs), NUL-separated so that ("a_b", "c") and ("a", "b_c") hash apart.
func suffixToolName(full string, r ToolPair, k int) string {
	seed := r.Server + "\x00" + r.Tool
	if k > 0 {
		seed += "\x00" + strconv.Itoa(k)
	}
	sum := sha256.Sum256([]byte(seed))
	return full[:min(len(full), namePrefixLen)] + "_" + hex.EncodeToString(sum[:])[:nameHashLen]
}

// emptyInputSchema stands in for a missing inputSchema.
const emptyInputSchema = `{"type":"object","properties":{}}`

// NormalizeTools prepares one server's tools for the agent and returns them
// with a warning per repair; the warnings do not name the server, which the
// caller logs beside them. A tool without an inputSchema (or with one that is
// not a JSON object), which the spec requires
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool),
// gets {"type":"object","properties":{}}; a tool without a name, or with the
// name of an earlier tool, is left out. A bad tool never stops the others
// from loading. tools is not modified.
func NormalizeTools(tools []messages.Tool) ([]messages.Tool, []string) {
	out := make([]messages.Tool, 0, len(tools))
	var warnings []string
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		switch {
		case t.Name == "":
			warnings = append(warnings, fmt.Sprintf("tool #%d has no name; skipped", i))
			continue
		case seen[t.Name]:
			warnings = append(warnings, fmt.Sprintf("tool %q is listed more than once; the first is used", t.Name))
			continue
		}
		seen[t.Name] = true
		if problem := inputSchemaProblem(t.InputSchema); problem != "" {
			warnings = append(warnings, fmt.Sprintf("tool %q %s; using an empty object schema", t.Name, problem))
			t.InputSchema = json.RawMessage(emptyInputSchema)
		}
		out = append(out, t)
	}
	return out, warnings
}

// inputSchemaProblem says what is wrong with a tool's inputSchema, or "".
func inputSchemaProblem(schema json.RawMessage) string {
	s := bytes.TrimSpace(schema)
	switch {
	case len(s) == 0 || string(s) == "null":
		return "has no inputSchema"
	case s[0] != '{' || !rawjson.Valid(s):
		return "has an inputSchema that is not a JSON object"
	}
	return ""
}
