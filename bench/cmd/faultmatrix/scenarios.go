package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// outcome is one cell of the matrix: a few words for the table and the
// longer story (full error texts, timings) for the details list.
type outcome struct {
	Short  string `json:"short"`
	Detail string `json:"detail"`
}

// run is the state of one scenario run, for notes and for reporting where
// a hang happened.
type run struct {
	client string
	mu     sync.Mutex
	stepAt string
	notes  []string
	// dialTook is how long the last dial took.
	dialTook time.Duration
}

func (r *run) step(s string) {
	r.mu.Lock()
	r.stepAt = s
	r.mu.Unlock()
}

func (r *run) currentStep() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stepAt
}

func (r *run) note(format string, args ...any) {
	r.mu.Lock()
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *run) detail() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.notes, "; ")
}

type scenario struct {
	id    int
	title string
	run   func(ctx context.Context, r *run) string
}

var scenarios = []scenario{
	{1, "stdout banner before initialize", scBanner},
	{2, "non-JSON / non-JSON-RPC / unknown-id lines after every answer (20 sequential echo calls)", scNoise},
	{3, "20 MiB frame before the first answer (then a second call)", scHugeFrame},
	{4, "answers out of order, 64 concurrent echo calls", scOutOfOrder},
	{5, "ids echoed back as strings", scStringIDs},
	{6, "server exits mid-request (crash code 3 + stderr), sleep call in flight", scCrash},
	{7, "call times out (sleep 10 s, 300 ms timeout): control back? cancel on the wire?", scTimeout},
	{8, "progress (3 steps) routed to the call", scProgress},
	{9, "server-to-client requests: roots/list, ping", scServerRequests},
	{10, "Close with a server that ignores SIGTERM and stdin EOF", scCloseStubborn},
	{11, "10 MiB stderr flood before serving", scStderrFlood},
	{12, "endless stdout line after a call starts (1 s timeout)", scEndlessLine},
	{13, "tool without inputSchema", scNoSchema},
	{14, "endless pagination cursor", scEndlessCursor},
	{15, "answer with both result and error (" + secs(unusableAnswerTimeout) + " call timeout), then a second call", unusableAnswer(bothResultAndError)},
	{16, "answer nested 20,000 levels deep (" + secs(unusableAnswerTimeout) + " call timeout), then a second call", unusableAnswer(deeplyNested())},
	{17, "server stops reading stdin: 2,000 calls of 256 KiB, 300 ms deadline each", scStopReading},
	{18, "server closes stdout but lives on (ignores SIGTERM), sleep call in flight", scStdoutClosed},
	{19, "server requests with invalid ids (null, object, true, 1.5)", scInvalidIDs},
	{20, "Close (mcpactor: 1 s deadline) while a sampling handler ignores its context", scSlowHandlerClose},
	{21, "start failure: cause line, then 60 lines of usage on stderr", scStartFailure},
	{22, "notification flood (32 × 1 MiB) with a blocked subscriber", scSlowSubscriber},
}

// --- helpers ---

const connectTimeout = 10 * time.Second

func dial(ctx context.Context, r *run, o dialOpts, timeout time.Duration) (mcpClient, time.Duration, error) {
	r.step("connect")
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t0 := time.Now()
	c, err := dialers[r.client](ctx, o)
	r.dialTook = time.Since(t0)
	return c, r.dialTook, err
}

// connectFailed describes a failed connect: a hang that only the connect
// deadline ended, or an error.
func connectFailed(r *run, d time.Duration, err error, timeout time.Duration) string {
	r.note("connect failed after %s: %s", ms(d), oneLine(err.Error()))
	if errors.Is(err, context.DeadlineExceeded) && d >= timeout-100*time.Millisecond {
		return fmt.Sprintf("connect hangs until its %s deadline", timeout)
	}
	return fmt.Sprintf("connect fails after %s: %s", ms(d), short(err))
}

// closeClient closes c, bounded by ctx, and notes a slow or failing Close.
func closeClient(ctx context.Context, r *run, c mcpClient) time.Duration {
	r.step("Close")
	t0 := time.Now()
	err := c.Close(ctx)
	d := time.Since(t0)
	if err != nil {
		r.note("Close error: %s", oneLine(err.Error()))
	}
	if d > time.Second {
		r.note("Close took %s", ms(d))
	}
	return d
}

