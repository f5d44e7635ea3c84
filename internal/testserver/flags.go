package testserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// EnvChild is the environment variable that, set to "1", makes RunIfChild
// turn the current binary into a test server.
const EnvChild = "MCPACTOR_TESTSERVER"

// EnvPrefix prefixes the environment variables Main reads as flag defaults:
// the flag's name upper-cased with '-' turned into '_', so that
// MCPACTOR_TESTSERVER_NOISE_EVERY=3 means -noise-every=3. Flags on the
// command line override them. Handy when a launcher cannot pass arguments.
const EnvPrefix = "MCPACTOR_TESTSERVER_"

// termGrace bounds how long Main waits, after SIGTERM, for stdout to hold
// only whole messages: a write blocked on a full pipe must not keep it
// alive.
const termGrace = 250 * time.Millisecond

// flagSet declares one flag per Options field, writing into o. The
// -exit-at-start flag carries a code (-1 = off) and is folded into
// o.ExitAtStart and o.ExitCode by parseOptions.
func flagSet(o *Options, exitAtStart *int) *flag.FlagSet {
	fs := flag.NewFlagSet("testserver", flag.ContinueOnError)
	fs.IntVar(&o.PageSize, "page-size", 0, "split list results into pages of this many entries (0: one page)")
	fs.BoolVar(&o.EndlessCursor, "endless-cursor", false, "every list page carries the same non-empty nextCursor")
	fs.BoolVar(&o.ToolWithoutSchema, "tool-without-schema", false, `add the tool "no-schema", which lacks inputSchema`)
	fs.BoolVar(&o.ReportCancels, "report-cancels", false, `write "cancelled <id> <reason>" to stderr for each cancellation`)
	fs.BoolVar(&o.SilentOnUnknown, "silent-on-unknown", false, `leave requests for unknown methods unanswered, writing "ignored <method>" to stderr`)
	fs.BoolVar(&o.IgnorePing, "ignore-ping", false, "leave ping requests unanswered")
	fs.BoolVar(&o.RequireInitialized, "require-initialized", false, "refuse requests (but initialize and ping) before notifications/initialized")
	fs.IntVar(&o.FailToolsList, "fail-tools-list", 0, "answer the first N tools/list requests with an internal error")
	fs.StringVar(&o.Banner, "banner", "", "text written to stdout before anything else")
	fs.IntVar(&o.NoiseEvery, "noise-every", 0, "after every N-th response write three lines that are not valid answers")
	fs.IntVar(&o.HugeFrameBytes, "huge-frame-bytes", 0, "precede the first tools/call answer with a line of this many bytes")
	fs.BoolVar(&o.EndlessLine, "endless-line", false, "answer the first tools/call with a line that never ends")
	fs.IntVar(&o.StderrFloodBytes, "stderr-flood-bytes", 0, "write this many bytes to stderr before serving")
	fs.IntVar(&o.ExitAfterRequests, "exit-after-requests", 0, "exit, unanswered, on receiving the N-th tools/call")
	fs.IntVar(&o.ExitCode, "exit-code", 0, "exit status for -exit-after-requests")
	fs.StringVar(&o.StderrOnExit, "stderr-on-exit", "", "text written to stderr before a fault's exit")
	fs.BoolVar(&o.IgnoreSIGTERM, "ignore-sigterm", false, "ignore SIGTERM and stdin EOF: only SIGKILL ends the server")
	fs.BoolVar(&o.NeverAnswer, "never-answer", false, "never answer tools/call")
	fs.BoolVar(&o.OutOfOrder, "out-of-order", false, "send tools/call answers in reverse order, in batches")
	fs.DurationVar(&o.OutOfOrderHold, "out-of-order-hold", 0, "how long -out-of-order holds a lone answer (default 20ms)")
	fs.BoolVar(&o.StringIDs, "string-ids", false, "answer numeric request ids as strings")
	fs.DurationVar(&o.SlowInitialize, "slow-initialize", 0, "delay the initialize answer")
	fs.StringVar(&o.ProtocolVersion, "protocol-version", "", "answer initialize with this protocol version whatever was offered")
	fs.BoolVar(&o.Stateless, "stateless", false, "also speak 2026-07-28: answer server/discover, multi round-trip input requests")
	fs.IntVar(&o.CacheTTLMs, "cache-ttl-ms", 0, "2026-07-28: the ttlMs of lists and resources/read results (0: no caching hints)")
	fs.StringVar(&o.CacheScope, "cache-scope", "", "2026-07-28: their cacheScope (public or private), with -cache-ttl-ms")
	fs.DurationVar(&o.ReadDelay, "read-delay", 0, "pause this long before reading each line of stdin")
	fs.IntVar(exitAtStart, "exit-at-start", -1, "exit at once with this status, before reading anything (-1: off)")
	fs.StringVar(&o.HTTPAddr, "http", "", "serve HTTP on this address (e.g. 127.0.0.1:0) instead of stdio; the first stdout line is the endpoint URL")
	fs.BoolVar(&o.HTTPStream, "http-sse", false, "HTTP: answer requests with an SSE stream instead of JSON")
	fs.BoolVar(&o.HTTPNoEventIDs, "http-no-event-ids", false, "HTTP: SSE events carry no id, and no priming event is sent")
	fs.DurationVar(&o.HTTPRetry, "http-retry", 0, "HTTP: send this as retry: at the start of every event stream")
	fs.IntVar(&o.HTTPGetStatus, "http-get-status", 0, "HTTP: answer the GET listener with this status (405, 404, 200 with JSON) instead of a stream")
	fs.IntVar(&o.HTTPExpireAfter, "http-expire-after", 0, "HTTP: end a session after it has answered N tools/call (404 from then on)")
	fs.BoolVar(&o.HTTPSessionRefusal400, "http-session-refusal-400", false, "HTTP: answer an unknown session id with 400 \"No valid session ID provided\" (as the TypeScript reference server does), not 404")
	fs.IntVar(&o.HTTPFailCalls, "http-fail-calls", 0, "HTTP: answer the first N tools/call with -http-fail-status, unhandled")
	fs.IntVar(&o.HTTPFailStatus, "http-fail-status", 0, "HTTP: the status of -http-fail-calls (0: 500)")
	fs.IntVar(&o.HTTPDropStreams, "http-drop-streams", 0, "HTTP: close the SSE stream of the first N tools/call before the response")
	fs.BoolVar(&o.HTTPNotJSON, "http-not-json", false, "HTTP: answer tools/call with an HTML body labelled application/json")
	fs.BoolVar(&o.HTTPSlowBody, "http-slow-body", false, "HTTP: answer tools/call with a body that trickles forever")
	fs.IntVar(&o.HTTPIgnoreBodyOver, "http-ignore-body-over", 0, "HTTP: never read, nor answer, a POST body longer than N bytes")
	fs.BoolVar(&o.HTTPLegacyOtherOrigin, "http-legacy-other-origin", false, "HTTP: the legacy endpoint event names another origin")
	fs.IntVar(&o.HTTPGetCloseAfter, "http-get-close-after", 0, "HTTP: close each GET stream's connection after N events")
	fs.DurationVar(&o.HTTPNotifyDelay, "http-notify-delay", 0, "HTTP: handle POSTed notifications only after this delay")
	return fs
}

