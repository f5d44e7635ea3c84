package main

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/mcpactor/mcpactor"
)

// The faults.
const (
	fKill        = "kill"               // SIGKILL of a stdio server
	fStop        = "sigstop"            // SIGSTOP, a while, SIGCONT: a stalled server
	fStopReading = "stop-reading"       // the server never reads stdin again (testserver's stop-reading)
	fGarbage     = "garbage"            // a burst of lines that are not JSON-RPC (send-raw)
	fOversized   = "oversized"          // a line over the frame cap, made by the server (notify-flood)
	fHTTPRestart = "http-restart"       // the HTTP server killed and started again on its port: sessions lost
	fHTTP5xx     = "http-5xx"           // a burst of 503 answers to tools/call
	fHTTPReset   = "http-reset"         // tools/call answers whose connection is reset mid-way
	fHTTPCut     = "http-cut"           // tools/call SSE streams cut before their answer
	fHTTPSlow    = "http-slow"          // tools/call answered later than the call's timeout, for a while
	fListChanged = "list-changed-storm" // a storm of notifications/tools/list_changed
	fRemoveAdd   = "remove-add"         // Manager.Remove, a while, Manager.Add, under calls
	fReload      = "reload"             // Manager.Reload with the server's configuration changed
	fCacheRO     = "cache-unwritable"   // the tool-list cache directory made unwritable for a while
	fCrashLoop   = "crash-loop"         // a fragile server killed each time it is up, until its breaker opens
)

var faultKinds = []string{fKill, fStop, fStopReading, fGarbage, fOversized, fHTTPRestart, fHTTP5xx, fHTTPReset, fHTTPCut, fHTTPSlow, fListChanged, fRemoveAdd, fReload, fCacheRO, fCrashLoop}

// faultTargets are the kinds each fault applies to (none: the fault is
// the whole runtime's).
var faultTargets = map[string][]string{
	fKill:        {kTest, kFast, kGoSDK, kEverything},
	fStop:        {kTest, kFast, kGoSDK, kEverything},
	fStopReading: {kTest},
	fGarbage:     {kTest},
	fOversized:   {kTest},
	fHTTPRestart: {kTestHTTP, kGoSDKHTTP, kEverythingHTTP, kEverythingSSE},
	fHTTP5xx:     {kTestHTTP, kGoSDKHTTP, kEverythingHTTP, kEverythingSSE},
	fHTTPReset:   {kTestHTTP, kGoSDKHTTP, kEverythingHTTP},
	fHTTPCut:     {kTestHTTP, kEverythingHTTP},
	fHTTPSlow:    {kTestHTTP, kGoSDKHTTP, kEverythingHTTP, kEverythingSSE},
	fListChanged: {kTest, kTestHTTP, kGoSDK},
	fRemoveAdd:   {kTest, kFast, kGoSDK, kEverything, kTestHTTP, kGoSDKHTTP, kEverythingHTTP, kEverythingSSE},
	fReload:      {kTest, kFast, kGoSDK, kEverything, kTestHTTP, kGoSDKHTTP, kEverythingHTTP, kEverythingSSE},
	fCacheRO:     nil,
	fCrashLoop:   {kFragile},
}

// The detection a stalled server needs: keepaliveFailures pings in a
// row, each waited for its request timeout (supervisor: 3).
const stallDetect = 3 * (keepalive + requestTimeout)

// recoveryBound is how soon after a fault stops acting its server must
// take calls again: the restart policy's backoff, a connect, the
// detection the fault needs, and 5 s for a call to come and succeed.
func recoveryBound(kind string) time.Duration {
	const restart = backoffMax + connectTimeout + 5*time.Second
	switch kind {
	case fKill, fHTTPRestart, fRemoveAdd, fReload:
		return restart
	case fCrashLoop:
		return breakerRetry + restart
	case fCacheRO:
		return 0
	}
	// A stall or a burst: the server may have been found unhealthy
	// (keepalive, or CallFailureThreshold calls failing) and restarted.
	return stallDetect + restart
}

// faultRec is one fault of the run's log.
type faultRec struct {
	Seq    int
	Kind   string
	Server string // "" for the runtime's faults
	At     time.Duration
	End    time.Duration // when it stopped acting
	Detail string
	Err    string // the injection failed

	// Filled by the analysis.
	Bound     time.Duration
	Recovery  time.Duration // first call succeeded on the server after End
	Ready     time.Duration // the server ready again (state event) after At, when it left ready
	Recovered bool
	Breaker   bool // the server's breaker opened
}

