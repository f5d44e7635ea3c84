package mcpactor

import (
	"slices"

	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// Server is a configured server as a manager is about to run it, which
// ManageOptions.Approve is asked about: its configuration, where it came
// from, and the commands it would run.
type Server struct {
	Name string
	// Config is how to reach and supervise the server, with ${VAR}
	// references expanded; values computed by a command (Commands) are
	// still as written, "!...".
	Config ServerConfig
	Source Source
	// Enabled is false for an entry written with "enabled": false (or
	// Windsurf's "disabled": true): the manager keeps it but never starts
	// it.
	Enabled bool
	// NeedsApproval is set for a project-level server, and for a server
	// with a !command read from a file in the project.
	NeedsApproval bool
	// Commands are the env and header values computed by a shell command
	// when the server is started (values written starting with '!').
	Commands []ValueCommand
	// Hash identifies the entry as written (the hex SHA-256 of its JSON
	// with sorted keys, before ${VAR} expansion and !commands), so that an
	// approval can be kept for exactly what was approved.
	Hash string
	// Warnings about the entry: unknown fields, unset variables. They name
	// variables and fields, never values.
	Warnings []string
}

// Source says where a server's configuration was read
// (docs/configuration.md, "Discovery"). Its fields:
//
//	Kind    string // the discovery source ("native", "claude", "codex", "gemini",
//	               // "cursor", "windsurf", "vscode", "plain"), "file" for
//	               // ManageOptions.ConfigFile, or "api" for a server given in code
//	File    string // the file it was read from; "" when given in code
//	Level   string // "user" (a file under the home directory), "project" (under
//	               // the project directory) or "explicit" (a file or a server
//	               // given explicitly)
//	Project string // the project directory of a project-level server; ""
//	               // otherwise: the same name in two projects is two servers
//
// It is declared in supervisor/config, which reads the files.
type Source = config.Source

// ValueCommand is an env or header value computed by a shell command
// when its server starts (a value written "!command"). Its fields:
//
//	Field string // "env" or "headers"
//	Key   string // the variable or header name
//	Line  string // the command as written, without the leading '!'
//
// It is declared in supervisor/config, which reads the files.
type ValueCommand = config.Command

// serverOf is s as Approve sees it: the ServerConfig the manager was
// given, as it was given (a file's entry converted once, when read).
func serverOf(s *supervisor.Server) *Server {
	cfg, _ := s.Config.(ServerConfig) // the root gives every server its ServerConfig
	out := &Server{Name: s.Name, Config: cfg, Source: s.Source, Enabled: s.Enabled,
		NeedsApproval: s.NeedsApproval, Hash: s.Hash}
	if e := s.Entry; e != nil {
		// Copies: what Approve does with them must not change what runs.
		out.Commands, out.Warnings = slices.Clone(e.Commands), slices.Clone(e.Warnings)
	}
	return out
}

// approver is f as the manager asks it, nil when f is.
func approver(f func(*Server) bool) func(*supervisor.Server) bool {
	if f == nil {
		return nil
	}
	return func(s *supervisor.Server) bool { return f(serverOf(s)) }
}
