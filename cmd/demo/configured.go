package main

import (
	"context"
	"log/slog"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/supervisor/config"
)

// runConfigured manages the servers of an mcpServers file (--config). The
// file is read here too, only to print its warnings: Manage reads it
// again, and a file given explicitly needs no approval
// (docs/configuration.md, "The file").
func runConfigured(ctx context.Context, o options, logger *slog.Logger, r *report) error {
	file, err := config.LoadFile(o.config)
	if err != nil {
		return err
	}
	r.heading("configuration %s: %d servers, %d disabled", o.config, len(file.Servers), len(file.Disabled))
	for _, w := range file.Warnings {
		r.line("warning: %s", w)
	}
	rt, err := mcpactor.Start(mcpactor.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer rt.Stop(context.WithoutCancel(ctx))
	ev := newEventLog(logger)
	mo := o.manageOptions(ev)
	mo.ConfigFile = o.config
	return runManaged(ctx, rt, mo, o, ev, r)
}