// injector draws the faults and applies them, each on a goroutine of its
// own: faults overlap, never two on one server, and a server hit is left
// alone until its recovery bound has passed.
type injector struct {
	r   *runner
	rng *rand.Rand

	mu   sync.Mutex
	busy map[string]time.Time // server -> free again at
	log  []*faultRec
	wg   sync.WaitGroup

	cacheMu sync.Mutex // one cache fault at a time
}

func newInjector(r *runner) *injector {
	return &injector{r: r, rng: rand.New(rand.NewPCG(uint64(r.cfg.seed), 0xfa17)), busy: map[string]time.Time{}}
}

// faultsAfterQuiet runs inject in a goroutine of its own once the quiet
// baseline (quiet) is over, unless ctx ends first, and logs the start
// with logf. The channel closes when the goroutine ends.
func faultsAfterQuiet(ctx context.Context, quiet time.Duration, logf func(string, ...any), inject func(context.Context)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-time.After(quiet):
		case <-ctx.Done():
			return
		}
		logf("quiet baseline over: faults start")
		inject(ctx)
	}()
	return done
}

// run draws faults until ctx ends, then waits for those under way.
func (in *injector) run(ctx context.Context) {
	defer in.wg.Wait()
	// The first kinds come in a shuffled turn, so that a short run sees
	// every kind; then each is drawn at random.
	turn := slices.Clone(faultKinds)
	in.rng.Shuffle(len(turn), func(i, j int) { turn[i], turn[j] = turn[j], turn[i] })
	mean := time.Duration(float64(time.Minute) / in.r.cfg.faultsPerMin)
	for {
		wait := time.Duration(in.expFloat64() * float64(mean))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		var kind string
		var target *server
		for try := 0; try < 20 && kind == ""; try++ {
			k := faultKinds[in.intn(len(faultKinds))]
			fromTurn := len(turn) > 0
			if fromTurn {
				k = turn[0]
			}
			s, ok := in.pick(k)
			if !ok {
				if fromTurn {
					// No target free now: this kind later in the turn.
					turn = append(turn[1:], turn[0])
				}
				continue
			}
			if fromTurn {
				turn = turn[1:]
			}
			kind, target = k, s
		}
		if kind == "" {
			continue
		}
		rec := &faultRec{Kind: kind, At: in.r.since()}
		if target != nil {
			rec.Server = target.name
		}
		in.mu.Lock()
		rec.Seq = len(in.log) + 1
		in.log = append(in.log, rec)
		in.mu.Unlock()
		in.r.logf("fault %d at %v: %s %s", rec.Seq, rec.At.Round(time.Millisecond), kind, rec.Server)
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			in.apply(rec, target)
			rec.End = in.r.since()
			if target != nil {
				in.mu.Lock()
				in.busy[target.name] = time.Now().Add(recoveryBound(kind))
				in.mu.Unlock()
			}
		}()
	}
}

// pick chooses a free target for a fault kind; nil (and ok) for a fault
// of the whole runtime.
func (in *injector) pick(kind string) (*server, bool) {
	kinds := faultTargets[kind]
	if kinds == nil {
		if !in.cacheMu.TryLock() {
			return nil, false
		}
		in.cacheMu.Unlock()
		return nil, true
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	var free []*server
	now := time.Now()
	for _, s := range in.r.fleet {
		if slices.Contains(kinds, s.kind) && !now.Before(in.busy[s.name]) {
			free = append(free, s)
		}
	}
	if len(free) == 0 {
		return nil, false
	}
	s := free[in.rng.IntN(len(free))]
	// Busy until the fault is over and recovered (set again at its end).
	in.busy[s.name] = now.Add(time.Hour)
	return s, true
}

// hold is a random duration in [lo, hi), shorter in the short mode.
func (in *injector) hold(lo, hi time.Duration) time.Duration {
	in.mu.Lock()
	d := lo + time.Duration(in.rng.Int64N(int64(hi-lo)))
	in.mu.Unlock()
	if in.r.cfg.short {
		d /= 2
	}
	return d
}

// intn and expFloat64 draw from the injector's source, which the faults
// under way draw from too (hold): under in.mu, as every use of in.rng
// once faults run.
func (in *injector) intn(n int) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.rng.IntN(n)
}

func (in *injector) expFloat64() float64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.rng.ExpFloat64()
}

