package reach

import (
	"slices"
	"strings"
	"testing"
)

// Each way of reaching a server, and each way of getting it wrong, in the
// words both the code and the file configuration report.
func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		t    Target
		kind string
		want []string
	}{
		{Target{Command: "srv"}, Stdio, nil},
		{Target{URL: "https://h/mcp"}, HTTP, nil},
		{Target{Type: SSE, URL: "http://h/sse"}, SSE, nil},
		{Target{Dial: true}, Stream, nil},
		{Target{}, Stdio, []string{`Server "s": stdio server requires "command" field`}},
		{Target{Type: HTTP}, HTTP, []string{`Server "s": http server requires "url" field`}},
		{Target{Command: "srv", URL: "https://h"}, Stdio, []string{`Server "s": both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both`}},
		{Target{Dial: true, Command: "srv"}, Stream, []string{`Server "s": "dial" is set together with "command" or "url" - choose one way to reach the server`}},
		{Target{Type: "ws"}, "ws", []string{`Server "s": unknown server type "ws"`}},
		{Target{URL: "ftp://h"}, HTTP, []string{`Server "s": "url" must be an http or https URL (the scheme is "ftp")`}},
		{Target{URL: "https://"}, HTTP, []string{`Server "s": "url" has no host`}},
	} {
		if got := tc.t.Kind(); got != tc.kind {
			t.Errorf("%+v: kind %q, want %q", tc.t, got, tc.kind)
		}
		if got := Problems("s", tc.t); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: problems %q, want %q", tc.t, got, tc.want)
		}
	}
}

// A URL that does not parse is reported without quoting it: it may carry
// a credential.
func TestProblemsQuoteNoURL(t *testing.T) {
	got := Problems("s", Target{URL: "https://user:s3cret@h/%zz"})
	if len(got) != 1 || !strings.Contains(got[0], "is not a valid URL") || strings.Contains(got[0], "s3cret") {
		t.Errorf("problems %q", got)
	}
}

func TestNames(t *testing.T) {
	for name, ok := range map[string]bool{"files": true, "a.b-c_1": true, "": false, "a b": false, strings.Repeat("x", 101): false} {
		if ValidName(name) != ok {
			t.Errorf("ValidName(%q) = %v", name, !ok)
		}
	}
	if got := NameProblem("a b"); got != `Server "a b": name must be 1 to 100 letters, digits, '-', '_' or '.'` {
		t.Errorf("NameProblem = %q", got)
	}
}