func echo(ctx context.Context, c mcpClient, msg string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.Call(ctx, "echo", map[string]any{"message": msg}, callOpts{})
	if err != nil {
		return err
	}
	if res.isError || res.text != msg {
		return fmt.Errorf("wrong answer %q (isError %v), want %q", res.text, res.isError, msg)
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// short renders an error for a table cell: its first 60 characters.
func short(err error) string {
	s := oneLine(err.Error())
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func ms(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	case d < 10*time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
}

func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }

func withCounters(s string, c mcpClient) string {
	if n := c.Counters(); n != "" {
		return s + ", " + n
	}
	return s
}

// syncBuffer collects a server's stderr from whichever goroutine writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) lines(prefix string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, l := range strings.Split(b.buf.String(), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// --- 1 ---

// scBanner: a server that greets on stdout before speaking JSON-RPC.
var scBanner = oneEcho(testserver.Options{Banner: "Starting server...\nready"}, "connect ok, call fails: ")

// oneEcho is the scenario of a fault that a single echo call after the
// handshake shows: connect to the server with opts, make the call, and
// report the client's counters, or the failure after failPrefix.
func oneEcho(opts testserver.Options, failPrefix string) func(context.Context, *run) string {
	return func(ctx context.Context, r *run) string {
		c, d, err := dial(ctx, r, dialOpts{server: opts}, connectTimeout)
		if err != nil {
			return connectFailed(r, d, err, connectTimeout)
		}
		defer closeClient(ctx, r, c)
		r.step("echo")
		if err := echo(ctx, c, "hello", 5*time.Second); err != nil {
			r.note("echo: %s", oneLine(err.Error()))
			return failPrefix + short(err)
		}
		return withCounters("ok", c)
	}
}

// --- 2 ---

func scNoise(ctx context.Context, r *run) string {
	c, d, err := dial(ctx, r, dialOpts{server: testserver.Options{NoiseEvery: 1}}, connectTimeout)
	if err != nil {
		return connectFailed(r, d, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	const n = 20
	for i := range n {
		r.step(fmt.Sprintf("echo %d/%d", i+1, n))
		if err := echo(ctx, c, fmt.Sprintf("msg-%d", i), 5*time.Second); err != nil {
			r.note("call %d: %s", i+1, oneLine(err.Error()))
			return fmt.Sprintf("%d/%d ok, then call %d fails: %s", i, n, i+1, short(err))
		}
	}
	return withCounters(fmt.Sprintf("ok %d/%d", n, n), c)
}

// --- 3 ---

func scHugeFrame(ctx context.Context, r *run) string {
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{HugeFrameBytes: 20 << 20}}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	rss0, _ := memKB()
	r.step("first echo (after the 20 MiB frame)")
	t0 := time.Now()
	err1 := echo(ctx, c, "first", 10*time.Second)
	r.note("first call: %s after %s", errOr(err1, "ok"), ms(time.Since(t0)))
	r.step("second echo")
	t1 := time.Now()
	err2 := echo(ctx, c, "second", 12*time.Second)
	d2 := time.Since(t1)
	r.note("second call: %s after %s", errOr(err2, "ok"), ms(d2))
	_, hwm := memKB()
	r.note("driver peak RSS %s above the pre-call RSS", mb(hwm-rss0))
	var s string
	switch {
	case err1 == nil && err2 == nil:
		s = "ok, 2nd call ok too"
	case err1 == nil:
		s = "1st ok, 2nd fails: " + short(err2)
	case err2 == nil:
		s = "1st fails: " + short(err1) + "; 2nd ok"
	case errors.Is(err2, context.DeadlineExceeded):
		s = "1st fails: " + short(err1) + "; 2nd hangs until its 12 s deadline"
	default:
		s = "1st fails: " + short(err1) + "; 2nd fails in " + ms(d2) + ": " + short(err2)
	}
	return withCounters(s, c) + fmt.Sprintf(" (peak RSS +%s)", mb(hwm-rss0))
}

func errOr(err error, ok string) string {
	if err == nil {
		return ok
	}
	return "error: " + oneLine(err.Error())
}

// --- 4 ---

func scOutOfOrder(ctx context.Context, r *run) string {
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{OutOfOrder: true}}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	r.step("64 concurrent echo calls")
	const n = 64
	var ok, wrong, failed atomic.Int64
	var errMu sync.Mutex
	var firstErr error
	keep := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := echo(ctx, c, fmt.Sprintf("msg-%d", i), 10*time.Second)
			switch {
			case err == nil:
				ok.Add(1)
			case strings.HasPrefix(err.Error(), "wrong answer"):
				wrong.Add(1)
				keep(err)
			default:
				failed.Add(1)
				keep(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() == n {
		return withCounters(fmt.Sprintf("ok %d/%d correct", n, n), c)
	}
	r.note("first failure: %s", oneLine(firstErr.Error()))
	return fmt.Sprintf("%d ok, %d wrong, %d failed: %s", ok.Load(), wrong.Load(), failed.Load(), short(firstErr))
}

// --- 5 ---

// scStringIDs: a server that echoes our integer ids back as strings.
var scStringIDs = oneEcho(testserver.Options{StringIDs: true}, "call fails: ")

// --- 6 ---

func scCrash(ctx context.Context, r *run) string {
	c, _, err := dial(ctx, r, dialOpts{}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)

	type res struct {
		err error
		at  time.Time
	}
	sleepDone := make(chan res, 1)
	r.step("sleep call in flight")
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		_, err := c.Call(cctx, "sleep", map[string]any{"ms": 10000}, callOpts{})
		sleepDone <- res{err, time.Now()}
	}()
	time.Sleep(200 * time.Millisecond)

	r.step("crash call")
	t0 := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	_, crashErr := c.Call(cctx, "crash", map[string]any{"code": 3, "stderr": "fatal: out of cheese"}, callOpts{})
	cancel()
	dCrash := time.Since(t0)
	r.step("waiting for the in-flight sleep call")
	var sleepRes res
	select {
	case sleepRes = <-sleepDone:
	case <-time.After(12 * time.Second):
		sleepRes = res{err: errors.New("still pending 12 s after the crash")}
		sleepRes.at = time.Now()
	}
	dSleep := sleepRes.at.Sub(t0)

	if crashErr == nil {
		return "crash call returned a result?!"
	}
	txt := crashErr.Error()
	status := strings.Contains(txt, "exit status 3")
	stderr := strings.Contains(txt, "out of cheese")
	r.note("crash call error after %s: %q", ms(dCrash), oneLine(txt))
	r.note("in-flight sleep call: %s, %s after the crash call started", errOr(sleepRes.err, "result?!"), ms(dSleep))
	var has []string
	if status {
		has = append(has, "exit status")
	}
	if stderr {
		has = append(has, "stderr")
	}
	hasS := "no exit status, no stderr"
	if len(has) > 0 {
		hasS = "has " + strings.Join(has, " + ")
	}
	sleepS := "sleep call ends too (" + ms(dSleep) + ")"
	if sleepRes.err != nil && strings.HasPrefix(sleepRes.err.Error(), "still pending") {
		sleepS = "sleep call still pending after 12 s"
	}
	return fmt.Sprintf("error in %s, %s: %s; %s", ms(dCrash), hasS, short(crashErr), sleepS)
}

// --- 7 ---

func scTimeout(ctx context.Context, r *run) string {
	stderr := &syncBuffer{}
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{ReportCancels: true}, stderr: stderr}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	r.step("sleep 10 s with a 300 ms timeout")
	t0 := time.Now()
	_, callErr := c.Call(ctx, "sleep", map[string]any{"ms": 10000}, callOpts{timeout: 300 * time.Millisecond})
	d := time.Since(t0)
	r.note("call returned after %s: %s", ms(d), errOr(callErr, "a result?!"))

	r.step("waiting for the server's cancelled line")
	var cancels []string
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cancels = stderr.lines("cancelled "); len(cancels) > 0 {
			break
		}
	}
	r.step("echo after the timeout")
	after := echo(ctx, c, "after", 5*time.Second)
	r.note("echo afterwards: %s", errOr(after, "ok"))

	var b strings.Builder
	fmt.Fprintf(&b, "returns in %s", ms(d))
	if callErr != nil {
		fmt.Fprintf(&b, " (%s)", short(callErr))
	}
	if len(cancels) > 0 {
		r.note("server stderr: %q", cancels)
		fmt.Fprintf(&b, "; server got `%s`", cancels[0])
	} else {
		b.WriteString("; server got no notifications/cancelled")
	}
	if after != nil {
		b.WriteString("; next call fails: " + short(after))
	}
	return withCounters(b.String(), c)
}

// --- 8 ---

func scProgress(ctx context.Context, r *run) string {
	c, _, err := dial(ctx, r, dialOpts{}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	r.step("progress call")
	var n atomic.Int64
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	res, err := c.Call(cctx, "progress", map[string]any{"steps": 3, "intervalMs": 20}, callOpts{progress: func() { n.Add(1) }})
	cancel()
	atReturn := n.Load()
	time.Sleep(300 * time.Millisecond)
	late := c.LateProgress()
	if err != nil {
		return "call fails: " + short(err)
	}
	r.note("result %q; %d progress notifications reached the call before it returned, %d reached the client after it had returned; route: %s",
		res.text, atReturn, late, progressRoute[r.client])
	s := fmt.Sprintf("%d/3 before the result", atReturn)
	if late > 0 {
		s += fmt.Sprintf(", %d after it", late)
	}
	switch r.client {
	case "gosdk":
		s += "; per-session handler only"
	case "mcpgo":
		s += "; client-wide OnNotification only"
	default:
		s += ", to the call's own OnProgress"
	}
	return s
}

// --- 9 ---

func scServerRequests(ctx context.Context, r *run) string {
	c, _, err := dial(ctx, r, dialOpts{roots: true}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	ask := func(method string) string {
		r.step("ask-client " + method)
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		res, err := c.Call(cctx, "ask-client", map[string]any{"method": method}, callOpts{})
		switch {
		case err != nil && cctx.Err() != nil:
			r.note("%s: no answer within 5 s (%s)", method, oneLine(err.Error()))
			return method + ": never answered (5 s)"
		case err != nil:
			r.note("%s: %s", method, oneLine(err.Error()))
			return method + ": call fails " + short(err)
		case res.isError:
			r.note("%s: the client answered with an error: %s", method, res.text)
			return method + ": answered with error " + short(errors.New(res.text))
		default:
			r.note("%s: answered %s", method, res.text)
			if method == "roots/list" && !strings.Contains(res.text, rootURI) {
				return method + ": answered without our root"
			}
			return method + ": answered"
		}
	}
	return ask("roots/list") + "; " + ask("ping")
}

// --- 10 ---

func scCloseStubborn(ctx context.Context, r *run) string {
	before := children(os.Getpid())
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{IgnoreSIGTERM: true}}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	pids := newChildren(before)
	r.note("server pids %v", pids)
	if err := echo(ctx, c, "hello", 5*time.Second); err != nil {
		r.note("echo: %s", oneLine(err.Error()))
	}
	r.step("Close")
	t0 := time.Now()
	cerr := c.Close(ctx)
	d := time.Since(t0)
	r.note("Close returned after %s: %s", ms(d), errOr(cerr, "nil"))
	states := make([]string, 0, len(pids))
	for _, p := range pids {
		states = append(states, pidState(p))
	}
	r.note("process state right after Close: %v", states)
	s := fmt.Sprintf("Close returns in %s", ms(d))
	if cerr != nil {
		s += " with " + short(cerr)
	}
	switch {
	case len(pids) == 0:
		s += "; (server pid not found)"
	case allEqual(states, "gone"):
		s += "; process gone"
	case allEqual(states, "zombie"):
		s += "; process exited but not reaped (zombie)"
	default:
		s += "; process left running"
		if st := waitGone(pids[0], 3*time.Second); st != "running" {
			s += fmt.Sprintf(" (then %s within 3 s)", st)
		}
	}
	return s
}

func allEqual(ss []string, v string) bool {
	for _, s := range ss {
		if s != v {
			return false
		}
	}
	return len(ss) > 0
}

// --- 11 ---

func scStderrFlood(ctx context.Context, r *run) string {
	c, d, err := dial(ctx, r, dialOpts{server: testserver.Options{StderrFloodBytes: 10 << 20}}, 15*time.Second)
	if err != nil {
		r.note("connect after %s: %s", ms(d), oneLine(err.Error()))
		return fmt.Sprintf("initialize fails after %s: %s", ms(d), short(err))
	}
	defer closeClient(ctx, r, c)
	r.step("echo")
	if err := echo(ctx, c, "hello", 5*time.Second); err != nil {
		return fmt.Sprintf("initialize ok in %s, call fails: %s", ms(d), short(err))
	}
	return fmt.Sprintf("ok, initialize in %s", ms(d))
}

// --- 12 ---

// rssGuard ends the server when the driver's RSS passes it: a client that
// buffers an endless line whole would otherwise take the machine down.
const rssGuardKB = 2 << 20 // 2 GiB

func scEndlessLine(ctx context.Context, r *run) string {
	before := children(os.Getpid())
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{EndlessLine: true}}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	pids := newChildren(before)
	rss0, _ := memKB()

	stop := make(chan struct{})
	var guarded atomic.Bool
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if rss, _ := memKB(); rss > rssGuardKB && !guarded.Swap(true) {
					killPids(pids)
				}
			}
		}
	}()

	r.step("echo with a 1 s timeout")
	t0 := time.Now()
	_, callErr := c.Call(ctx, "echo", map[string]any{"message": "x"}, callOpts{timeout: time.Second})
	d := time.Since(t0)
	rss1, _ := memKB()
	r.step("one more second of endless line")
	time.Sleep(time.Second)
	rss2, _ := memKB()
	r.step("Close")
	t1 := time.Now()
	if err := c.Close(ctx); err != nil {
		r.note("Close error: %s", oneLine(err.Error()))
	}
	dClose := time.Since(t1)
	close(stop)
	_, hwm := memKB()
	r.note("call returned after %s: %s", ms(d), errOr(callErr, "a result?!"))
	r.note("driver RSS %s before the call, %s at its return, %s one second later, peak %s; Close took %s",
		mb(rss0), mb(rss1), mb(rss2), mb(hwm), ms(dClose))

	var s string
	switch {
	case callErr == nil:
		s = "call returned a result?!"
	case d < time.Second:
		// Before the 1 s timeout could fire (timers never fire early).
		s = fmt.Sprintf("connection dies after %s: %s", ms(d), short(callErr))
	case d < 1500*time.Millisecond:
		s = fmt.Sprintf("timeout fires at %s", ms(d))
	default:
		s = fmt.Sprintf("timeout fires late, at %s", ms(d))
	}
	s += fmt.Sprintf("; RSS +%s at return, +%s 1 s later (peak +%s)", mb(rss1-rss0), mb(rss2-rss0), mb(hwm-rss0))
	if guarded.Load() {
		s += fmt.Sprintf("; RSS passed %s, harness killed the server", mb(rssGuardKB))
	}
	return withCounters(s, c)
}

