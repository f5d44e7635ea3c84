// Package config is the configuration file format: the server entries
// (Entry) and where they come from; our file format and the dialects of
// six other MCP clients' files (LoadFile, Discover); the values computed
// by a !command at connect time (Entry.Resolve); and the hash that names
// an entry as written. It returns plain entries: making a connection's
// configuration of one is the root package's (mcpactor.ServerConfig), so
// this package imports neither the client engine nor the transports. The format, the discovery sources and
// what is kept out of logs are described in docs/configuration.md. It is an
// engine package of the manager (package supervisor); the supported API is
// the root package, github.com/mcpactor/mcpactor.
package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/oauth"
)

// Entry is one server entry of a configuration file, as the file says it
// (docs/configuration.md, "Server entries"): plain values, ${VAR}
// references expanded, durations read from milliseconds. Turning it into
// a connection's configuration is the caller's (the root package makes a
// mcpactor.ServerConfig of it); this package knows the file format only.
type Entry struct {
	// Name is the server's name: 1 to 100 letters, digits, '-', '_', '.'.
	Name string

	// How to reach the server, as written. The values of Commands are
	// still as written in Env and Headers ("!..."): Resolve computes them.
	Type    string // "stdio", "http", "sse", or "" (chosen by Command and URL)
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	URL     string
	Headers map[string]string
	// InheritEnv is "" (all of it, written "all"), "safe" or "none".
	InheritEnv string

	// Timeouts and limits; zero means the default. "timeout" alone sets
	// both timeouts.
	ConnectTimeout  time.Duration
	RequestTimeout  time.Duration
	QueueTimeout    time.Duration
	MaxInFlight     int
	ProtocolVersion string
	// Identity is "auth.credentialId": who the server is reached as.
	Identity string

	// Keepalive is the interval between pings of a ready server; 0 pings
	// never.
	Keepalive time.Duration
	// Restart is the restart policy; its zero fields take the defaults.
	Restart RestartPolicy
	// EnabledTools, if not empty, are the only tools of the server
	// offered; DisabledTools are never offered (raw tool names).
	EnabledTools, DisabledTools []string

	// Enabled is false for an entry written with "enabled": false (or
	// Windsurf's "disabled": true); the manager keeps it but never starts it.
	Enabled bool
	// Auth is the "auth" object, nil when absent.
	Auth *Auth
	// Source says where the entry was read.
	Source Source
	// Hash identifies the entry as written: the hex SHA-256 of its JSON
	// with object keys sorted (canonicalHash), before ${VAR}
	// expansion and !command resolution, so it holds no secret a variable
	// or a command supplies and does not change when their values do. A
	// TOML entry is hashed as the JSON of its table. The project directory
	// is not part of it: it is Source.Project.
	Hash string
	// NeedsApproval is set for project-level servers, and for a server
	// with a !command read from a file in the project: the manager asks
	// before starting it, so opening a cloned repository runs nothing.
	NeedsApproval bool
	// Commands are the env and header values computed by a shell command
	// at connect time (values written starting with '!'), for Resolve and
	// for an approval prompt to show.
	Commands []Command
	// Warnings about this entry: unknown fields, unset variables. They
	// name variables and fields, never values.
	Warnings []string
	// Extra holds the fields of the entry this package does not know, as
	// written (each one is also a warning).
	Extra map[string]json.RawMessage
}

