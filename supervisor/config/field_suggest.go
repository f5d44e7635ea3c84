package config

import "fmt"

// unknownField is the warning for a field no entry format knows, with the
// known field it most likely misspells: a user who wrote "comand" should
// read about "command" next to it, not only that "command" is missing.
func unknownField(server, field string, known []string) string {
	w := fmt.Sprintf("Server %q: unknown field %q ignored", server, field)
	if near := nearest(field, known); near != "" {
		w += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return w
}

// nearest returns the name in known closest to s by edit distance, if it
// is close enough to be a slip of the keyboard rather than another word:
// at most two edits, and no more than a third of s's length.
func nearest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(s, k); d < bestD && 3*d <= len(s) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, compared
// without regard to ASCII case ("Command" is a slip too).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if lower(a[i-1]) == lower(b[j-1]) {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// prefixed names the fields of an object inside an entry as a warning
// shows them ("restart.window").
func prefixed(key string, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = key + "." + f
	}
	return out
}
