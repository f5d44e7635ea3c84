package redact

import (
	"math"
	"net/url"
	"strings"
)

// Hosted MCP servers often carry their credential in the URL's path
// rather than in a header (https://host/mcp/<key>/sse), where no name
// marks it. A path segment is taken for a key when it looks like one:
//
//   - at least keyMinLength characters,
//   - made only of the characters keys are written with (letters, digits
//     and - _ . ~ + =: hex, base64, base64url, UUIDs, "sk-..." prefixes),
//   - mixing letters and digits,
//   - and varied: at least keyMinEntropy bits of Shannon entropy per
//     character, which a run of one or two characters repeated is not.
//
// A long slug with a number in it ("release-notes-2024-06-v2") passes
// too: masking it costs a reader a path segment, missing a key costs the
// key (docs/configuration.md, "What is kept out of logs").
const (
	keyMinLength  = 20
	keyMinEntropy = 3.0
)

// LooksLikeKey reports whether a URL path segment (unescaped) looks like a
// credential by the rule above.
func LooksLikeKey(seg string) bool {
	if len(seg) < keyMinLength {
		return false
	}
	var letters, digits bool
	var counts [256]int
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters = true
		case c >= '0' && c <= '9':
			digits = true
		case c == '-', c == '_', c == '.', c == '~', c == '+', c == '=':
		default:
			return false
		}
		counts[c]++
	}
	if !letters || !digits {
		return false
	}
	return entropy(counts[:], len(seg)) >= keyMinEntropy
}

// entropy is the Shannon entropy, in bits per character, of a string of n
// characters whose byte counts are counts.
func entropy(counts []int, n int) float64 {
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log2(p)
		}
	}
	return h
}

// maskPath masks the segments of an escaped URL path that look like keys
// (LooksLikeKey), and reports whether it masked any.
func maskPath(escaped string) (string, bool) {
	if len(escaped) < keyMinLength {
		return escaped, false
	}
	segs := strings.Split(escaped, "/")
	changed := false
	for i, s := range segs {
		if len(s) < keyMinLength {
			continue
		}
		dec, err := url.PathUnescape(s)
		if err != nil {
			dec = s
		}
		if LooksLikeKey(dec) || LooksLikeKey(s) {
			segs[i], changed = Mask, true
		}
	}
	if !changed {
		return escaped, false
	}
	return strings.Join(segs, "/"), true
}

// pathKeys returns the segments of raw's path that look like keys, as
// written and unescaped: secrets a server may echo either way.
func pathKeys(escaped string) []string {
	var out []string
	for _, s := range strings.Split(escaped, "/") {
		if len(s) < keyMinLength {
			continue
		}
		dec, err := url.PathUnescape(s)
		if err != nil {
			dec = s
		}
		if LooksLikeKey(dec) || LooksLikeKey(s) {
			out = append(out, s, dec)
		}
	}
	return out
}
