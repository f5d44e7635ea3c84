package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// A misspelled field is named with the field it most likely means, and an
// entry it makes invalid says so beside the missing field (issue 35,
// item 9).
func TestMisspelledFieldNamed(t *testing.T) {
	doc := `{"mcpServers": {
		"typo": {"comand": "npx", "args": ["srv"]},
		"warned": {"command": "npx", "keepAlive": 1000, "restart": {"windw": 1000}},
		"other": {"command": "npx", "colour": "blue"}
	}}`
	f, err := parse([]byte(doc), lookupFrom(nil))
	if !errors.Is(err, errkind.ErrConfig) {
		t.Fatalf("err = %v, want the invalid entry's problems as a config error", err)
	}
	var problems []string
	for _, inv := range f.Invalid {
		if inv.Name == "typo" {
			problems = inv.Problems
		}
	}
	joined := strings.Join(problems, "\n")
	if !strings.Contains(joined, `requires "command"`) || !strings.Contains(joined, `unknown field "comand" ignored (did you mean "command"?)`) {
		t.Errorf("problems of the invalid entry:\n%s", joined)
	}
	warnings := strings.Join(f.Warnings, "\n")
	for _, want := range []string{
		`Server "warned": unknown field "keepAlive" ignored (did you mean "keepalive"?)`,
		`Server "warned": unknown field "restart.windw" ignored (did you mean "restart.window"?)`,
		`Server "other": unknown field "colour" ignored` + "\n",
	} {
		if !strings.Contains(warnings+"\n", want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}
}

func TestNearest(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"comand", "command"},
		{"URL", "url"},
		{"arg", "args"},
		{"ur", ""},     // one edit is half of it: another word
		{"colour", ""}, // nothing close
		{"enviro", ""}, // "env" is three edits away
		{"heders", "headers"},
	} {
		if got := nearest(c.in, knownFields); got != c.want {
			t.Errorf("nearest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
