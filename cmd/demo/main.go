// Command demo shows mcpactor at work. With no arguments it starts several
// of our own MCP servers as real subprocesses (and one over Streamable
// HTTP, in-process), runs them through Runtime.Manage with the tool-list
// cache, shows the startup gate with a server that is slow on purpose,
// lists their tools, runs a burst of concurrent calls, shows progress, a
// server-to-client request, a timeout with cancellation and a server crash
// being reported, and prints the manager's status and a summary table.
// With --config it manages the servers of an mcpServers file instead, and
// with --discover the servers other MCP clients are configured with: each
// is brought up, reported, and called once.
//
// Each step runs under a span of its own (from the tracer the OTEL_*
// setup installs), so with --trace or an OTLP exporter a trace viewer
// shows one trace per step; docs/telemetry.md describes the spans.
//
// It exits non-zero when something that should work does not.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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
	discover    bool
	call        string
	args        map[string]any // --args, nil when not given
	cacheDir    string
	noCache     bool
	maxConnect  int
	servers     int
	slow        time.Duration
	calls       int
	concurrency int
	timeout     time.Duration
	verbose     bool
	trace       string
	cluster     int
	restart     bool
}

// console is where the demo talks to its user: the approval prompts of
// --discover read in, when it is a terminal.
type console struct {
	in          *bufio.Reader
	interactive bool
	out, err    io.Writer
}

// tracerName is the instrumentation scope of the demo's own step spans.
const tracerName = "github.com/mcpactor/mcpactor/cmd/demo"

func main() {
	// The embedded servers are this same binary, started again with
	// MCPACTOR_TESTSERVER=1: one build, real subprocesses.
	testserver.RunIfChild()
	clusterChild() // --cluster's etcd and members are this binary too
	os.Exit(run(os.Args[1:], console{in: bufio.NewReader(os.Stdin), interactive: isTerminal(os.Stdin), out: os.Stdout, err: os.Stderr}))
}

// isTerminal reports whether f is a character device other than the null
// device: a user who can answer a prompt, not a pipe, a file or
// /dev/null (a character device too, and what stdin is under many
// launchers).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var callArgs string
	fs.StringVar(&o.config, "config", "", "manage the servers of an mcpServers JSON `file` instead of the embedded ones")
	fs.BoolVar(&o.discover, "discover", false, "manage the servers other MCP clients are configured with, found from the working directory and the home directory (docs/configuration.md, \"Discovery\")")
	fs.StringVar(&o.call, "call", "", "with --config or --discover: the `tool` to call on each ready server (default: echo if it has one, else its first tool needing no arguments)")
	fs.StringVar(&callArgs, "args", "", "with --call: the tool's arguments, a JSON `object` (default {}, or a message for echo)")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "the tool-list cache `directory` (default: mcpactor under the user's cache directory)")
	fs.BoolVar(&o.noCache, "no-cache", false, "keep no tool-list cache: every server is awaited at startup")
	fs.IntVar(&o.maxConnect, "max-connecting", 0, "handshakes in flight at once (0: the manager's default, 8)")
	fs.IntVar(&o.servers, "servers", 4, "number of embedded servers to start (besides slow and http-1)")
	fs.DurationVar(&o.slow, "slow", 2*time.Second, "how long the embedded server \"slow\" takes to answer initialize (0: no slow server)")
	fs.IntVar(&o.calls, "calls", 4000, "tool calls in the concurrent burst")
	fs.IntVar(&o.concurrency, "concurrency", 64, "calls in flight during the burst")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "how long a server may take to come up (embedded servers: their connect timeout)")
	fs.BoolVar(&o.verbose, "v", false, "log runtime and manager events to stderr")
	fs.IntVar(&o.cluster, "cluster", 0, "run `N` cluster members and an embedded etcd as processes, show where each server lives, kill one and show the failover (docs/cluster.md)")
	fs.BoolVar(&o.restart, "restart", false, "embedded servers: at the end, kill demo-1 (its crash tool) and show the manager restarting it")
	fs.StringVar(&o.trace, "trace", "", "write OpenTelemetry spans as JSON lines to `file` (OTEL_* variables select OTLP exporters too)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: demo [flags]

Without flags, runs against embedded MCP servers it starts itself, through
Runtime.Manage with the tool-list cache. Run it twice: the second time the
tools of the server "slow" are offered from the cache within the startup
gate, and a call to one of them waits until the server is up.

With --config FILE it manages the servers of an mcpServers file, with
--discover those found in other MCP clients' configuration (asking before
starting project-level servers when stdin is a terminal, skipping them
otherwise). Either way each server is brought up and reported, one tool is
called on each ready server (see --call), and the manager's status table
is printed. It exits non-zero if a server fails to come up or a call fails.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if err := checkFlags(o, fs.Args(), callArgs); err != nil {
		return o, usageError{err}
	}
	if callArgs != "" {
		if err := json.Unmarshal([]byte(callArgs), &o.args); err != nil {
			return o, usageError{fmt.Errorf("--args: want a JSON object: %v", err)}
		}
		if o.args == nil {
			return o, usageError{errors.New("--args: want a JSON object, not null")}
		}
	}
	return o, nil
}

func checkFlags(o options, rest []string, callArgs string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected arguments %q", rest)
	case o.config != "" && o.discover:
		return errors.New("--config and --discover exclude each other")
	case (o.call != "" || callArgs != "") && o.config == "" && !o.discover:
		return errors.New("--call and --args go with --config or --discover")
	case callArgs != "" && o.call == "":
		return errors.New("--args needs --call")
	case o.servers < 1 || o.calls < 0 || o.concurrency < 1 || o.slow < 0 || o.maxConnect < 0:
		return errors.New("--servers and --concurrency must be at least 1; --calls, --slow and --max-connecting not negative")
	}
	return nil
}

func run(args []string, con console) int {
	stderr := &lockedWriter{w: con.err} // the exporters report from their own goroutines
	con.err = stderr
	o, err := parseFlags(args, stderr)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "demo: %v\n", err)
		}
		return 2 // the flag package has printed its own complaints
	}
	stdout := con.out
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
		flushCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := providers.Shutdown(flushCtx); err != nil {
			// The error names each exporter that failed and where it
			// sends ("traces to otlp grpc to localhost:4317 ...").
			fmt.Fprintf(stderr, "demo: telemetry: spans or metrics may be lost: %v\n", err)
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
	switch {
	case o.cluster > 0:
		err = runCluster(ctx, o.cluster, o.trace, stdout)
	case o.config != "":
		err = runConfigured(ctx, o, logger, r)
	case o.discover:
		err = runDiscovered(ctx, o, con, logger, r)
	default:
		err = runEmbedded(ctx, o, logger, r)
	}
	if err != nil {
		fmt.Fprintf(stderr, "demo: FAILED: %v\n", err)
		return 1
	}
	return 0
}

// usageError is a combination of flags that makes no sense, found after
// parsing (the flag package prints its own errors).
type usageError struct{ error }

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
