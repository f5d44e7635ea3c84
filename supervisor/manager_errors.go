package supervisor

import (
	"strings"
)

// oneLine joins the lines of a message (a server's stderr excerpt) so
// that an error or a log line stays one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
