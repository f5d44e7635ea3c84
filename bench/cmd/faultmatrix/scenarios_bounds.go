package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// Faults 15-22: the classes behind "bounded in time and memory
// everywhere": answers that cannot be used, a server that stops reading or
// closes stdout while it lives on, server requests with forbidden ids, a
// handler that does not return, a start failure whose cause precedes the
// usage text, and a subscriber too slow for the notifications.

// liveHeapMiB is the cell process's live heap: HeapAlloc right after two
// collections (the second one frees what the first one's finalizers let
// go), in MiB.
func liveHeapMiB() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

func mib(v float64) string { return fmt.Sprintf("%+.1f MiB", v) }

// secs renders a whole or fractional number of seconds as "3 s".
func secs(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

// --- 15, 16 ---

// unusableAnswerTimeout is the deadline of the call whose answer cannot be
// used: failing well before it means the client failed the call at once.
const unusableAnswerTimeout = 3 * time.Second

// unusableAnswer is the scenario of a tools/call answered with line
// (reply-raw): does the call fail at once, or wait for its timeout, and
// does the next call work?
func unusableAnswer(line string) func(context.Context, *run) string {
	return func(ctx context.Context, r *run) string {
		c, _, err := dial(ctx, r, dialOpts{}, connectTimeout)
		if err != nil {
			return connectFailed(r, r.dialTook, err, connectTimeout)
		}
		defer closeClient(ctx, r, c)
		r.step("reply-raw call")
		t0 := time.Now()
		res, callErr := c.Call(ctx, "reply-raw", map[string]any{"line": line}, callOpts{timeout: unusableAnswerTimeout})
		d := time.Since(t0)
		if callErr != nil {
			r.note("call returned after %s: error: %s", ms(d), oneLine(callErr.Error()))
		} else {
			r.note("call returned after %s: a result (text %q, isError %v)", ms(d), res.text, res.isError)
		}
		r.step("echo afterwards")
		after := echo(ctx, c, "after", 5*time.Second)
		r.note("echo afterwards: %s", errOr(after, "ok"))

		var s string
		switch {
		case callErr == nil:
			s = fmt.Sprintf("returns a result in %s", ms(d))
		case d >= unusableAnswerTimeout-100*time.Millisecond:
			s = fmt.Sprintf("waits for its %s timeout", secs(unusableAnswerTimeout))
		default:
			s = fmt.Sprintf("fails in %s: %s", ms(d), short(callErr))
		}
		if after == nil {
			s += "; next call ok"
		} else {
			s += "; next call fails: " + short(after)
		}
		return withCounters(s, c)
	}
}

// bothResultAndError is a response JSON-RPC forbids: result and error
// together.
const bothResultAndError = `{"jsonrpc":"2.0","id":{{id}},"result":{},"error":{"code":-32000,"message":"x"}}`

// nestingDepth is how deep the nested answer goes: twice the 10,000 that
// encoding/json accepts.
const nestingDepth = 20000

// deeplyNested is a response whose result holds arrays nestingDepth deep.
func deeplyNested() string {
	return `{"jsonrpc":"2.0","id":{{id}},"result":{"content":[{"type":"text","text":"deep"}],"deep":` +
		strings.Repeat("[", nestingDepth) + strings.Repeat("]", nestingDepth) + `}}`
}

// --- 17 ---

const (
	stuckCalls    = 2000
	stuckArgBytes = 256 << 10
	stuckTimeout  = 300 * time.Millisecond
	// stuckWait bounds the wait for the burst's calls to end: several
	// times their deadline.
	stuckWait = 2 * time.Second
)

// digits normalises error texts that carry ids or durations, so that the
// calls' errors group by kind.
var digits = regexp.MustCompile(`[0-9]+`)

// errorKind is err's text on one line, cut at 100 bytes, with its numbers
// as N: the key under which a scenario counts the calls' errors.
func errorKind(err error) string {
	k := oneLine(err.Error())
	if len(k) > 100 {
		k = k[:100] + "…"
	}
	return digits.ReplaceAllString(k, "N")
}

func scStopReading(ctx context.Context, r *run) string {
	before := children(os.Getpid())
	c, _, err := dial(ctx, r, dialOpts{}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	pids := newChildren(before)
	closed := false
	defer func() {
		if !closed {
			closeClient(ctx, r, c)
		}
	}()
	// A first call, so that the server has read every line sent so far
	// (go-sdk's notifications/initialized may otherwise share a read with
	// stop-reading, and the test server then holds that answer back).
	r.step("echo before stop-reading")
	if err := echo(ctx, c, "before", 5*time.Second); err != nil {
		r.note("echo: %s", oneLine(err.Error()))
		return "first call fails: " + short(err)
	}
	r.step("stop-reading")
	if _, err := c.Call(ctx, "stop-reading", nil, callOpts{timeout: 5 * time.Second}); err != nil {
		r.note("stop-reading: %s", oneLine(err.Error()))
		return "stop-reading call fails: " + short(err)
	}
	// One argument string for every call: the growth measured is the
	// client's, not the harness's.
	args := map[string]any{"message": strings.Repeat("x", stuckArgBytes)}
	heap0 := liveHeapMiB()

	r.step(fmt.Sprintf("%d calls of 256 KiB, %s deadline each", stuckCalls, stuckTimeout))
	type end struct {
		d   time.Duration
		err error
	}
	ends := make(chan end, stuckCalls)
	t0 := time.Now()
	// Timed from the first call: starting 2,000 goroutines that each encode
	// 256 KiB takes a while on a loaded machine.
	limit := time.After(stuckWait)
	for range stuckCalls {
		go func() {
			t := time.Now()
			_, err := c.Call(ctx, "echo", args, callOpts{timeout: stuckTimeout})
			ends <- end{time.Since(t), err}
		}()
	}
	kinds := make(map[string]int)
	var ended, ok int
	var slowest time.Duration
collect:
	for ended < stuckCalls {
		select {
		case e := <-ends:
			ended++
			slowest = max(slowest, e.d)
			if e.err == nil {
				ok++
				continue
			}
			kinds[errorKind(e.err)]++
		case <-limit:
			break collect
		}
	}
	burst := time.Since(t0)
	heap1 := liveHeapMiB()
	grown := heap1 - heap0
	pending := stuckCalls - ended

	slowestS := ""
	if ended > 0 {
		slowestS = fmt.Sprintf(" (slowest %s)", ms(slowest))
	}
	r.note("%d calls ended within %s of the burst's start%s, %d still pending; live heap %.1f MiB before the burst, %.1f MiB after it (%s)",
		ended, ms(burst), slowestS, pending, heap0, heap1, mib(grown))
	for _, k := range sortedKeys(kinds) {
		r.note("%d× %s", kinds[k], k)
	}
	if ok > 0 {
		r.note("%d calls returned a result?!", ok)
	}
	closed = true
	closeS := closeBounded(ctx, r, c, pids)

	var s string
	switch {
	case pending > 0:
		s = fmt.Sprintf("%d/%d calls still pending after %s", pending, stuckCalls, secs(stuckWait))
	case ok > 0:
		s = fmt.Sprintf("%d calls return a result?!", ok)
	default:
		s = fmt.Sprintf("all %d fail by %s (%s)", stuckCalls, ms(slowest), kindsShort(kinds))
	}
	s += fmt.Sprintf("; live heap %s", mib(grown))
	return withCounters(s, c) + closeS
}

// closeBoundWait is how long a Close against a server that reads nothing
// may take before the harness ends the server. The server exits on
// SIGTERM, which every client sends after its first grace period (at most
// go-sdk's 5 s): a Close still running a second after that is stuck.
const closeBoundWait = 6 * time.Second

// closeBounded closes c; if Close has not returned after closeBoundWait it
// kills the server (pids) to see whether that frees it. It returns "" or
// what the table should add.
func closeBounded(ctx context.Context, r *run, c mcpClient, pids []int) string {
	r.step("Close")
	done := make(chan error, 1)
	t0 := time.Now()
	go func() { done <- c.Close(ctx) }()
	select {
	case err := <-done:
		d := time.Since(t0)
		r.note("Close returned after %s: %s", ms(d), errOr(err, "nil"))
		return ""
	case <-time.After(closeBoundWait):
	}
	r.step("Close, after the harness killed the server")
	killPids(pids)
	select {
	case err := <-done:
		r.note("Close blocked %s, until the harness killed the server; then returned %s", secs(closeBoundWait), errOr(err, "nil"))
		return fmt.Sprintf("; Close blocks until the server is killed (%s)", secs(closeBoundWait))
	case <-time.After(3 * time.Second):
		r.note("Close still blocked 3 s after the harness killed the server")
		return "; Close blocks, even after the server is killed"
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// kindsShort names the most common error of a burst, and how many other
// kinds there were.
func kindsShort(kinds map[string]int) string {
	keys := sortedKeys(kinds)
	if len(keys) == 0 {
		return "no errors"
	}
	s := fmt.Sprintf("%d× %s", kinds[keys[0]], short(errors.New(keys[0])))
	if len(keys) > 1 {
		s += fmt.Sprintf(", %d other kind(s)", len(keys)-1)
	}
	return s
}

// --- 18 ---

func scStdoutClosed(ctx context.Context, r *run) string {
	before := children(os.Getpid())
	c, _, err := dial(ctx, r, dialOpts{server: testserver.Options{IgnoreSIGTERM: true}}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	pids := newChildren(before)
	type res struct {
		err error
		at  time.Time
	}
	const wait = 5 * time.Second
	sleepDone := make(chan res, 1)
	r.step("sleep call in flight")
	go func() {
		cctx, cancel := context.WithTimeout(ctx, wait+time.Second)
		defer cancel()
		_, err := c.Call(cctx, "sleep", map[string]any{"ms": 60000}, callOpts{})
		sleepDone <- res{err, time.Now()}
	}()
	time.Sleep(200 * time.Millisecond)

	r.step("close-stdout call")
	t0 := time.Now()
	cctx, cancel := context.WithTimeout(ctx, wait)
	_, closeErr := c.Call(cctx, "close-stdout", nil, callOpts{})
	cancel()
	dClose := time.Since(t0)
	r.step("waiting for the sleep call")
	var sleepRes res
	select {
	case sleepRes = <-sleepDone:
	case <-time.After(wait + 2*time.Second):
		sleepRes = res{errors.New("still pending"), time.Now()}
	}
	dSleep := sleepRes.at.Sub(t0)
	r.step("a new call")
	t1 := time.Now()
	newErr := echo(ctx, c, "after", 2*time.Second)
	dNew := time.Since(t1)
	r.note("close-stdout call: %s after %s", errOr(closeErr, "a result?!"), ms(dClose))
	r.note("in-flight sleep call: %s, %s after close-stdout was sent", errOr(sleepRes.err, "a result?!"), ms(dSleep))
	r.note("new call afterwards (2 s deadline): %s after %s", errOr(newErr, "ok?!"), ms(dNew))

	// The server ignores SIGTERM and stdin EOF. Does the client end it on
	// its own? Wait a little for that, then end it here: Close would
	// otherwise wait out the grace periods that fault 10 measures.
	r.step("waiting for the server to be ended")
	var states []string
	for _, p := range pids {
		states = append(states, waitReaped(p, serverEndWait-time.Since(t0)))
	}
	r.note("server %v %s after close-stdout", states, ms(time.Since(t0)))
	if !allEqual(states, "gone") {
		killPids(pids)
		r.note("harness killed it before Close")
	}
	closeClient(ctx, r, c)

	s := "pending call " + callEnd(sleepRes.err, dSleep, wait+time.Second-200*time.Millisecond) +
		"; new call " + callEnd(newErr, dNew, 2*time.Second)
	switch {
	case len(states) == 0:
	case allEqual(states, "running"):
		s += fmt.Sprintf("; server left running (%s)", secs(serverEndWait))
	case allEqual(states, "gone"):
		s += "; server ended and reaped"
	default:
		s += fmt.Sprintf("; server %v", states)
	}
	return s
}

// serverEndWait is how long after close-stdout fault 18 waits for the
// client to end the server by itself.
const serverEndWait = 5 * time.Second

// waitReaped polls until pid is gone (exited and reaped) or d has passed,
// and returns its state then.
func waitReaped(pid int, d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		s := pidState(pid)
		if s == "gone" || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// callEnd describes how a call that cannot be answered ended: a result,
// its deadline, a clear error, or blocked past its deadline.
func callEnd(err error, d, deadline time.Duration) string {
	switch {
	case err == nil:
		return "gets a result?!"
	case d > deadline+500*time.Millisecond:
		return fmt.Sprintf("blocks %s, past its %s deadline (%s)", ms(d), secs(deadline.Round(time.Second)), short(err))
	case d >= deadline-100*time.Millisecond:
		return fmt.Sprintf("waits for its %s deadline", secs(deadline.Round(time.Second)))
	default:
		return fmt.Sprintf("fails in %s (%s)", ms(d), short(err))
	}
}

// --- 19 ---

// invalidIDRequests are roots/list requests with ids JSON-RPC forbids.
var invalidIDRequests = []string{
	`{"jsonrpc":"2.0","id":null,"method":"roots/list"}`,
	`{"jsonrpc":"2.0","id":{"n":1},"method":"roots/list"}`,
	`{"jsonrpc":"2.0","id":true,"method":"roots/list"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"roots/list"}`,
}

// unknownAnswerPrefix starts the test server's stderr line for each answer
// to a request it never sent.
const unknownAnswerPrefix = "testserver: response to unknown request id "

func scInvalidIDs(ctx context.Context, r *run) string {
	stderr := &syncBuffer{}
	c, _, err := dial(ctx, r, dialOpts{roots: true, stderr: stderr}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	r.step("send-raw")
	_, sendErr := c.Call(ctx, "send-raw", map[string]any{"lines": invalidIDRequests}, callOpts{timeout: 5 * time.Second})
	r.note("send-raw call: %s", errOr(sendErr, "ok"))
	r.step("waiting for the answers")
	var answers []string
	for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if answers = stderr.lines(unknownAnswerPrefix); len(answers) >= len(invalidIDRequests) {
			break
		}
	}
	r.step("echo afterwards")
	after := echo(ctx, c, "after", 5*time.Second)
	answers = stderr.lines(unknownAnswerPrefix)
	// Group the answers by what the client said and to which id.
	var kinds []string
	count := make(map[string]int)
	for i, a := range answers {
		rest := strings.TrimPrefix(a, unknownAnswerPrefix)
		answers[i] = strings.TrimPrefix(a, "testserver: ")
		id, code, isErr := strings.Cut(rest, " with error ")
		k := fmt.Sprintf("with a result (id %s)", id)
		if isErr && code == "-32600" {
			k = fmt.Sprintf("Invalid Request (id %s)", id)
		} else if isErr {
			k = fmt.Sprintf("error %s (id %s)", code, id)
		}
		if count[k] == 0 {
			kinds = append(kinds, k)
		}
		count[k]++
	}
	r.note("the server got %d answers: %q", len(answers), answers)
	r.note("echo afterwards: %s", errOr(after, "ok"))

	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d answered %s", count[k], k))
	}
	if n := len(invalidIDRequests) - len(answers); n > 0 {
		parts = append(parts, fmt.Sprintf("%d unanswered", n))
	}
	s := strings.Join(parts, ", ")
	if sendErr != nil {
		s += "; send-raw call fails: " + short(sendErr)
	}
	if after == nil {
		s += "; connection survives"
	} else {
		s += "; next call fails"
		if sendErr == nil {
			s += ": " + short(after)
		}
	}
	return withCounters(s, c)
}

// --- 20 ---

// slowHandlerCloseDeadline is the deadline given to Close (mcpactor) or
// waited for it (the peers, whose Close takes no context).
const slowHandlerCloseDeadline = time.Second

// slowHandlerRelease is when the handler is released if Close has not
// returned by then; askTimeout is the timeout of the tools/call that made
// the server ask (a Close that waits for it returns at about that time).
const (
	slowHandlerRelease = 2 * time.Second
	askTimeout         = 4 * time.Second
)

func scSlowHandlerClose(ctx context.Context, r *run) string {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	var released atomic.Bool
	releaseOnce := func() {
		if !released.Swap(true) {
			close(release)
		}
	}
	// Released at the end of the cell whatever happens, as a real handler
	// stuck on a model would be, some day.
	defer releaseOnce()
	sampling := func(context.Context) (string, error) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release // ignores its context on purpose
		return "released", nil
	}
	c, _, err := dial(ctx, r, dialOpts{sampling: sampling}, connectTimeout)
	if err != nil {
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	type askEnd struct {
		err error
		at  time.Time
	}
	askDone := make(chan askEnd, 1)
	r.step("ask-client sampling/createMessage")
	go func() {
		params := map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}},
			"maxTokens": 10,
		}
		_, err := c.Call(ctx, "ask-client", map[string]any{"method": "sampling/createMessage", "params": params}, callOpts{timeout: askTimeout})
		askDone <- askEnd{err, time.Now()}
	}()
	select {
	case <-entered:
	case e := <-askDone:
		r.note("ask-client: %s", errOr(e.err, "answered without the handler?!"))
		closeClient(ctx, r, c)
		if e.err != nil {
			return "handler never called: " + short(e.err)
		}
		return "handler never called"
	case <-time.After(5 * time.Second):
		r.note("the handler was not called within 5 s")
		closeClient(ctx, r, c)
		return "handler never called (5 s)"
	}

	r.step("Close with a blocked handler")
	closeDone := make(chan error, 1)
	t0 := time.Now()
	go func() {
		cctx, cancel := context.WithTimeout(ctx, slowHandlerCloseDeadline)
		defer cancel()
		closeDone <- c.Close(cctx)
	}()
	var closeErr error
	var d time.Duration
	blocked := false
	select {
	case closeErr = <-closeDone:
		d = time.Since(t0)
	case <-time.After(slowHandlerRelease):
		r.step("Close, after releasing the handler")
		releaseOnce()
		select {
		case closeErr = <-closeDone:
			d = time.Since(t0)
			blocked = true
		case <-time.After(askTimeout):
			r.note("Close still blocked %s after the handler was released", secs(askTimeout))
			return fmt.Sprintf("Close still blocked %s after the handler was released (at %s)", secs(askTimeout), secs(slowHandlerRelease))
		}
	}
	r.note("Close returned after %s: %s", ms(d), errOr(closeErr, "nil"))
	var ask askEnd
	select {
	case ask = <-askDone:
		r.note("ask-client call (%s timeout): %s, %s after Close began", secs(askTimeout), errOr(ask.err, "a result"), ms(ask.at.Sub(t0)))
	case <-time.After(2 * time.Second):
		r.note("ask-client call still pending 2 s after Close")
	}

	var s string
	switch {
	case !blocked:
		s = fmt.Sprintf("Close returns in %s", ms(d))
	case !ask.at.IsZero() && d-ask.at.Sub(t0) < 50*time.Millisecond && errors.Is(ask.err, context.DeadlineExceeded):
		// Close returned as the call that made the server ask timed out.
		s = fmt.Sprintf("Close blocks past the handler's release (at %s), until the pending call's %s timeout: %s",
			secs(slowHandlerRelease), secs(askTimeout), ms(d))
	default:
		s = fmt.Sprintf("Close blocks until the handler returns (released at %s): %s", secs(slowHandlerRelease), ms(d))
	}
	if closeErr != nil {
		s += " with " + short(closeErr)
	}
	return withCounters(s, c)
}

// --- 21 ---

// startCause is the line that says why the server could not start; the
// usage text printed after it buries it for a client that keeps only the
// last lines of stderr.
const startCause = "Error: failed to load kubeconfig: no configuration has been provided"

func startFailureStderr() string {
	var b strings.Builder
	b.WriteString(startCause + "\n")
	b.WriteString("Usage:\n  kube-mcp [flags]\n\nFlags:\n")
	for i := range 56 {
		fmt.Fprintf(&b, "      --option-%02d string   what option %02d sets (default \"value-%02d\")\n", i+1, i+1, i+1)
	}
	return b.String()
}

func scStartFailure(ctx context.Context, r *run) string {
	opts := testserver.Options{ExitAtStart: true, ExitCode: 1, StderrOnExit: startFailureStderr()}
	c, d, err := dial(ctx, r, dialOpts{server: opts}, connectTimeout)
	if err == nil {
		closeClient(ctx, r, c)
		return "connect succeeds?!"
	}
	txt := oneLine(err.Error())
	usage := strings.Count(err.Error(), "--option-")
	shown := txt
	if len(shown) > 400 {
		shown = shown[:400] + fmt.Sprintf("… (%d characters in all)", len(txt))
	}
	r.note("connect failed after %s: %s", ms(d), shown)
	if errors.Is(err, context.DeadlineExceeded) && d >= connectTimeout-100*time.Millisecond {
		return fmt.Sprintf("connect hangs until its %s deadline", connectTimeout)
	}
	s := fmt.Sprintf("connect fails in %s", ms(d))
	if strings.Contains(err.Error(), startCause) {
		s += ", error shows the cause"
	} else {
		s += ", error lacks the cause"
	}
	if usage > 0 {
		s += fmt.Sprintf(" (+%d usage lines)", usage)
	} else if !strings.Contains(err.Error(), startCause) {
		s += ": " + short(err)
	}
	return s
}

// --- 22 ---

const (
	floodCount       = 32
	floodBytes       = 1 << 20
	floodCallTimeout = 3 * time.Second
)

func scSlowSubscriber(ctx context.Context, r *run) string {
	release := make(chan struct{})
	var got atomic.Int64
	logMessage := func() {
		got.Add(1)
		<-release
	}
	c, _, err := dial(ctx, r, dialOpts{logMessage: logMessage}, connectTimeout)
	if err != nil {
		close(release)
		return connectFailed(r, r.dialTook, err, connectTimeout)
	}
	defer closeClient(ctx, r, c)
	heap0 := liveHeapMiB()
	r.step("notify-flood with a blocked subscriber")
	t0 := time.Now()
	_, callErr := c.Call(ctx, "notify-flood", map[string]any{"method": logMethod, "count": floodCount, "bytes": floodBytes},
		callOpts{timeout: floodCallTimeout})
	d := time.Since(t0)
	heap1 := liveHeapMiB()
	grown := heap1 - heap0
	before := got.Load()
	close(release)
	r.step("delivering after the release")
	// Until every notification is in, or none has come for 200 ms (a
	// client that dropped some), or 2 s have passed.
	delivered := got.Load()
	for last, end := time.Now(), time.Now().Add(2*time.Second); delivered < floodCount && time.Since(last) < 200*time.Millisecond && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
		if n := got.Load(); n != delivered {
			delivered, last = n, time.Now()
		}
	}
	r.note("call returned after %s: %s", ms(d), errOr(callErr, "ok"))
	r.note("live heap %.1f MiB before the flood, %.1f MiB at the call's return (%s)", heap0, heap1, mib(grown))
	r.note("subscriber called %d times while blocked, %d of %d in all after the release", before, delivered, floodCount)

	var s string
	switch {
	case callErr == nil:
		s = fmt.Sprintf("call ok in %s", ms(d))
	case d >= floodCallTimeout-100*time.Millisecond:
		s = fmt.Sprintf("call waits for its %s timeout", secs(floodCallTimeout))
	default:
		s = fmt.Sprintf("call fails in %s: %s", ms(d), short(callErr))
	}
	s += fmt.Sprintf("; live heap %s; %d/%d delivered", mib(grown), delivered, floodCount)
	return withCounters(s, c)
}