// apply injects one fault and returns when it stops acting.
func (in *injector) apply(rec *faultRec, s *server) {
	r := in.r
	fail := func(format string, args ...any) { rec.Err = fmt.Sprintf(format, args...) }
	switch rec.Kind {
	case fKill:
		pid := waitServerPID(s.name, 10*time.Second)
		if pid == 0 {
			fail("no process")
			return
		}
		rec.Detail = "pid " + strconv.Itoa(pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	case fStop:
		pid := waitServerPID(s.name, 10*time.Second)
		if pid == 0 {
			fail("no process")
			return
		}
		d := in.hold(2*time.Second, 8*time.Second)
		rec.Detail = fmt.Sprintf("pid %d stopped %v", pid, d.Round(time.Millisecond))
		_ = syscall.Kill(pid, syscall.SIGSTOP)
		time.Sleep(d)
		_ = syscall.Kill(pid, syscall.SIGCONT)
	case fStopReading:
		c := r.faultCall(s, "stop-reading", map[string]any{})
		rec.Detail = "stop-reading: " + c.Class.String()
	case fGarbage:
		n := 20 + in.intn(200)
		lines := make([]string, 0, n)
		for i := range n {
			switch i % 4 {
			case 0:
				lines = append(lines, "garbage line "+strconv.Itoa(i)+" \x01\x02 not json")
			case 1:
				lines = append(lines, `{"not":"json-rpc","i":`+strconv.Itoa(i)+`}`)
			case 2:
				lines = append(lines, `{"jsonrpc":"2.0","id":987654`+strconv.Itoa(i)+`,"result":{}}`)
			default:
				lines = append(lines, `{"jsonrpc":"2.0","method":`)
			}
		}
		c := r.faultCall(s, "send-raw", map[string]any{"lines": lines})
		rec.Detail = fmt.Sprintf("%d lines: %s", n, c.Class)
	case fOversized:
		// The server makes the line itself (notify-flood pads one
		// notification to the size): the fault is a line over the cap
		// from the server, which the runtime must skip. Sent by the soak
		// for the server to echo (send-raw), the line cost five times the
		// CPU (the soak encoding 6 MiB, the runtime writing it, the
		// server decoding it: 0.26 s against 0.06 s a fault) and two 6
		// MiB strings in the soak's heap, a burst on two cores that
		// slowed the servers no fault touched.
		tool, args := oversizedCall()
		c := r.faultCall(s, tool, args)
		rec.Detail = fmt.Sprintf("one line of %d MiB made by the server (cap %d MiB): %s", oversizedLine>>20, maxFrame>>20, c.Class)
	case fListChanged:
		if s.kind == kGoSDK {
			n := 10 + in.intn(20)
			ok := 0
			for range n {
				if c := r.faultCall(s, "test_trigger_tool_change", map[string]any{}); c.Class == cResult {
					ok++
				}
			}
			rec.Detail = fmt.Sprintf("%d tool changes (%d answered)", n, ok)
			return
		}
		n := 50 + in.intn(200)
		c := r.faultCall(s, "notify-flood", map[string]any{"method": "notifications/tools/list_changed", "count": n})
		rec.Detail = fmt.Sprintf("%d notifications: %s", n, c.Class)
	case fHTTPRestart:
		down := in.hold(time.Second, 4*time.Second)
		if err := s.backend.restart(down); err != nil {
			fail("%v", err)
			return
		}
		rec.Detail = fmt.Sprintf("down %v, port %d", down.Round(time.Millisecond), s.backend.port)
	case fHTTP5xx, fHTTPReset, fHTTPCut:
		n := 3 + in.intn(10)
		s.proxy.arm(rec.Kind, n, 0, 0)
		time.Sleep(in.hold(3*time.Second, 6*time.Second))
		did := s.proxy.disarm()
		rec.Detail = fmt.Sprintf("%d armed, %d done", n, did[rec.Kind])
	case fHTTPSlow:
		d := in.hold(4*time.Second, 10*time.Second)
		s.proxy.arm(fHTTPSlow, 0, opTimeoutNormal+time.Second, d)
		time.Sleep(d)
		did := s.proxy.disarm()
		rec.Detail = fmt.Sprintf("calls held %v for %v: %d", opTimeoutNormal+time.Second, d.Round(time.Millisecond), did[fHTTPSlow])
	case fRemoveAdd:
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cfg, err := r.removeMember(ctx, s.name)
		if err != nil {
			fail("Remove: %v", err)
			return
		}
		d := in.hold(2*time.Second, 5*time.Second)
		time.Sleep(d)
		if err := r.addMember(ctx, s.name, cfg); err != nil {
			fail("Add: %v", err)
		}
		rec.Detail = fmt.Sprintf("removed for %v", d.Round(time.Millisecond))
	case fReload:
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := r.reloadChanged(ctx, s); err != nil {
			fail("Reload: %v", err)
		}
		rec.Detail = "configuration changed; the others unchanged"
	case fCacheRO:
		in.cacheMu.Lock()
		defer in.cacheMu.Unlock()
		d := in.hold(10*time.Second, 25*time.Second)
		how, undo, err := unwritable(r.cacheDir)
		if err != nil {
			fail("%v", err)
			return
		}
		time.Sleep(d)
		if err := undo(); err != nil {
			fail("restoring: %v", err)
		}
		rec.Detail = fmt.Sprintf("%s for %v", how, d.Round(time.Millisecond))
	case fCrashLoop:
		kills := 0
		deadline := time.Now().Add(40 * time.Second)
		for time.Now().Before(deadline) && !r.breakerOpen(s.name) {
			pid := waitServerPID(s.name, time.Second)
			if pid == 0 {
				continue
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			kills++
		}
		rec.Detail = fmt.Sprintf("%d kills", kills)
		if !r.breakerOpen(s.name) {
			fail("the breaker did not open after %d kills", kills)
		}
	}
}

// oversizedCall is the tool call that makes a test server send one line
// of oversizedLine bytes, a notification: over the frame cap of the test
// kinds, under any cap of the process.
func oversizedCall() (string, map[string]any) {
	return "notify-flood", map[string]any{"method": "notifications/message", "count": 1, "bytes": oversizedLine}
}

// unwritable makes dir unwritable: chmod 0500, and, for root (whom modes
// do not stop), a file in the directory's place. undo puts it back.
func unwritable(dir string) (string, func() error, error) {
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			return "", nil, err
		}
		return "chmod 0500", func() error { return os.Chmod(dir, 0o700) }, nil
	}
	aside := dir + ".aside"
	if err := os.Rename(dir, aside); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(dir, []byte("not a directory\n"), 0o400); err != nil {
		_ = os.Rename(aside, dir)
		return "", nil, err
	}
	return "a file in the directory's place (root ignores modes)", func() error {
		if err := os.Remove(dir); err != nil {
			return err
		}
		return os.Rename(aside, dir)
	}, nil
}

