package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/supervisor"
)

// Server states of the --config summary.
const (
	stateReady         = "ready"
	stateConnectFailed = "failed to connect"
	stateListFailed    = "failed tools/list"
	stateDisabled      = "disabled"
)

// runConfigured connects the servers of an mcpServers file concurrently,
// lists what each one that connected offers and pings it. A server that
// fails is reported and counted once, however many of its steps failed.
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

	names := file.Names()
	clients := connectConfigured(ctx, rt, file, names, o, r)

	tctx, end := r.step(ctx, "tools", "tools")
	for _, c := range clients {
		if c == nil {
			continue // it failed to connect: nothing to ask it
		}
		t0 := time.Now()
		tools, err := c.ListTools(tctx)
		r.record(c.Name(), time.Since(t0), err, false)
		if err != nil {
			r.setState(c.Name(), stateListFailed, "")
			r.fail("%s: tools/list: %v", c.Name(), err)
			continue
		}
		r.setTools(c.Name(), len(tools))
		r.line("%-16s %d tools", c.Name(), len(tools))
		for _, t := range tools {
			r.line("    %s", t.Name)
		}
		t0 = time.Now()
		err = c.Ping(tctx)
		r.record(c.Name(), time.Since(t0), err, false)
		if err != nil {
			r.line("%-16s ping: %v (reported, not counted as a failure)", c.Name(), err)
		}
	}
	end()

	for _, name := range file.Disabled {
		r.setState(name, stateDisabled, "")
	}
	failed := 0
	for _, name := range names {
		if s := r.state(name); s != stateReady {
			failed++
		}
	}
	r.heading("summary")
	r.summary()
	r.line("%d servers configured, %d disabled, %d failed", len(names), len(file.Disabled), failed)
	if failed > 0 {
		return fmt.Errorf("%d of %d configured server(s) failed", failed, len(names))
	}
	return nil
}

// connectConfigured connects every server concurrently; the result has a
// nil client for each one that failed.
func connectConfigured(ctx context.Context, rt *mcpactor.Runtime, file *supervisor.File, names []string, o options, r *report) []*mcpactor.Client {
	ctx, end := r.step(ctx, "connect", "connecting %d configured servers concurrently", len(names))
	defer end()
	start := time.Now()
	clients := make([]*mcpactor.Client, len(names))
	errs := make([]error, len(names))
	took := make([]time.Duration, len(names))
	var wg conc.WaitGroup
	for i, name := range names {
		srv := file.Servers[name]
		r.setState(name, "connecting", "")
		wg.Go(func() {
			defer func() { took[i] = time.Since(start) }()
			// Resolve runs the file's !command values (docs/configuration.md).
			resolved, err := srv.Resolve(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			cfg := mcpactor.ServerConfig(resolved)
			if cfg.ConnectTimeout == 0 {
				cfg.ConnectTimeout = o.timeout
			}
			clients[i], errs[i] = rt.Connect(ctx, name, cfg)
		})
	}
	wg.Wait()
	for i, name := range names {
		if errs[i] != nil {
			r.setState(name, stateConnectFailed, "")
			r.fail("%s: %s", name, firstLine(errs[i].Error()))
			continue
		}
		c := clients[i]
		info := c.ServerInfo()
		r.setState(name, stateReady, c.ProtocolVersion())
		r.line("%-16s %s %s, protocol %s negotiated (%v)", name, info.Name, info.Version, c.ProtocolVersion(), took[i].Round(time.Millisecond))
	}
	return clients
}

// firstLine keeps a connect error to its first line and a tail marker: a
// server's stderr tail can be long, and the summary is the place to look.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}
