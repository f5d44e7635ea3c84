package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// runDiscovered manages the servers other MCP clients are configured with
// (--discover), from the working directory and the home directory
// (docs/configuration.md, "Discovery"). Project-level servers need the
// user's approval ("Approval"): asked for on a terminal, otherwise they
// are skipped.
func runDiscovered(ctx context.Context, o options, con console, logger *slog.Logger, r *report) error {
	opts := config.DiscoverOptions{}
	d, err := config.Discover(opts)
	if err != nil {
		return err
	}
	printDiscovery(r, d)
	if len(d.Servers) == 0 {
		r.line("no servers found: nothing to run")
		return nil
	}
	approved := askApprovals(r, con, d.Servers)

	return startManaged(ctx, o, logger, r, func(mo *mcpactor.ManageOptions) {
		// Manage discovers again, from the same files; an entry edited in
		// between is another entry (approval keys by its hash) and stays
		// refused.
		mo.Discover = &mcpactor.DiscoverOptions{}
		mo.Approve = approved.approves
	})
}

// printDiscovery lists what discovery found: the files read, each server
// with its source and level, the entries shadowed by an earlier one of the
// same name, and the warnings.
func printDiscovery(r *report, d *config.Discovery) {
	r.heading("discovery: %d files read, %d servers, %d shadowed, %d warnings", len(d.Files), len(d.Servers), len(d.Shadowed), len(d.Warnings))
	for _, f := range d.Files {
		r.line("read %s", f)
	}
	rows := make([][]string, 0, len(d.Servers))
	for _, s := range d.Servers {
		var notes []string
		if !s.Enabled {
			notes = append(notes, "disabled")
		}
		if s.NeedsApproval {
			notes = append(notes, "needs approval")
		}
		where := s.Source.File
		if s.Source.Project != "" && s.Source.Level != config.LevelProject {
			where += " (project " + s.Source.Project + ")"
		}
		rows = append(rows, []string{s.Name, s.Source.Kind, s.Source.Level, where, strings.Join(notes, ", ")})
	}
	r.table([]string{"server", "source", "level", "file"}, rows)
	for _, s := range d.Shadowed {
		r.line("shadowed: %s", s)
	}
	for _, w := range d.Warnings {
		r.line("warning: %s", w)
	}
}

// approvals are the user's answers, by server and entry: what was shown
// and approved is what may start.
type approvals map[approvalKey]bool

type approvalKey struct{ name, hash, file string }

func keyOf(name, hash, file string) approvalKey {
	return approvalKey{name: name, hash: hash, file: file}
}

// approves is the manager's Approve. It only looks the answer up: the
// manager asks from its own actor, which must not wait on a person.
func (a approvals) approves(s *mcpactor.Server) bool {
	return a[keyOf(s.Name, s.Hash, s.Source.File)]
}

// askApprovals asks, for each enabled server that needs approval, whether
// it may start: y/N on a terminal; elsewhere nobody can answer, and each
// is listed as skipped.
func askApprovals(r *report, con console, servers []*config.Entry) approvals {
	a := approvals{}
	var pending []*config.Entry
	for _, s := range servers {
		if s.Enabled && s.NeedsApproval {
			pending = append(pending, s)
		}
	}
	if len(pending) == 0 {
		return a
	}
	r.heading("approval: %d project-level server(s) would run commands from the project", len(pending))
	for _, s := range pending {
		if !con.interactive {
			r.line("%s: skipped (needs approval; stdin is not a terminal to ask on)", s.Name)
			continue
		}
		a[keyOf(s.Name, s.Hash, s.Source.File)] = ask(r, con, s)
	}
	return a
}

// ask shows what a server would run and reads y or n (anything else, or
// the end of input, is no).
func ask(r *report, con console, s *config.Entry) bool {
	r.line("%s (%s, %s level, %s) runs: %s", s.Name, s.Source.Kind, s.Source.Level, s.Source.File, describe(s))
	for _, c := range s.Commands {
		r.line("    and, for %s %s: !%s", c.Field, c.Key, c.Line)
	}
	fmt.Fprintf(con.out, "   start %s? [y/N] ", s.Name)
	line, err := con.in.ReadString('\n')
	if err != nil {
		fmt.Fprintln(con.out) // the answer's newline never came
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	yes := answer == "y" || answer == "yes"
	if !yes {
		r.line("%s: not approved", s.Name)
	}
	return yes
}

// describe is how the server is reached: its command line or its URL.
func describe(s *config.Entry) string {
	if s.URL != "" {
		// What the user approves is the host; a password or key in the
		// URL is not theirs to read on a terminal someone may record.
		return redact.URL(s.URL)
	}
	line := s.Command
	for _, a := range s.Args {
		line += " " + a
	}
	return line
}
