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
	return startManaged(ctx, o, logger, r, func(mo *mcpactor.ManageOptions) { mo.ConfigFile = o.config })
}
