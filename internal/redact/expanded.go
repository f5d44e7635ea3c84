package redact

import (
	"slices"
	"strings"
	"sync"
)

// A ${VAR} reference in a configuration file is expanded where the file is
// read (supervisor/config), long before a URL holding its value is shown,
// and nothing of the server's configuration says afterwards which part of
// the URL came from a variable. The expansion site hands each value it
// substitutes to Expanded, and URL and NewMasker mask those values
// wherever they appear in a URL: a variable is where users keep what they
// do not want written down, so what it held is treated as a secret.
//
// The values are the process's environment's, known process-wide anyway;
// the set is bounded (maxExpanded, the oldest forgotten first) so that a
// program reloading its configuration forever does not grow it.

const maxExpanded = 1024

var expanded struct {
	mu     sync.RWMutex
	values []string // in the order noted, oldest first
	set    map[string]struct{}
	sorted []string // values longest first, rebuilt on change
}

// Expanded notes v, the value a ${VAR} reference was replaced with, as a
// secret, and returns it. A value shorter than six characters is not
// noted (it would mask ordinary words), nor is one that is itself a URL
// (a variable holding a server's whole URL: its own credentials are
// masked as any URL's are, and its host stays readable).
func Expanded(v string) string {
	if len(v) < minSecret || strings.Contains(v, "://") {
		return v
	}
	expanded.mu.RLock()
	_, known := expanded.set[v]
	expanded.mu.RUnlock()
	if known {
		return v
	}
	expanded.mu.Lock()
	defer expanded.mu.Unlock()
	if _, known := expanded.set[v]; known {
		return v
	}
	if expanded.set == nil {
		expanded.set = make(map[string]struct{})
	}
	if len(expanded.values) >= maxExpanded {
		delete(expanded.set, expanded.values[0])
		expanded.values = expanded.values[1:]
	}
	expanded.values = append(expanded.values, v)
	expanded.set[v] = struct{}{}
	expanded.sorted = slices.Clone(expanded.values)
	sortLongestFirst(expanded.sorted)
	return v
}

// expandedIn returns the noted values that occur in s, longest first.
func expandedIn(s string) []string {
	expanded.mu.RLock()
	defer expanded.mu.RUnlock()
	var out []string
	for _, v := range expanded.sorted {
		if strings.Contains(s, v) {
			out = append(out, v)
		}
	}
	return out
}

// sortLongestFirst orders secrets so that a value which is part of
// another (a token, and the "Bearer token" holding it) is replaced after
// it, and the longer one leaves no remainder; ties in text order, so the
// result does not depend on a map's.
func sortLongestFirst(s []string) {
	slices.SortFunc(s, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
}
