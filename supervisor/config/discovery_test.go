package config

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// fixture copies testdata/discovery into a temporary directory and returns
// its home and project directories.
func fixture(t *testing.T) (home, project string) {
	t.Helper()
	root := t.TempDir()
	home, project = filepath.Join(root, "home"), filepath.Join(root, "project")
	src := filepath.Join("testdata", "discovery")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "README.md" {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		data = []byte(strings.ReplaceAll(string(data), "@PROJECT@", project))
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return home, project
}

var fixtureEnv = map[string]string{
	"API_TOKEN": "tok-api", "GITHUB_TOKEN": "tok-gh", "REMOTE_TOKEN": "tok-remote",
	"REMOTE_KEY": "key-remote", "GEMINI_TOKEN": "tok-gemini", "HOME": "/not/expanded",
}

func discover(t *testing.T, opts DiscoverOptions) *Discovery {
	t.Helper()
	if opts.Lookup == nil {
		opts.Lookup = lookupFrom(fixtureEnv)
	}
	d, err := Discover(opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// origin is where a server was found, relative to the fixture's root.
func origin(root string, s Source) string {
	rel, _ := filepath.Rel(root, s.File)
	return s.Kind + " " + s.Level + " " + filepath.ToSlash(rel)
}

// TestDiscover: every source read, the first one naming a server wins,
// project beats user inside a source, and what lost is reported.
func TestDiscover(t *testing.T) {
	home, project := fixture(t)
	root := filepath.Dir(home)
	d := discover(t, DiscoverOptions{Home: home, ProjectDir: project})

	want := map[string]string{
		"both-levels":        "claude project project/.mcp.json",
		"claude-extra":       "claude user home/.claude/mcp.json",
		"claude-local":       "claude user home/.claude.json",
		"claude-user":        "claude user home/.claude.json",
		"codex-shared":       "codex project project/.codex/config.toml",
		"cursor-both":        "cursor project project/.cursor/mcp.json",
		"cursor-user":        "cursor user home/.cursor/mcp.json",
		"docs":               "codex user home/.codex/config.toml",
		"gemini-both-levels": "gemini project project/.gemini/settings.json",
		"gemini-http":        "gemini user home/.gemini/settings.json",
		"gemini-sse":         "gemini user home/.gemini/settings.json",
		"gemini-tools":       "gemini project project/.gemini/settings.json",
		"native-project":     "native project project/.mcpactor/mcp.json",
		"native-user":        "native user home/.config/mcpactor/mcp.json",
		"off":                "codex user home/.codex/config.toml",
		"parked":             "native user home/.config/mcpactor/mcp.json",
		"plain":              "plain project project/mcp.json",
		"remote":             "codex user home/.codex/config.toml",
		"shared":             "native project project/.mcpactor/mcp.json",
		"vscode-http":        "vscode project project/.vscode/mcp.json",
		"vscode-stdio":       "vscode project project/.vscode/mcp.json",
		"windsurf-off":       "windsurf user home/.codeium/windsurf/mcp_config.json",
		"windsurf-remote":    "windsurf user home/.codeium/windsurf/mcp_config.json",
	}
	var names []string
	for _, s := range d.Servers {
		names = append(names, s.Name)
		if got := origin(root, s.Source); got != want[s.Name] {
			t.Errorf("%s: from %q, want %q", s.Name, got, want[s.Name])
		}
		// Opening a cloned repository must not start its servers.
		if s.NeedsApproval != (s.Source.Level == LevelProject) {
			t.Errorf("%s: NeedsApproval %v at level %s", s.Name, s.NeedsApproval, s.Source.Level)
		}
		if wantProject := s.Source.Level == LevelProject || s.Name == "claude-local"; (s.Source.Project == project) != wantProject {
			t.Errorf("%s: Source.Project = %q", s.Name, s.Source.Project)
		}
	}
	if !slices.IsSorted(names) || len(names) != len(want) {
		t.Errorf("servers = %v", names)
	}
	if d.server("other-project") != nil {
		t.Error("another project's entries of ~/.claude.json were read")
	}

	var shadowed []string
	for _, s := range d.Shadowed {
		shadowed = append(shadowed, s.Name+": "+origin(root, s.Hidden)+" < "+origin(root, s.Winner))
	}
	wantShadowed := []string{
		"shared: native user home/.config/mcpactor/mcp.json < native project project/.mcpactor/mcp.json",
		"parked: claude project project/.mcp.json < native user home/.config/mcpactor/mcp.json",
		"shared: claude project project/.mcp.json < native project project/.mcpactor/mcp.json",
		"both-levels: claude user home/.claude.json < claude project project/.mcp.json", // per-project entry
		"both-levels: claude user home/.claude.json < claude project project/.mcp.json", // top-level entry
		"codex-shared: codex user home/.codex/config.toml < codex project project/.codex/config.toml",
		"gemini-both-levels: gemini user home/.gemini/settings.json < gemini project project/.gemini/settings.json",
		"cursor-both: cursor user home/.cursor/mcp.json < cursor project project/.cursor/mcp.json",
		"shared: plain project project/mcp.json < native project project/.mcpactor/mcp.json",
	}
	if strings.Join(shadowed, "\n") != strings.Join(wantShadowed, "\n") {
		t.Errorf("shadowed:\n%s", strings.Join(shadowed, "\n"))
	}
	if d.Shadowed[3].Hidden.Project != project || d.Shadowed[4].Hidden.Project != "" {
		t.Errorf("the two hidden both-levels entries are not told apart: %v / %v", d.Shadowed[3], d.Shadowed[4])
	}
	if got := d.Shadowed[0].String(); got != `server "shared" of native (user, `+filepath.Join(home, ".config/mcpactor/mcp.json")+`) is shadowed by native (project, `+filepath.Join(project, ".mcpactor/mcp.json")+`)` {
		t.Errorf("String() = %s", got)
	}

	wantWarnings := []string{
		filepath.Join(home, ".codex/config.toml") + `: Server "remote": environment variable UNSET_KEY is not set (header "X-Missing" left out)`,
		filepath.Join(home, ".gemini/settings.json") + `: Server "gemini-http": unknown field "trust" ignored`,
		filepath.Join(home, ".cursor/mcp.json") + `: Server "cursor-user": environment variable CURSOR_KEY is not set`,
	}
	if strings.Join(d.Warnings, "\n") != strings.Join(wantWarnings, "\n") {
		t.Errorf("warnings:\n%s", strings.Join(d.Warnings, "\n"))
	}
	if len(d.Files) != 14 {
		t.Errorf("%d files read, want 14: %v", len(d.Files), d.Files)
	}
	if got := strings.Join(d.names(), ","); strings.Contains(got, "parked") || strings.Contains(got, "off") || !strings.Contains(got, "shared") {
		t.Errorf("Names() = %s", got)
	}
}

// TestDiscoverValues: each tool's fields mapped to ours, variables
// expanded, !commands kept for connect time.
func TestDiscoverValues(t *testing.T) {
	home, project := fixture(t)
	d := discover(t, DiscoverOptions{Home: home, ProjectDir: project})
	get := func(name string) *Entry {
		t.Helper()
		s := d.server(name)
		if s == nil {
			t.Fatalf("no server %q", name)
		}
		return s
	}

	// ${VAR}, ${VAR:-default}, bare $VAR, an unset variable.
	if got := strings.Join(get("native-user").Args, " "); got != "--root /var/data $HOME" {
		t.Errorf("args = %q", got)
	}
	if p := get("native-user").Restart; p.MaxRestarts != 2 || p.Window != 0 { // a window left out stays zero: the default
		t.Errorf("restart = %+v", p)
	}
	if got := get("shared").Env["TOKEN"]; got != "tok-api" {
		t.Errorf("TOKEN = %q", got)
	}
	if got := get("claude-extra").Headers["X-Api-Key"]; got != "anonymous" {
		t.Errorf("X-Api-Key = %q", got)
	}
	if got := get("cursor-user").Env["API_KEY"]; got != "${CURSOR_KEY}" {
		t.Errorf("an unset variable should stay as written: %q", got)
	}

	// !commands: kept as written, listed, nothing run.
	np := get("native-project")
	if np.Headers["Authorization"] != "!op read op://dev/mcp/token" || !slices.Equal(np.Commands, []Command{{Field: "headers", Key: "Authorization", Line: "op read op://dev/mcp/token"}}) {
		t.Errorf("native-project = %q %v", np.Headers, np.Commands)
	}
	// Only our own format gives '!' that meaning: in a plain mcp.json it
	// is a character of the value.
	if p := get("plain"); len(p.Commands) != 0 || p.Env["SECRET"] != "!cat .secret" || !p.NeedsApproval {
		t.Errorf("plain = %v %q approval %v", p.Commands, p.Env, p.NeedsApproval)
	}

	// Claude Code.
	if c := get("claude-user"); c.TransportType() != "sse" || c.URL != "https://sse.example/sse" {
		t.Errorf("claude-user = %+v", c)
	}
	if c := get("claude-local"); c.Command != "claude-local" || c.Args[0] != "--verbose" {
		t.Errorf("claude-local = %+v", c)
	}

	// Codex.
	docs := get("docs")
	if docs.Env["GITHUB_TOKEN"] != "tok-gh" || docs.Env["LOG_LEVEL"] != "debug" || len(docs.Env) != 2 {
		t.Errorf("docs env = %q (NOT_SET_ANYWHERE must be left out)", docs.Env)
	}
	if docs.ConnectTimeout != 20*time.Second || docs.RequestTimeout != 45500*time.Millisecond {
		t.Errorf("docs timeouts = %v %v", docs.ConnectTimeout, docs.RequestTimeout)
	}
	if !slices.Equal(docs.EnabledTools, []string{"search", "fetch"}) || !slices.Equal(docs.DisabledTools, []string{"delete"}) {
		t.Errorf("docs tools = %v %v", docs.EnabledTools, docs.DisabledTools)
	}
	remote := get("remote")
	wantHeaders := map[string]string{"Authorization": "Bearer tok-remote", "X-Api-Key": "key-remote", "X-Region": "eu"}
	if remote.TransportType() != "http" || !mapsEqual(remote.Headers, wantHeaders) {
		t.Errorf("remote = %s %q", remote.TransportType(), remote.Headers)
	}
	if get("off").Enabled || !get("docs").Enabled {
		t.Error("codex enabled = false not honoured")
	}
	if c := get("codex-shared"); c.Command != "codex-project" || c.Cwd != "tools" {
		t.Errorf("codex-shared = %+v", c)
	}

	// Gemini CLI: httpUrl is Streamable HTTP, url legacy SSE.
	if c := get("gemini-http"); c.TransportType() != "http" || c.URL != "https://gemini.example/mcp" ||
		c.Headers["Authorization"] != "Bearer tok-gemini" || c.RequestTimeout != 30*time.Second {
		t.Errorf("gemini-http = %+v", c)
	}
	if c := get("gemini-sse"); c.TransportType() != "sse" || c.URL != "https://gemini.example/sse" {
		t.Errorf("gemini-sse = %+v", c)
	}
	if g := get("gemini-tools"); !slices.Equal(g.EnabledTools, []string{"read_file"}) || !slices.Equal(g.DisabledTools, []string{"write_file"}) || g.Cwd != "./server" {
		t.Errorf("gemini-tools = %+v", g)
	}

	// Windsurf.
	if w := get("windsurf-remote"); w.URL != "https://windsurf.example/mcp" || w.TransportType() != "http" || !slices.Equal(w.DisabledTools, []string{"drop_table"}) {
		t.Errorf("windsurf-remote = %+v", w)
	}
	if get("windsurf-off").Enabled {
		t.Error(`windsurf "disabled": true not honoured`)
	}

	// VS Code: "servers", "type", comments and trailing commas.
	if c := get("vscode-http"); c.TransportType() != "http" || c.URL != "https://vscode.example/mcp" {
		t.Errorf("vscode-http = %+v", c)
	}
	if c := get("vscode-stdio"); c.TransportType() != "stdio" || !slices.Equal(c.Args, []string{"server.js", "--url=http://x//y"}) {
		t.Errorf("vscode-stdio = %+v", c)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestDiscoverHash: a discovered server's Hash is the canonical hash of
// its entry as written, JSON or TOML, whatever the variables hold.
func TestDiscoverHash(t *testing.T) {
	home, project := fixture(t)
	d1 := discover(t, DiscoverOptions{Home: home, ProjectDir: project})
	other := map[string]string{"API_TOKEN": "changed", "GITHUB_TOKEN": "changed", "REMOTE_TOKEN": "changed", "REMOTE_KEY": "changed"}
	d2 := discover(t, DiscoverOptions{Home: home, ProjectDir: project, Lookup: lookupFrom(other)})
	for _, s := range d1.Servers {
		if d2.server(s.Name).Hash != s.Hash {
			t.Errorf("%s: the hash changed with the variables' values", s.Name)
		}
	}

	var native struct{ MCPServers map[string]json.RawMessage }
	data, _ := os.ReadFile(filepath.Join(project, ".mcpactor/mcp.json"))
	_ = json.Unmarshal(data, &native)
	if want, _ := canonicalHash(native.MCPServers["shared"]); d1.server("shared").Hash != want {
		t.Errorf("shared: hash %s, want %s", d1.server("shared").Hash, want)
	}
	var codex struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.DecodeFile(filepath.Join(home, ".codex/config.toml"), &codex); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(codex.MCPServers["remote"])
	if want, _ := canonicalHash(raw); d1.server("remote").Hash != want {
		t.Errorf("remote: hash %s, want %s", d1.server("remote").Hash, want)
	}
	// Comments in a JSONC file are not part of the entry.
	path := filepath.Join(project, ".vscode/mcp.json")
	data, _ = os.ReadFile(path)
	edited := strings.Replace(string(data), "/* A local one. */", "/* A local one, commented differently. */", 1)
	writeFile(t, path, edited)
	if d3 := discover(t, DiscoverOptions{Home: home, ProjectDir: project}); d3.server("vscode-stdio").Hash != d1.server("vscode-stdio").Hash {
		t.Error("a comment changed the hash")
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDiscoverBrokenFiles: a file that cannot be read or parsed is a
// warning naming it, an invalid entry is a warning naming the server, and
// everything else still loads.
func TestDiscoverBrokenFiles(t *testing.T) {
	home, project := fixture(t)
	writeFile(t, filepath.Join(home, ".gemini/settings.json"), "{\n  \"mcpServers\": {\n    \"g\": {\"command\": \"sk-secret-value\" \n")
	writeFile(t, filepath.Join(home, ".codex/config.toml"), "[mcp_servers.docs]\ncommand = \"npx\"\n[mcp_servers.docs.env]\nTOKEN = sk_secret_value\n")
	// A directory where a file should be: unreadable whoever runs the test.
	cursor := filepath.Join(project, ".cursor/mcp.json")
	if err := os.Remove(cursor); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(cursor, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(project, "mcp.json"), `{"mcpServers": []}`)
	writeFile(t, filepath.Join(project, ".mcp.json"), `{"mcpServers": {
		"both-levels": {"type": "stdio", "env": {"TOKEN": "sk-secret-value"}},
		"bad name!": {"command": "x"},
		"claude-fine": {"command": "fine"}
	}}`)

	d := discover(t, DiscoverOptions{Home: home, ProjectDir: project})
	want := []string{
		filepath.Join(project, ".mcp.json") + `: Server "bad name!": name must be 1 to 100 letters, digits, '-', '_' or '.' (server skipped)`,
		filepath.Join(project, ".mcp.json") + `: Server "both-levels": stdio server requires "command" field (server skipped)`,
		filepath.Join(home, ".codex/config.toml") + `: invalid TOML: line 4: expected value but found "..." instead (file skipped)`,
		filepath.Join(home, ".gemini/settings.json") + `: invalid JSON: line 4: unexpected end of JSON input (file skipped)`,
		filepath.Join(project, ".cursor/mcp.json") + `: cannot read: not a regular file (a directory)`,
		filepath.Join(project, "mcp.json") + `: "mcpServers" must be an object (file skipped)`,
	}
	var rest []string
	for _, w := range d.Warnings {
		if strings.Contains(w, "secret") {
			t.Errorf("a warning shows a value: %s", w)
		}
		if strings.Contains(w, "is not set") || strings.Contains(w, "unknown field") {
			continue // the fixture's own, tested above
		}
		rest = append(rest, w)
	}
	if len(rest) != len(want) {
		t.Fatalf("warnings:\n%s", strings.Join(rest, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(rest[i], want[i]) {
			t.Errorf("warning %d:\n got %s\nwant %s...", i, rest[i], want[i])
		}
	}
	// The invalid both-levels entry still claims its name: the user-level
	// ones of ~/.claude.json stay hidden rather than stepping in.
	if d.server("both-levels") != nil || d.server("claude-fine") == nil {
		t.Errorf("both-levels = %v, claude-fine = %v", d.server("both-levels"), d.server("claude-fine"))
	}
	hidden := 0
	for _, sh := range d.Shadowed {
		if sh.Name == "both-levels" && sh.Winner.File == filepath.Join(project, ".mcp.json") {
			hidden++
		}
	}
	if hidden != 2 {
		t.Errorf("shadowed = %v", d.Shadowed)
	}
	// The other sources still load.
	for _, name := range []string{"shared", "native-user", "claude-user", "codex-shared", "gemini-tools", "cursor-user", "windsurf-remote", "vscode-http"} {
		if d.server(name) == nil {
			t.Errorf("%s missing", name)
		}
	}
	for _, name := range []string{"docs", "gemini-http", "cursor-both"} {
		if s := d.server(name); s != nil && s.Source.Kind != sourceCursor {
			t.Errorf("%s loaded from a broken file", name)
		}
	}
	if s := d.server("cursor-both"); s == nil || s.Source.Level != levelUser {
		t.Errorf("cursor-both should fall back to the user file: %+v", s)
	}
}

// TestDiscoverSwitches: sources switched off one by one, or every
// project file at once.
func TestDiscoverSwitches(t *testing.T) {
	home, project := fixture(t)
	d := discover(t, DiscoverOptions{Home: home, ProjectDir: project, Disable: []string{sourceNative, sourceCodex, sourceWindsurf}})
	for _, s := range d.Servers {
		if k := s.Source.Kind; k == sourceNative || k == sourceCodex || k == sourceWindsurf {
			t.Errorf("%s read from disabled source %s", s.Name, k)
		}
	}
	if s := d.server("shared"); s == nil || s.Source.Kind != sourceClaude {
		t.Errorf("shared should now be Claude Code's: %+v", s)
	}
	for _, sh := range d.Shadowed {
		if sh.Hidden.Kind == sourceNative || sh.Hidden.Kind == sourceCodex {
			t.Errorf("a disabled source was read: %v", sh)
		}
	}

	d = discover(t, DiscoverOptions{Home: home, ProjectDir: project, NoProject: true})
	for _, s := range d.Servers {
		if s.Source.Level != levelUser || s.NeedsApproval {
			t.Errorf("%s: %v with NoProject", s.Name, s.Source)
		}
	}
	for _, f := range d.Files {
		if strings.HasPrefix(f, project) {
			t.Errorf("%s read with NoProject", f)
		}
	}
	if s := d.server("shared"); s == nil || s.Source.Level != levelUser || s.Command != "native-user-shared" {
		t.Errorf("shared = %+v", s)
	}
	if d.server("claude-local") == nil {
		t.Error("~/.claude.json's per-project entries are the user's and stay with NoProject")
	}

	if _, err := Discover(DiscoverOptions{Home: home, ProjectDir: project, Disable: []string{"claude-code"}}); err == nil ||
		err.Error() != `discovery: unknown source "claude-code" (the sources are native, claude, codex, gemini, cursor, windsurf, vscode, plain)` {
		t.Errorf("err = %v", err)
	}
}

// TestDiscoverProjectIsHome: run from the home directory, a tool's project
// file is its user file, read once, as the user's.
func TestDiscoverProjectIsHome(t *testing.T) {
	home, _ := fixture(t)
	d := discover(t, DiscoverOptions{Home: home, ProjectDir: home})
	seen := map[string]bool{}
	for _, f := range d.Files {
		if seen[f] {
			t.Errorf("%s read twice", f)
		}
		seen[f] = true
	}
	if s := d.server("gemini-http"); s == nil || s.Source.Level != levelUser || s.NeedsApproval {
		t.Errorf("gemini-http = %+v", s)
	}
}

func TestStandardJSON(t *testing.T) {
	in := "{\"a\": \"x // not a comment /* nor this */\", // comment\n \"b\": [1, 2, /* c */ ],\n \"c\\\"\": \"\\\\\", /* multi\nline */ }"
	var v map[string]any
	if err := json.Unmarshal(standardJSON([]byte(in)), &v); err != nil {
		t.Fatalf("%v:\n%s", err, standardJSON([]byte(in)))
	}
	if v["a"] != "x // not a comment /* nor this */" || len(v["b"].([]any)) != 2 || v["c\""] != "\\" {
		t.Errorf("v = %#v", v)
	}
	if got := strings.Count(string(standardJSON([]byte(in))), "\n"); got != strings.Count(in, "\n") {
		t.Errorf("newlines not kept: %d", got)
	}
}
