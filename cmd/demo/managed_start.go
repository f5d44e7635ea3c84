package main

import (
	"context"
	"log/slog"

	"github.com/mcpactor/mcpactor"
)

// startManaged starts a runtime and runs the servers --config or
// --discover chose (runManaged), stopping the runtime at the end. The two
// modes differ only in where the servers come from: source sets that on
// the ManageOptions the flags chose (a file, or discovery and the user's
// approvals).
func startManaged(ctx context.Context, o options, logger *slog.Logger, r *report, source func(*mcpactor.ManageOptions)) error {
	rt, err := mcpactor.Start(mcpactor.Options{Logger: logger})
	if err != nil {
		return err
	}
	defer rt.Stop(context.WithoutCancel(ctx))
	ev := newEventLog(logger)
	mo := o.manageOptions(ev)
	source(&mo)
	return runManaged(ctx, rt, mo, o, ev, r)
}