// memberOps are Add, Remove and Reload, one at a time: Reload is given
// the current members, which Remove and Add change.
func (r *runner) removeMember(ctx context.Context, name string) (mcpactor.ServerConfig, error) {
	r.membersMu.Lock()
	defer r.membersMu.Unlock()
	cfg := r.members[name]
	// The removal begins before Remove is called: a call may fail as
	// removed while Remove is under way, before it returns.
	r.noteRemoval(name, true)
	if err := r.m.Remove(ctx, name); err != nil {
		r.noteRemoval(name, false)
		return cfg, err
	}
	delete(r.members, name)
	return cfg, nil
}

func (r *runner) addMember(ctx context.Context, name string, cfg mcpactor.ServerConfig) error {
	r.membersMu.Lock()
	defer r.membersMu.Unlock()
	err := r.m.Add(ctx, name, cfg)
	r.members[name] = cfg
	r.noteRemoval(name, false)
	return err
}

func (r *runner) reloadChanged(ctx context.Context, s *server) error {
	r.membersMu.Lock()
	defer r.membersMu.Unlock()
	cfg, ok := r.members[s.name]
	if !ok {
		return fmt.Errorf("%s is not a member", s.name)
	}
	s.reload++
	// A change the server does not see but the manager does: the
	// server is restarted with it.
	mark := strconv.Itoa(s.reload)
	if isHTTPKind(s.kind) {
		cfg.Headers = map[string]string{"X-Soak-Reload": mark}
	} else {
		env := map[string]string{}
		for k, v := range cfg.Env {
			env[k] = v
		}
		env["MCPACTOR_SOAK_RELOAD"] = mark
		cfg.Env = env
	}
	r.members[s.name] = cfg
	opts := r.mopts
	opts.Servers = maps.Clone(r.members)
	return r.m.Reload(ctx, opts)
}
