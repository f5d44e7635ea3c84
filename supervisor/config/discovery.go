package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Discovery collects servers from the configuration files of several MCP
// clients (docs/configuration.md, "Discovery"): ours first, then Claude
// Code, Codex, Gemini CLI, Cursor, Windsurf, VS Code and a plain mcp.json.
// The first source that names a server wins; a later one of the same name
// is shadowed, and reported, never merged.

// DiscoverOptions configure Discover; the zero value reads every source
// of the current user and working directory. The root package re-exports
// it as mcpactor.DiscoverOptions.
type DiscoverOptions struct {
	// Home is the home directory; default os.UserHomeDir.
	Home string
	// ProjectDir is the project directory; default os.Getwd.
	ProjectDir string
	// Disable lists source kinds (Source.Kind) not to read: "native"
	// (our own files), "claude", "codex", "gemini", "cursor", "windsurf",
	// "vscode", "plain" (mcp.json files). An unknown kind is an error.
	Disable []string
	// NoProject skips every file under the project directory: only the
	// user's own files are read.
	NoProject bool
	// Lookup resolves ${VAR} references and Codex's environment
	// variables; default os.LookupEnv.
	Lookup func(string) (string, bool)
}

// Discovery is what Discover found.
type Discovery struct {
	// Servers are the winning entries, disabled ones included, sorted by
	// name.
	Servers []*Entry
	// Shadowed lists every entry hidden by an earlier one of the same
	// name, in discovery order.
	Shadowed []Shadowing
	// Warnings are the problems of files and entries, each prefixed with
	// the file: unreadable or invalid files, invalid entries (left out),
	// and the winners' own warnings. They name files, fields and
	// variables, never values.
	Warnings []string
	// Files are the files found and read, in priority order.
	Files []string
	// Invalid are the entries left out because they are invalid (each
	// is also a warning); File names the file, and for ~/.claude.json
	// the project key.
	Invalid []InvalidEntry
}

// Shadowing is a server entry hidden by an earlier one of the same name.
type Shadowing struct {
	Name   string
	Winner Source // where the entry in use came from
	Hidden Source // where the hidden one was
}

func (s Shadowing) String() string {
	return fmt.Sprintf("server %q of %s is shadowed by %s", s.Name, s.Hidden, s.Winner)
}