// Auth is the "auth" object of an entry (docs/oauth.md, "Configuration").
// For "oauth" it configures the server's OAuth client (transport/oauth),
// which Resolve gives the connection; "apikey" says the server takes a
// key in a header (headers, with ${VAR} or a !command), and adds nothing.
type Auth struct {
	// Type is "oauth" or "apikey". The file's "credentialId" (which
	// stored credential to use) is the entry's Identity.
	Type string

	// OAuth (type "oauth"), from the file; ${VAR} is expanded in every
	// string. A pre-registered client: ClientID, and ClientSecret or
	// PrivateKeyFile (PEM, for private_key_jwt, signed with
	// SigningAlgorithm when set). Without one, the client registers
	// itself: ClientMetadataURL (an HTTPS client ID metadata document)
	// with servers that take it, else dynamic registration.
	ClientID          string
	ClientSecret      string
	PrivateKeyFile    string
	SigningAlgorithm  string
	ClientMetadataURL string
	// Issuer binds the pre-registered client to one authorization server.
	Issuer string
	// RedirectURI is where the user's browser comes back; RedirectPort,
	// when set, is the port of the default http://127.0.0.1:PORT/callback.
	RedirectURI  string
	RedirectPort int
	// Scopes are asked for beyond what the server names, space-separated
	// (the file may give a list).
	Scopes string
	// Grant is "authorization_code" (default) or "client_credentials".
	Grant string
	// TokenStore is where tokens are kept: "file" (the default, under
	// the user's configuration directory), "memory", or a directory.
	TokenStore string

	// Set in code, not read from a file: UserStep completes the user's
	// part of the authorization code flow (oauth.Loopback for a command
	// line); without it a connection that needs the user fails with an
	// *oauth.AuthorizationRequiredError carrying the URL, and the
	// redirect's query goes to Client().Complete. Store, if set, replaces
	// TokenStore.
	UserStep oauth.UserStep
	Store    oauth.Store
}

// oauthClients holds the Client of each Auth, made at its first use and
// shared by every connection of the server, so that a refresh is made
// once for all of them. Keyed by the Auth, which stays comparable (and
// copyable) for its users, through a weak pointer: an entry goes when its
// Auth does (a reload replaces every Entry), with the client's secrets
// and tokens.
var oauthClients sync.Map // oauthKey -> *lazyClient

// oauthKey is an Auth and the identity its tokens are kept for.
type oauthKey struct {
	auth     weak.Pointer[Auth]
	identity string
}

type lazyClient struct {
	once sync.Once
	c    *oauth.Client
	err  error
}

// Client returns the OAuth client of an "oauth" entry for an identity
// (Entry.Identity; "" is the default one), made once per identity.
func (a *Auth) Client(identity string) (*oauth.Client, error) {
	key := oauthKey{auth: weak.Make(a), identity: identity}
	v, loaded := oauthClients.LoadOrStore(key, new(lazyClient))
	if !loaded {
		runtime.AddCleanup(a, func(k oauthKey) { oauthClients.Delete(k) }, key)
	}
	l := v.(*lazyClient)
	l.once.Do(func() { l.c, l.err = a.newClient(identity) })
	return l.c, l.err
}

func (a *Auth) newClient(identity string) (*oauth.Client, error) {
	cfg := oauth.Config{
		ClientID:          a.ClientID,
		ClientSecret:      a.ClientSecret,
		SigningAlgorithm:  a.SigningAlgorithm,
		ClientMetadataURL: a.ClientMetadataURL,
		Issuer:            a.Issuer,
		RedirectURL:       a.RedirectURI,
		Scopes:            strings.Fields(a.Scopes),
		Grant:             a.Grant,
		Identity:          identity,
		UserStep:          a.UserStep,
		Store:             a.Store,
	}
	if cfg.RedirectURL == "" && a.RedirectPort > 0 {
		cfg.RedirectURL = fmt.Sprintf("http://127.0.0.1:%d/callback", a.RedirectPort)
	}
	if a.PrivateKeyFile != "" {
		pem, err := readFile(a.PrivateKeyFile, "")
		if err != nil {
			return nil, fmt.Errorf("auth.privateKeyFile: %w", err)
		}
		if cfg.PrivateKey, err = oauth.ParsePrivateKey(pem); err != nil {
			return nil, fmt.Errorf("auth.privateKeyFile: %w", err)
		}
	}
	if cfg.Store == nil {
		switch a.TokenStore {
		case "", "file":
			cfg.Store = &oauth.FileStore{}
		case "memory":
			cfg.Store = new(oauth.MemoryStore)
		default:
			cfg.Store = &oauth.FileStore{Dir: a.TokenStore}
		}
	}
	return oauth.New(cfg), nil
}

