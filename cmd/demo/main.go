// Command demo shows mcpactor at work. With no arguments it starts several
// of our own MCP servers as real subprocesses, connects them concurrently,
// lists their tools, runs a burst of concurrent calls, shows progress, a
// server-to-client request, a timeout with cancellation and a server crash
// being reported, and prints a summary table. With --config it connects
// the servers of an mcpServers file instead.
//
// Each step runs under a span of its own (from the tracer the OTEL_*
// setup installs), so with --trace or an OTLP exporter a trace viewer
// shows one trace per step; docs/telemetry.md describes the spans.
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
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/telemetry/otelenv"
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

// tracerName is the instrumentation scope of the demo's own step spans.
const tracerName = "github.com/mcpactor/mcpactor/cmd/demo"

func main() {
	// The embedded servers are this same binary, started again with
	// MCPACTOR_TESTSERVER=1: one build, real subprocesses.
	testserver.RunIfChild()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	stderr = &lockedWriter{w: stderr} // the exporters report from their own goroutines
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
	if o.servers < 1 || o.calls < 0 || o.concurrency < 1 {
		fmt.Fprintln(stderr, "demo: --servers and --concurrency must be at least 1, --calls at least 0")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Telemetry: the library uses the global providers; a CLI installs
	// them from --trace and the standard OTEL_* variables. Export errors
	// (a wrong endpoint, a Collector that is down) are printed, never lost
	// quietly.
	providers, err := otelenv.Setup(ctx, otelenv.Options{
		TraceFile: o.trace,
		OnError:   func(err error) { fmt.Fprintf(stderr, "demo: telemetry export failed: %v\n", err) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "demo: telemetry: %v\n", err)
		return 1
	}
	defer func() {
		flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := providers.Shutdown(flushCtx); err != nil {
			fmt.Fprintf(stderr, "demo: telemetry shutdown (spans or metrics may be lost; %s): %v\n", providers.Describe(), err)
		}
		// Nothing of ours is left to report; do not write to stderr
		// after run returns.
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	}()
	if len(providers.Destinations) == 0 {
		fmt.Fprintln(stdout, "telemetry: not exported (use --trace FILE, or OTEL_TRACES_EXPORTER=otlp for a Collector at http://localhost:4318; see docs/telemetry.md)")
	} else {
		fmt.Fprintf(stdout, "telemetry: %s\n", providers.Describe())
	}

	logger := slog.New(slog.DiscardHandler)
	if o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	r := newReport(stdout, otel.Tracer(tracerName))
	if o.config != "" {
		err = runConfigured(ctx, o, logger, r)
	} else {
		err = runEmbedded(ctx, o, logger, r)
	}
	if err != nil {
		fmt.Fprintf(stderr, "demo: FAILED: %v\n", err)
		return 1
	}
	return 0
}

// lockedWriter serialises writes to the program's stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