// server returns the server of that name, or nil.
func (d *Discovery) server(name string) *Entry {
	i, ok := slices.BinarySearchFunc(d.Servers, name, func(s *Entry, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return nil
	}
	return d.Servers[i]
}

// names returns the enabled servers' names in sorted order.
func (d *Discovery) names() []string {
	var names []string
	for _, s := range d.Servers {
		if s.Enabled {
			names = append(names, s.Name)
		}
	}
	return names
}

// sourceFile is one file of a source.
type sourceFile struct {
	level string
	path  string
	read  fileReader
}

// found is one entry read from a file: a server, or the problems that
// left it out.
type found struct {
	name     string
	srv      *Entry
	problems []string
	src      Source
	where    string // the file, and for ~/.claude.json the project key
}

// fileReader reads the entries of one file. An error means the file as a
// whole is unusable.
type fileReader func(data []byte, src Source, dc *discoverCtx) ([]found, error)

type discoverCtx struct {
	lookup  func(string) (string, bool)
	project string   // absolute
	keys    []string // how Claude Code may have keyed the project in ~/.claude.json
}

type discoverySource struct {
	kind  string
	files func(home, project string) []sourceFile // project files first
}

// discoverySources in priority order.
var discoverySources = []discoverySource{
	{sourceNative, func(h, p string) []sourceFile {
		return []sourceFile{
			{LevelProject, filepath.Join(p, ".mcpactor", "mcp.json"), readServers("mcpServers", jsonDialect{}, false)},
			{levelUser, filepath.Join(h, ".config", "mcpactor", "mcp.json"), readServers("mcpServers", jsonDialect{}, false)},
		}
	}},
	{sourceClaude, func(h, p string) []sourceFile {
		return []sourceFile{
			{LevelProject, filepath.Join(p, ".mcp.json"), readServers("mcpServers", jsonDialect{}, false)},
			{levelUser, filepath.Join(h, ".claude.json"), readClaudeState},
			{levelUser, filepath.Join(h, ".claude", "mcp.json"), readServers("mcpServers", jsonDialect{}, false)},
		}
	}},
	{sourceCodex, func(h, p string) []sourceFile {
		return []sourceFile{
			{LevelProject, filepath.Join(p, ".codex", "config.toml"), readCodex},
			{levelUser, filepath.Join(h, ".codex", "config.toml"), readCodex},
		}
	}},
	{sourceGemini, func(h, p string) []sourceFile {
		return []sourceFile{
			{LevelProject, filepath.Join(p, ".gemini", "settings.json"), readServers("mcpServers", geminiDialect{}, true)},
			{levelUser, filepath.Join(h, ".gemini", "settings.json"), readServers("mcpServers", geminiDialect{}, true)},
		}
	}},
	{sourceCursor, func(h, p string) []sourceFile {
		return []sourceFile{
			{LevelProject, filepath.Join(p, ".cursor", "mcp.json"), readServers("mcpServers", jsonDialect{}, false)},
			{levelUser, filepath.Join(h, ".cursor", "mcp.json"), readServers("mcpServers", jsonDialect{}, false)},
		}
	}},
	{sourceWindsurf, func(h, p string) []sourceFile {
		return []sourceFile{
			{levelUser, filepath.Join(h, ".codeium", "windsurf", "mcp_config.json"), readServers("mcpServers", windsurfDialect{}, false)},
		}
	}},
	{sourceVSCode, func(h, p string) []sourceFile {
		return []sourceFile{
			{LevelProject, filepath.Join(p, ".vscode", "mcp.json"), readServers("servers", jsonDialect{}, true)},
		}
	}},
	{sourcePlain, func(h, p string) []sourceFile {
		return []sourceFile{
			{LevelProject, filepath.Join(p, "mcp.json"), readServers("mcpServers", jsonDialect{}, false)},
		}
	}},
}

// sourceKinds returns the kinds Discover reads, in priority order.
func sourceKinds() []string {
	kinds := make([]string, len(discoverySources))
	for i, s := range discoverySources {
		kinds[i] = s.kind
	}
	return kinds
}

// Discover reads the discovery sources in priority order and merges their
// servers by name. Files that are missing are skipped; files that cannot be
// read or parsed, and entries that are invalid, are warnings, and the rest
// still loads. Discover runs no command: values written as "!command" run
// at connect time (Entry.Resolve), and servers from the project need
// approval first (Entry.NeedsApproval). The error is for the options: an
// unknown source kind, a home or working directory that cannot be found.
func Discover(opts DiscoverOptions) (*Discovery, error) {
	kinds := sourceKinds()
	for _, k := range opts.Disable {
		if !slices.Contains(kinds, k) {
			return nil, fmt.Errorf("discovery: unknown source %q (the sources are %s)", k, strings.Join(kinds, ", "))
		}
	}
	home, project := opts.Home, opts.ProjectDir
	var err error
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return nil, fmt.Errorf("discovery: %w", err)
		}
	}
	if project == "" {
		if project, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("discovery: %w", err)
		}
	}
	if home, err = filepath.Abs(home); err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	if project, err = filepath.Abs(project); err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	dc := &discoverCtx{lookup: opts.Lookup, project: project, keys: []string{project}}
	if dc.lookup == nil {
		dc.lookup = os.LookupEnv
	}
	if real, err := filepath.EvalSymlinks(project); err == nil && real != project {
		dc.keys = append(dc.keys, real)
	}

	d := &Discovery{}
	winners := map[string]Source{}
	for _, source := range discoverySources {
		if slices.Contains(opts.Disable, source.kind) {
			continue
		}
		files := source.files(home, project)
		for _, f := range files {
			if f.level == LevelProject && (opts.NoProject || sameAsUserFile(f.path, files)) {
				// With the home directory as the project, a tool's
				// project file is its user file: read it once, as the
				// user's.
				continue
			}
			within := ""
			if f.level == LevelProject {
				within = project
			}
			data, err := readFile(f.path, within)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			d.Files = append(d.Files, f.path)
			if err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: cannot read: %v", f.path, pathErrorCause(err)))
				continue
			}
			src := Source{Kind: source.kind, File: f.path, Level: f.level}
			if f.level == LevelProject {
				src.Project = project
			}
			entries, err := f.read(data, src, dc)
			if err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %v (file skipped)", f.path, err))
				continue
			}
			d.merge(entries, winners)
		}
	}
	slices.SortFunc(d.Servers, func(a, b *Entry) int { return strings.Compare(a.Name, b.Name) })
	return d, nil
}

// merge adds the entries of one file. An invalid entry still claims its
// name: a typo in a file must not swap in another tool's server of the
// same name.
func (d *Discovery) merge(entries []found, winners map[string]Source) {
	for _, e := range entries {
		for _, p := range e.problems {
			d.Warnings = append(d.Warnings, e.where+": "+p+" (server skipped)")
		}
		if len(e.problems) > 0 {
			d.Invalid = append(d.Invalid, InvalidEntry{Name: e.name, File: e.where, Problems: e.problems})
		}
		if w, taken := winners[e.name]; taken {
			d.Shadowed = append(d.Shadowed, Shadowing{Name: e.name, Winner: w, Hidden: e.src})
			continue
		}
		winners[e.name] = e.src
		if e.srv == nil {
			continue
		}
		// Every project file is project-level, so this also covers a
		// !command from a project file.
		e.srv.NeedsApproval = e.src.Level == LevelProject
		for _, w := range e.srv.Warnings {
			d.Warnings = append(d.Warnings, e.where+": "+w)
		}
		d.Servers = append(d.Servers, e.srv)
	}
}

func sameAsUserFile(path string, files []sourceFile) bool {
	for _, f := range files {
		if f.level == levelUser && f.path == path {
			return true
		}
	}
	return false
}

// pathErrorCause drops the path (the warning names the file already).
func pathErrorCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