// Authorizer authorizes a server's HTTP requests: what Resolve gives a
// connection (an OAuth client, a header refreshed on a 401). It is
// transport.Authorizer's method, named here so that this package need not
// import the transport.
type Authorizer interface {
	RoundTripper(serverURL string, base http.RoundTripper) http.RoundTripper
}

// authorizer is what authorizes the connection of e: the OAuth client
// of an "oauth" entry; else, for a header whose value a !command computed
// (out), a RefreshHeader that runs the command again on a 401; else nil.
func (e *Entry) authorizer(header *Command, out string) (Authorizer, error) {
	if e.Auth != nil && e.Auth.Type == "oauth" {
		c, err := e.Auth.Client(e.Identity)
		if err != nil {
			//lint:ignore ST1005 it names the server as every problem of an entry does
			return nil, fmt.Errorf("Server %q: %w", e.Name, err)
		}
		return c, nil
	}
	if header == nil {
		return nil, nil
	}
	line, dir := header.Line, e.Cwd
	return &oauth.RefreshHeader{Name: header.Key, Value: out, Fetch: func(ctx context.Context) (string, error) {
		v, err := runValueCommand(ctx, line, dir)
		if err != nil {
			return "", &commandError{Server: e.Name, Field: "headers", Key: header.Key, Err: err}
		}
		return v, nil
	}}, nil
}

// Source kinds, in discovery order, then the two that are not discovered.
const (
	sourceNative     = "native"
	sourceClaude     = "claude"
	sourceCodex      = "codex"
	sourceGemini     = "gemini"
	sourceCursor     = "cursor"
	sourceWindsurf   = "windsurf"
	sourceVSCode     = "vscode"
	sourcePlain      = "plain"
	sourceConfigFile = "file" // a file given explicitly (LoadFile)
	sourceAPI        = "api"  // a server given in code (CodeSource)
)

// Source levels.
const (
	levelUser     = "user"     // a file under the home directory
	LevelProject  = "project"  // a file under the project directory
	levelExplicit = "explicit" // a file or a server given explicitly
)

// Source says where a server's entry came from. The root package
// re-exports it as mcpactor.Source.
type Source struct {
	// Kind is the discovery source ("native", "claude", "codex",
	// "gemini", "cursor", "windsurf", "vscode", "plain"), "file" for a
	// file given explicitly (LoadFile), or "api" for a server given in
	// code (CodeSource).
	Kind string
	File string // the file it was read from; "" for a server given in code and a parsed document
	// Level is "user" (a file under the home directory), "project" (under
	// the project directory) or "explicit" (a file or a server given
	// explicitly).
	Level string
	// Project is the project directory for project-level servers and for
	// Claude Code's per-project entries of ~/.claude.json; "" otherwise.
	// The same name in two projects is two servers (the tool-list cache
	// keys by it).
	Project string
}

// CodeSource is the Source of a server given in code, not read from a
// file.
func CodeSource() Source { return Source{Kind: sourceAPI, Level: levelExplicit} }

func (s Source) String() string {
	where := s.Level
	if s.File != "" {
		where += ", " + s.File
	}
	if s.Project != "" && s.Level != LevelProject {
		where += ", project " + s.Project
	}
	return s.Kind + " (" + where + ")"
}

// File is a parsed configuration file: {"mcpServers": {...}}, or VS
// Code's {"servers": {...}}.
type File struct {
	// Servers holds every valid entry by name, disabled ones included.
	Servers  map[string]*Entry
	Disabled []string // names of servers with "enabled": false, sorted
	Warnings []string // unknown fields, unset variables: reported, never fatal
	// Invalid are the entries left out, with their problems, sorted by
	// name; the error of LoadFile joins the same problems.
	Invalid []InvalidEntry
}

// InvalidEntry is a server entry left out of a file because it is
// invalid. Its problems name the server and the fields, never values.
// The root package re-exports it as mcpactor.InvalidEntry.
type InvalidEntry struct {
	Name     string
	File     string // the file it was read from; "" for a parsed document
	Problems []string
}

