package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
		"missing": {"command": "${NOPE}", "args": ["${NOPE}"]}
	}}`
	f, err := parse([]byte(doc), lookupFrom(map[string]string{"HOME": "/home/u"}))
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
	if len(f.Disabled) != 1 || f.Disabled[0] != "off" || f.Servers["off"].Enabled {
		t.Errorf("disabled = %v", f.Disabled)
	}
	if f.Servers["missing"].Command != "${NOPE}" {
		t.Errorf("unset variable should stay as written")
	}
	// One warning per variable and server, however often it is used.
	want := []string{`Server "files": unknown field "extra" ignored`, `Server "missing": environment variable NOPE is not set`}
	if strings.Join(f.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings = %q", f.Warnings)
	}
	if got := f.names(); strings.Join(got, ",") != "files,missing,web" {
		t.Errorf("names = %v", got)
	}
	if got := len(f.list()); got != 4 {
		t.Errorf("List has %d servers, want 4 (the disabled one included)", got)
	}
	if string(f.Servers["files"].Extra["extra"]) != "1" {
		t.Errorf("unknown field not kept: %q", f.Servers["files"].Extra)
	}
	if s := f.Servers["files"].Source; s != (Source{Kind: sourceConfigFile, Level: levelExplicit}) {
		t.Errorf("source = %+v", s)
	}
}

func TestParseValidation(t *testing.T) {
	doc := `{"mcpServers": {
		"both": {"command": "x", "url": "http://a"},
		"nocmd": {"type": "stdio"},
		"nourl": {"type": "sse"},
		"nohttp": {"type": "http", "headers": {"A": "b"}},
		"odd": {"type": "carrier-pigeon", "command": "x"},
		"fine": {"command": "x"}
	}}`
	f, err := parse([]byte(doc), lookupFrom(nil))
	want := `Server "both": both "command" and "url" are set - server should be either stdio (command) OR http/sse (url), not both; ` +
		`Server "nocmd": stdio server requires "command" field; ` +
		`Server "nohttp": http server requires "url" field; ` +
		`Server "nourl": sse server requires "url" field; ` +
		`Server "odd": unknown server type "carrier-pigeon"`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	if f == nil || len(f.Servers) != 1 || f.Servers["fine"] == nil {
		t.Errorf("the valid server should still be returned: %+v", f)
	}
}

// TestParseFieldProblems: our own checks, in the same "Server "<name>": ..."
// form, all reported together.
func TestParseFieldProblems(t *testing.T) {
	for _, c := range []struct{ entry, want string }{
		{`{"command": "x", "args": "a b"}`, `Server "s": "args" must be a list of strings`},
		{`{"command": "x", "env": {"A": 1}}`, `Server "s": "env" must be an object of strings`},
		{`{"command": "x", "timeout": "5s"}`, `Server "s": "timeout" must be a number of milliseconds`},
		{`{"command": "x", "requestTimeout": -1}`, `Server "s": "requestTimeout" must not be negative`},
		{`{"command": "x", "maxInFlight": 1.5}`, `Server "s": "maxInFlight" must be a whole number`},
		{`{"command": "x", "enabled": "no"}`, `Server "s": "enabled" must be true or false`},
		{`{"command": "x", "restart": {"backoffMin": 5000, "backoffMax": 100}}`, `Server "s": "restart.backoffMin" must not exceed "restart.backoffMax" (5s > 100ms)`},
		{`{"command": "x", "restart": {"maxRestarts": -2}}`, `Server "s": "restart.maxRestarts" must not be negative`},
		{`{"command": "x", "auth": {"type": "basic"}}`, `Server "s": "auth.type" must be "oauth" or "apikey", not "basic"`},
		{`{"command": "x", "auth": {}}`, `Server "s": "auth.type" is required ("oauth" or "apikey")`},
		{`{"command": "x", "env": {"A": "!  "}}`, `Server "s": "env" value of "A" is '!' without a command`},
		{`["x"]`, `Server "s": the entry must be a JSON object`},
		{`{"args": 1, "type": "sse"}`, `Server "s": "args" must be a list of strings`},
	} {
		_, err := parse([]byte(`{"mcpServers": {"s": `+c.entry+`}}`), lookupFrom(nil))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.entry, err, c.want)
		}
	}
}

func TestParseNames(t *testing.T) {
	long := strings.Repeat("a", 101)
	doc := `{"mcpServers": {"ok.name_1-x": {"command": "x"}, "has space": {"command": "x"}, "` + long + `": {"command": "x"}, "": {"command": "x"}}}`
	f, err := parse([]byte(doc), lookupFrom(nil))
	want := `Server "": name must be 1 to 100 letters, digits, '-', '_' or '.'; ` +
		`Server "` + long + `": name must be 1 to 100 letters, digits, '-', '_' or '.'; ` +
		`Server "has space": name must be 1 to 100 letters, digits, '-', '_' or '.'`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v", err)
	}
	if f.Servers["ok.name_1-x"] == nil {
		t.Error("a valid name was refused")
	}
	if _, err := parse([]byte(`{"mcpServers": {"`+strings.Repeat("b", 100)+`": {"command": "x"}}}`), lookupFrom(nil)); err != nil {
		t.Errorf("100 characters refused: %v", err)
	}
}

func TestParseAllFields(t *testing.T) {
	doc := `{"mcpServers": {
		"full": {"type": "http", "url": "https://h/${P:-mcp}", "headers": {"X-Id": "${ID}", "Authorization": "!pass show mcp"},
			"timeout": 7000, "connectTimeout": 2000, "maxInFlight": 8, "queueTimeout": 2500,
			"restart": {"maxRestarts": 0, "window": 1000, "backoffMin": 10, "backoffMax": 20, "jitter": 1},
			"protocolVersion": "2025-06-18", "keepalive": 15000.5,
			"auth": {"type": "oauth", "credentialId": "work", "scope": "x"},
			"enabledTools": ["a", "b"], "disabledTools": ["c"], "inheritEnv": "safe"},
		"plain": {"command": "srv", "cwd": "/tmp", "env": {"K": "!printf x"}}
	}}`
	f, err := parse([]byte(doc), lookupFrom(map[string]string{"ID": "7"}))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers["full"]
	if s.URL != "https://h/mcp" || s.Headers["X-Id"] != "7" || s.Headers["Authorization"] != "!pass show mcp" {
		t.Errorf("values: %q %q", s.URL, s.Headers)
	}
	if s.ConnectTimeout != 2*time.Second || s.RequestTimeout != 7*time.Second || s.MaxInFlight != 8 || s.ProtocolVersion != "2025-06-18" {
		t.Errorf("entry = %+v", s)
	}
	if s.QueueTimeout != 2500*time.Millisecond {
		t.Errorf("queueTimeout: %v", s.QueueTimeout)
	}
	// A written "maxRestarts": 0 means none, which a RestartPolicy says
	// with -1 (a zero field is a default).
	if want := (RestartPolicy{MaxRestarts: -1, Window: time.Second, BackoffMin: 10 * time.Millisecond, BackoffMax: 20 * time.Millisecond}); s.Restart != want {
		t.Errorf("restart = %+v", s.Restart)
	}
	if s.Keepalive != 15000500*time.Microsecond {
		t.Errorf("keepalive = %v", s.Keepalive)
	}
	if s.Auth == nil || *s.Auth != (Auth{Type: "oauth"}) || s.Identity != "work" {
		t.Errorf("auth = %+v, identity %q", s.Auth, s.Identity)
	}
	if strings.Join(s.EnabledTools, ",") != "a,b" || strings.Join(s.DisabledTools, ",") != "c" {
		t.Errorf("tools = %v %v", s.EnabledTools, s.DisabledTools)
	}
	if s.InheritEnv != "safe" {
		t.Errorf("inheritEnv = %q", s.InheritEnv)
	}
	if want := []Command{{Field: "headers", Key: "Authorization", Line: "pass show mcp"}}; !slices.Equal(s.Commands, want) {
		t.Errorf("commands = %+v", s.Commands)
	}
	wantWarnings := `Server "full": unknown field "auth.scope" ignored (did you mean "auth.scopes"?)` + "\n" + `Server "full": unknown field "restart.jitter" ignored`
	if got := strings.Join(f.Warnings, "\n"); got != wantWarnings {
		t.Errorf("warnings = %q", f.Warnings)
	}

	p := f.Servers["plain"]
	// What the file leaves out stays zero: the default, which the
	// connection and the manager apply.
	if p.Restart != (RestartPolicy{}) || p.QueueTimeout != 0 || p.Keepalive != 0 || p.Auth != nil || !p.Enabled || p.InheritEnv != "" {
		t.Errorf("left-out fields not zero: %+v", p)
	}
	if p.Cwd != "/tmp" || p.Env["K"] != "!printf x" || len(p.Commands) != 1 || p.Commands[0].Field != "env" {
		t.Errorf("plain = %+v", p)
	}
	if p.NeedsApproval || f.Servers["full"].NeedsApproval {
		t.Error("an explicit file needs no approval")
	}
}

// TestParseRunsNothing: a !command is not run, and its ${VAR} not
// expanded, when the file is read.
func TestParseRunsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"s": map[string]any{"command": "x", "env": map[string]string{"T": "!touch " + marker + " ${V}"}},
	}})
	f, err := parse(doc, lookupFrom(map[string]string{"V": "v"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran at parse time")
	}
	if got := f.Servers["s"].Commands[0].Line; got != "touch "+marker+" ${V}" {
		t.Errorf("command = %q", got)
	}
}

func TestParseInvalidDocument(t *testing.T) {
	_, err := parse([]byte("{\n \"mcpServers\": {\n  \"s\": {\"env\": {\"TOKEN\": \"sk-secret\" }\n}"), lookupFrom(nil))
	if err == nil || strings.Contains(err.Error(), "sk-secret") || !strings.Contains(err.Error(), "invalid configuration: line 4") {
		t.Errorf("err = %v", err)
	}
	_, err = parse([]byte(`{"mcpServers": []}`), lookupFrom(nil))
	if err == nil || err.Error() != `invalid configuration: "mcpServers" must be an object (it is a JSON array)` {
		t.Errorf("err = %v", err)
	}
}

func TestHash(t *testing.T) {
	hashOf := func(doc string, env map[string]string) string {
		t.Helper()
		f, err := parse([]byte(doc), lookupFrom(env))
		if err != nil {
			t.Fatal(err)
		}
		return f.Servers["s"].Hash
	}
	a := hashOf(`{"mcpServers": {"s": {"command": "x", "env": {"A": "${TOKEN}", "B": "2"}, "args": ["1", "2"]}}}`, map[string]string{"TOKEN": "one"})
	b := hashOf(`{"mcpServers": {"s": {
		"args": ["1", "2"],
		"env": {"B": "2", "A": "${TOKEN}"},
		"command": "x"
	}}}`, map[string]string{"TOKEN": "two"})
	if a != b {
		t.Errorf("key order, spacing or a variable's value changed the hash: %s %s", a, b)
	}
	if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("not a hex SHA-256: %q", a)
	}
	want, _ := canonicalHash([]byte(`{"args":["1","2"],"command":"x","env":{"A":"${TOKEN}","B":"2"}}`))
	if a != want {
		t.Errorf("hash %s, want the canonical hash of the entry as written %s", a, want)
	}
	for _, changed := range []string{
		`{"mcpServers": {"s": {"command": "x", "env": {"A": "${TOKEN2}", "B": "2"}, "args": ["1", "2"]}}}`,
		`{"mcpServers": {"s": {"command": "x", "env": {"A": "${TOKEN}", "B": "2"}, "args": ["2", "1"]}}}`,
		`{"mcpServers": {"s": {"command": "x", "env": {"A": "${TOKEN}", "B": "2"}, "args": ["1", "2"], "timeout": 1}}}`,
	} {
		if hashOf(changed, nil) == a {
			t.Errorf("a changed entry hashes alike: %s", changed)
		}
	}
}

// A document of two servers, a command and a URL with a !command header.
func TestParseExample(t *testing.T) {
	doc := `{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "srv", "${ROOT:-/srv}"], "timeout": 5000},
		"tracker": {"url": "https://tracker.example/mcp", "headers": {"Authorization": "!pass show tracker"}}
	}}`
	noEnv := func(string) (string, bool) { return "", false }
	f, err := parse([]byte(doc), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, s := range f.list() {
		fmt.Fprintln(&got, s.Name, s.TransportType(), s.Command, s.Args, s.ConnectTimeout, s.Commands)
	}
	want := "files stdio npx [-y srv /srv] 5s []\ntracker http  [] 0s [{headers Authorization pass show tracker}]\n"
	if got.String() != want {
		t.Errorf("got\n%swant\n%s", got.String(), want)
	}
}
