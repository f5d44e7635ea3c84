package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/supervisor"
)

// runConfigured connects the servers of an mcpServers file, lists what
// each offers and pings it. A server that fails is reported and counted.
func runConfigured(ctx context.Context, o options, logger *slog.Logger, r *report) error {
	file, err := supervisor.LoadFile(o.config)
	if err != nil {
		return err
	}
	for _, w := range file.Warnings {
		r.line("warning: %s", w)
	}
	rt, err := mcpactor.Start(ctx, mcpactor.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer rt.Stop(context.WithoutCancel(ctx))

	r.step("connecting %d configured servers concurrently", len(file.Servers))
	start := time.Now()
	var clients []*mcpactor.Client
	for _, name := range file.Names() {
		cfg := file.Servers[name]
		if cfg.ConnectTimeout == 0 {
			cfg.ConnectTimeout = o.timeout
		}
		c, err := rt.Open(name, cfg)
		if err != nil {
			r.fail("%s: %v", name, err)
			continue
		}
		clients = append(clients, c)
	}
	for _, c := range clients {
		if err := c.WaitReady(ctx); err != nil {
			r.fail("%s: %v", c.Name(), err)
			continue
		}
		info := c.ServerInfo()
		r.line("%-16s %s %s, protocol %s (%v)", c.Name(), info.Name, info.Version, c.ProtocolVersion(), time.Since(start).Round(time.Millisecond))
	}
	r.step("tools")
	for _, c := range clients {
		if c.Err() != nil {
			continue
		}
		tools, err := c.ListTools(ctx)
		if err != nil {
			r.fail("%s: tools/list: %v", c.Name(), err)
			continue
		}
		r.line("%-16s %d tools", c.Name(), len(tools))
		for _, t := range tools {
			r.line("    %s", t.Name)
		}
		if err := c.Ping(ctx); err != nil {
			r.line("%-16s ping: %v", c.Name(), err)
		}
	}
	r.step("summary")
	r.line("%d servers configured, %d disabled, %d failed", len(file.Servers), len(file.Disabled), len(r.failures))
	if len(r.failures) > 0 {
		return fmt.Errorf("%d server(s) failed", len(r.failures))
	}
	return nil
}
