package measure

import (
	"fmt"
	"slices"
	"strings"
)

// ParseList reads a comma-separated flag value of names of kind (a
// "client", a "server"), each one of known, spaces around a name ignored.
// The error names the first unknown one and the names known.
func ParseList(kind, list string, known []string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("unknown %s %q (want some of %s)", kind, n, strings.Join(known, ","))
		}
		names = append(names, n)
	}
	return names, nil
}
