// Command demo shows mcpactor at work. With no arguments it starts several
// of our own MCP servers as real subprocesses, connects them concurrently,
// lists their tools, runs a burst of concurrent calls, shows a timeout with
// cancellation and a server crash being reported, and prints a summary. With
// --config it connects the servers of an mcpServers file instead.
//
// It exits non-zero when something that should work does not.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/telemetry"
)

type options struct {
	config      string
	servers     int
	calls       int
	concurrency int
	timeout     time.Duration
	verbose     bool
	trace       string
}

func main() {
	// The embedded servers are this same binary, started again with
	// MCPACTOR_TESTSERVER=1: one build, real subprocesses.
	testserver.RunIfChild()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.config, "config", "", "an mcpServers JSON `file` of real servers to connect instead of the embedded ones")
	fs.IntVar(&o.servers, "servers", 4, "number of embedded servers to start")
	fs.IntVar(&o.calls, "calls", 4000, "tool calls in the concurrent burst")
	fs.IntVar(&o.concurrency, "concurrency", 64, "calls in flight during the burst")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "connect timeout per server")
	fs.BoolVar(&o.verbose, "v", false, "log runtime events to stderr")
	fs.StringVar(&o.trace, "trace", "", "write OpenTelemetry spans as JSON lines to `file` (OTEL_* variables select OTLP exporters too)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: demo [flags]\n\nWithout flags, runs against embedded MCP servers it starts itself.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Tracing: the library uses the global providers; a CLI installs them
	// from --trace and the standard OTEL_* variables.
	shutdown, err := telemetry.SetupFromEnv(ctx, o.trace)
	if err != nil {
		fmt.Fprintf(stderr, "demo: telemetry: %v\n", err)
		return 1
	}
	defer func() {
		flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(flushCtx); err != nil {
			fmt.Fprintf(stderr, "demo: telemetry shutdown: %v\n", err)
		}
	}()

	logger := slog.New(slog.DiscardHandler)
	if o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	out := &report{w: stdout}
	if o.config != "" {
		err = runConfigured(ctx, o, logger, out)
	} else {
		err = runEmbedded(ctx, o, logger, out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "demo: FAILED: %v\n", err)
		return 1
	}
	return 0
}