// envName is the environment variable that gives flag name its default.
func envName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseOptions reads options from the environment (env holds KEY=VALUE
// entries, like os.Environ) and then from args. Usage and errors go to
// errOut.
func parseOptions(args, env []string, errOut io.Writer) (Options, error) {
	var o Options
	exitAtStart := -1
	fs := flagSet(&o, &exitAtStart)
	fs.SetOutput(errOut)

	vars := make(map[string]string)
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, EnvPrefix) {
			vars[k] = v
		}
	}
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := vars[envName(f.Name)]; ok && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("%s: %w", envName(f.Name), err)
			}
		}
	})
	if envErr != nil {
		fmt.Fprintln(errOut, "testserver:", envErr)
		return o, envErr
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments: %q", fs.Args())
		fmt.Fprintln(errOut, "testserver:", err)
		return o, err
	}
	if exitAtStart >= 0 {
		o.ExitAtStart = true
		o.ExitCode = exitAtStart
	}
	return o, nil
}

// Args renders o as the command-line flags Main understands, so that a test
// can start a child server with these options. Options at their zero value
// are left out; parsing the result gives o back. The flags are flagSet's,
// so that a flag declared there is rendered here too; they come in name
// order.
func (o Options) Args() []string {
	var bound Options
	exitAtStart := -1
	fs := flagSet(&bound, &exitAtStart)
	bound = o // after flagSet, which sets the fields to their defaults
	if o.ExitAtStart {
		exitAtStart = o.ExitCode
	}
	var a []string
	fs.VisitAll(func(f *flag.Flag) {
		v := f.Value.String()
		switch {
		case v == f.DefValue:
		case isBoolFlag(f):
			a = append(a, "-"+f.Name)
		default:
			a = append(a, "-"+f.Name+"="+v)
		}
	})
	return a
}

