package naming

import (
	"iter"
	"strings"
)

// A ToolIndex is built from every pair at once, since one pair's name can
// depend on the others' (a shared base name). Most names do not: an
// exposed name that is the base name of exactly one pair, unshortened,
// is that pair's, whatever the other pairs are. BaseSplits and Derived
// let a caller who can find the pairs whose sanitised server and tool
// names are given (the manager, by server) resolve such a name without
// building an index of every pair, and tell when only the index can
// answer. The manager's tools change at every server's listing while its
// servers come up, and an index of every tool built for each call made
// meanwhile cost N² for N servers.

// BaseSplits yields every way exposed reads as an unshortened base name,
// mcp__<server>__<tool>: the sanitised server and tool names (Sanitize)
// of the pairs whose base name it would be. A sanitised name may hold
// "__" itself, so there may be several. It yields nothing for a name
// longer than maxExposedNameLen, which is no pair's.
//
// Unless Derived(exposed), the name's owner follows from the pairs that
// match one of the splits, by the rule ToolIndex applies: exactly one,
// and the name is that pair's; none or several, and it is no pair's.
func BaseSplits(exposed string) iter.Seq2[string, string] {
	return func(yield func(server, tool string) bool) {
		const prefix = "mcp__"
		if len(exposed) > maxExposedNameLen || !strings.HasPrefix(exposed, prefix) {
			return
		}
		rest := exposed[len(prefix):]
		for i := 0; i+2 <= len(rest); i++ {
			if rest[i] == '_' && rest[i+1] == '_' && !yield(rest[:i], rest[i+2:]) {
				return
			}
		}
	}
}

// Derived reports whether exposed has the shape of a shortened or
// disambiguated name: "_" and nameHashLen hex digits at the end, and at
// most maxExposedNameLen characters. Only such a name can belong to a
// pair whose unshortened base name it is not, or be a base name that
// another pair's shortened one equals; only an index of every pair tells
// whose it is.
func Derived(exposed string) bool {
	n := len(exposed)
	if n > maxExposedNameLen || n < nameHashLen+1 || exposed[n-nameHashLen-1] != '_' {
		return false
	}
	for _, c := range exposed[n-nameHashLen:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
