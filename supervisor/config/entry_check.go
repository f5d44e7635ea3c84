package config

import "github.com/mcpactor/mcpactor/internal/reach"

// The checks of how an entry reaches its server, made when the file is
// read so that an entry that cannot work is reported with the file's
// other problems (docs/configuration.md, "Server entries"). They are the
// client's checks of a configuration given in code (internal/reach), for
// the fields a file can write.

func validName(name string) bool { return reach.ValidName(name) }

func nameProblem(name string) string { return reach.NameProblem(name) }

// TransportType returns the transport the entry selects: its Type, else
// "http" when it gives only a URL, else "stdio".
func (e *Entry) TransportType() string { return e.target().Kind() }

// target is what the reach checks read of e; a file cannot give a dial.
func (e *Entry) target() reach.Target {
	return reach.Target{Type: e.Type, Command: e.Command, URL: e.URL}
}

// reachProblems says what keeps the entry from reaching its server.
func (e *Entry) reachProblems() []string { return reach.Problems(e.Name, e.target()) }