// isBoolFlag reports whether f is a flag given without a value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Main parses args as flags (over defaults from the MCPACTOR_TESTSERVER_*
// environment variables), then serves os.Stdin and os.Stdout, with
// diagnostics on os.Stderr, and returns the process's exit status: 0 when
// stdin ends or on SIGTERM, 2 for bad flags, 1 for an I/O error. Faults and
// the crash tool exit the process directly, with their own status. With
// -http it serves HTTP instead (see mainHTTP).
func Main(args []string) int {
	opts, err := parseOptions(args, os.Environ(), os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if opts.HTTPAddr != "" {
		return mainHTTP(opts)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := make(chan os.Signal, 1)
	if opts.IgnoreSIGTERM {
		// SIGINT keeps its default so that a developer's Ctrl-C still
		// cleans up; the fault is about clients that only send SIGTERM.
		signal.Ignore(syscall.SIGTERM)
	} else {
		signal.Notify(term, syscall.SIGTERM, os.Interrupt)
		defer signal.Stop(term)
	}

	srv := newServer(opts, nil, os.Stdout, os.Stderr, os.Exit)
	done := make(chan error, 1)
	go func() { done <- srv.run(ctx, os.Stdin) }()
	select {
	case err = <-done:
	case <-term:
		// Exit as soon as stdout holds only whole messages. Waiting for
		// run to return could take forever: a read blocked on stdin
		// cannot be interrupted portably.
		cancel()
		settled := make(chan struct{})
		go func() {
			srv.out.settle()
			close(settled)
		}()
		select {
		case <-done:
		case <-settled:
		case <-time.After(termGrace):
		}
		return 0
	}
	var exit *ExitError
	switch {
	case errors.As(err, &exit):
		return exit.Code
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// RunIfChild turns the process into a test server when the environment
// variable MCPACTOR_TESTSERVER is "1": it serves with os.Args[1:] as flags
// and exits the process. Otherwise it returns at once. Call it first thing
// in TestMain (or main) of a binary that Command re-executes.
func RunIfChild() {
	if os.Getenv(EnvChild) != "1" {
		return
	}
	os.Exit(Main(os.Args[1:]))
}

// Command returns what it takes to start the running binary as a test
// server child with opts: the executable (os.Executable), its arguments,
// and its environment (this process's, with MCPACTOR_TESTSERVER=1,
// without inherited MCPACTOR_TESTSERVER_* settings so that opts alone
// decide, and with atexit_sleep_ms=0 added to GORACE). The binary must call
// RunIfChild early.
func Command(opts Options) (path string, args []string, env []string) {
	path, err := os.Executable()
	if err != nil {
		path = os.Args[0]
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == EnvChild || k == "GORACE" || strings.HasPrefix(k, EnvPrefix) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, EnvChild+"=1")
	// A race-enabled binary sleeps a second when it exits with status 0,
	// waiting for late race reports. Tests start many children; spare
	// them that second unless the caller tuned GORACE already.
	if gorace := os.Getenv("GORACE"); !strings.Contains(gorace, "atexit_sleep_ms") {
		env = append(env, "GORACE="+strings.TrimSpace(gorace+" atexit_sleep_ms=0"))
	}
	return path, opts.Args(), env
}