func (e InvalidEntry) String() string {
	s := strings.Join(e.Problems, "; ")
	if e.File != "" {
		s = e.File + ": " + s
	}
	return s + " (server skipped)"
}

// names returns the enabled servers' names in sorted order.
func (f *File) names() []string {
	names := make([]string, 0, len(f.Servers))
	for n, s := range f.Servers {
		if s.Enabled {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// list returns every server, disabled ones included, sorted by name.
func (f *File) list() []*Entry {
	list := make([]*Entry, 0, len(f.Servers))
	for _, s := range f.Servers {
		list = append(list, s)
	}
	slices.SortFunc(list, func(a, b *Entry) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// LoadFile reads and parses a configuration file given explicitly (an API
// option, --config): no discovery, no approval needed. ${VAR} references
// are expanded from the process environment. The file is our format
// ({"mcpServers": ...}, where a value starting with '!' is a command) or
// VS Code's ({"servers": ...}); comments and trailing commas are allowed.
//
// A file some of whose entries are invalid is a partial result: the File
// holds the valid servers and the invalid ones (File.Invalid), and the
// error lists the problems. A file with neither key, or with no server in
// it, is an error (a *messages.ConfigError, as all of these), and so
// is one that is not a regular file (a symbolic link to one is followed)
// or is larger than MaxFileSize.
func LoadFile(path string) (*File, error) {
	data, err := readFile(path, "")
	if err != nil {
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			err = &fs.PathError{Op: "read", Path: path, Err: err}
		}
		return nil, err
	}
	f, err := parseFile(data, os.LookupEnv, Source{Kind: sourceConfigFile, File: path, Level: levelExplicit})
	if err == nil && len(f.Servers) == 0 {
		// A file given explicitly is there to configure servers: one that
		// configures none cannot work, like every other file that gives
		// no server.
		err = documentError("no servers")
	}
	if err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// parse parses an mcpServers document given explicitly. lookup resolves
// ${VAR} references. Validation problems of all servers are reported
// together, joined with "; "; the File then holds the valid servers.
func parse(data []byte, lookup func(string) (string, bool)) (*File, error) {
	return parseFile(data, lookup, Source{Kind: sourceConfigFile, Level: levelExplicit})
}

func parseFile(data []byte, lookup func(string) (string, bool), src Source) (*File, error) {
	data = standardJSON(data)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, documentError("invalid configuration: %s", jsonProblem(data, err))
	}
	if doc == nil {
		return nil, documentError(`invalid configuration: no "mcpServers" or "servers" object`)
	}
	key := "mcpServers"
	if _, ok := doc[key]; !ok {
		key = "servers" // VS Code's
	}
	if _, ok := doc[key]; !ok {
		return nil, documentError(`invalid configuration: no "mcpServers" or "servers" object`)
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(doc[key], &servers); err != nil {
		return nil, documentError("invalid configuration: %q must be an object (it is %s)", key, rawjson.KindOf(doc[key]))
	}
	f := &File{Servers: map[string]*Entry{}}
	var problems []string
	for _, name := range sortedKeys(servers) {
		s, bad := parseEntry(name, servers[name], jsonDialect{}, src, lookup)
		if len(bad) > 0 {
			problems = append(problems, bad...)
			f.Invalid = append(f.Invalid, InvalidEntry{Name: name, File: src.File, Problems: bad})
			continue
		}
		f.Warnings = append(f.Warnings, s.Warnings...)
		f.Servers[name] = s
		if !s.Enabled {
			f.Disabled = append(f.Disabled, name)
		}
	}
	slices.Sort(f.Warnings)
	if len(problems) > 0 {
		return f, &messages.ConfigError{Problems: problems}
	}
	return f, nil
}

// documentError is a problem with a configuration document as a whole. It
// is a *messages.ConfigError, so that errors.Is(err, mcpactor.ErrConfig)
// holds for every configuration a file could not give, whatever was wrong.
func documentError(format string, args ...any) error {
	return &messages.ConfigError{Problems: []string{fmt.Sprintf(format, args...)}}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
