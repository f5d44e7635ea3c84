package supervisor

import (
	"strings"
	"testing"
	"time"
)

func lookupFrom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestParse(t *testing.T) {
	doc := `{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "srv", "${HOME}/x", "$HOME"], "env": {"TOKEN": "${TOKEN:-none}"}, "timeout": 5000, "extra": 1},
		"web": {"url": "https://example.test/mcp", "requestTimeout": 1000},
		"off": {"command": "x", "enabled": false},
		"missing": {"command": "${NOPE}"}
	}}`
	f, err := Parse([]byte(doc), lookupFrom(map[string]string{"HOME": "/home/u"}))
	if err != nil {
		t.Fatal(err)
	}
	files := f.Servers["files"]
	if got := strings.Join(files.Args, " "); got != "-y srv /home/u/x $HOME" {
		t.Errorf("args = %q", got)
	}
	if files.Env["TOKEN"] != "none" {
		t.Errorf("default not applied: %q", files.Env["TOKEN"])
	}
	if files.ConnectTimeout != 5*time.Second || files.RequestTimeout != 5*time.Second {
		t.Errorf("timeout did not set both: %v %v", files.ConnectTimeout, files.RequestTimeout)
	}
	if web := f.Servers["web"]; web.TransportType() != "http" || web.RequestTimeout != time.Second || web.ConnectTimeout != 0 {
		t.Errorf("web = %+v", web)
	}
	if len(f.Disabled) != 1 || f.Disabled[0] != "off" {
		t.Errorf("disabled = %v", f.Disabled)
	}
	if f.Servers["missing"].Command != "${NOPE}" {
		t.Errorf("unset variable should stay as written")
	}
	want := []string{`Server "files": unknown field "extra" ignored`, `Server "missing": environment variable NOPE is not set`}
	if strings.Join(f.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings = %q", f.Warnings)
	}
	if got := f.Names(); strings.Join(got, ",") != "files,missing,web" {
		t.Errorf("names = %v", got)
	}
}

func TestParseValidation(t *testing.T) {
	doc := `{"mcpServers": {
		"both": {"command": "x", "url": "http://a"},
		"nocmd": {"type": "stdio"},
		"nourl": {"type": "sse"},
		"odd": {"type": "carrier-pigeon", "command": "x"}
	}}`
	_, err := Parse([]byte(doc), lookupFrom(nil))
	want := `Server "both": both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both; ` +
		`Server "nocmd": stdio server requires "command" field; ` +
		`Server "nourl": sse server requires "url" field; ` +
		`Server "odd": unknown server type "carrier-pigeon"`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}