// --- 13 ---

func scNoSchema(ctx context.Context, r *run) string {
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{ToolWithoutSchema: true}}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	r.step("list tools")
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	names, err := c.List(cctx)
	r.note("tools: %v", names)
	if err != nil {
		r.note("list: %s", oneLine(err.Error()))
		return fmt.Sprintf("tools/list fails: %s", short(err))
	}
	for _, n := range names {
		if n == "no-schema" {
			return fmt.Sprintf("ok, %d tools incl. no-schema", len(names))
		}
	}
	return fmt.Sprintf("ok but no-schema left out (%d tools)", len(names))
}

// --- 14 ---

// catalogueSize is the number of tools the test server offers by default:
// with EndlessCursor (and no PageSize) every page is the whole catalogue.
// TestCatalogueSize checks it against what the server lists.
var catalogueSize = len(testserver.DefaultSpec(testserver.Options{}).Tools)

func scEndlessCursor(ctx context.Context, r *run) string {
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{EndlessCursor: true}}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	r.step("list tools (5 s deadline)")
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	t0 := time.Now()
	names, err := c.List(cctx)
	d := time.Since(t0)
	pages := len(names) / catalogueSize
	r.note("listing ended after %s with %d tools (%d pages): %s", ms(d), len(names), pages, errOr(err, "no error"))
	switch {
	case err != nil && cctx.Err() != nil:
		return fmt.Sprintf("never stops: %d pages until the 5 s deadline", pages)
	case err != nil:
		return fmt.Sprintf("stops in %s with error %s", ms(d), short(err))
	default:
		return fmt.Sprintf("stops in %s, no error, %d tools returned", ms(d), len(names))
	}
}
