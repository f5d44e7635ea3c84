// Package docpage is what the bench tools share to write a docs page:
// the generated blocks between markers, which leave the prose around them
// as it is, and the axes of the SVG charts beside the page.
package docpage

import (
	"fmt"
	"strings"
)

// Markers are the lines that delimit a generated block of a page:
//
//	<!-- TOOL:NAME -->
//	...written by the tool...
//	<!-- /TOOL:NAME -->
func Markers(tool, name string) (begin, end string) {
	return "<!-- " + tool + ":" + name + " -->", "<!-- /" + tool + ":" + name + " -->"
}

// Replace replaces what is between the markers of the block name of tool
// in text with body. Both markers must be there, once each, in order: the
// page and the tool must agree on what is generated.
func Replace(text, tool, name, body string) (string, error) {
	begin, end := Markers(tool, name)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i || strings.Count(text, begin) != 1 || strings.Count(text, end) != 1 {
		return "", fmt.Errorf("the page needs the markers %s and %s, once each, in that order", begin, end)
	}
	return text[:i+len(begin)] + "\n" + strings.TrimSpace(body) + "\n" + text[j:], nil
}
