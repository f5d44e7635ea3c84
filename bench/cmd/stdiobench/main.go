// Command stdiobench measures tools/call throughput and latency over stdio
// for mcpactor, the other Go MCP clients (modelcontextprotocol/go-sdk and
// mark3labs/mcp-go) and a minimal hand-written pipelined wire client, in the
// same run, against the same server binary (mcpactor's test server, run by
// re-executing this program unless -server names another binary).
//
//	go -C bench run ./cmd/stdiobench [-duration 3s] [-rounds 5] [-inflight 1,16,256]
//	    [-clients mcpactor,gosdk,mcpgo,wire] [-out file.md] [-cpuprofile file]
//
// Each round runs every in-flight level; within a level every client in
// turn (the order rotates each round, so that machine noise hits all
// alike): connect, warm up, measure for -duration with N goroutines each
// looping on CallTool, close. The report gives, per client and level, the
// medians over rounds of calls/s, p50 and p99, and the ratios to the wire
// client and (for mcpactor) to the best peer library.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

type config struct {
	duration   time.Duration
	warmup     time.Duration
	rounds     int
	inflight   []int
	clients    []string
	out        string
	cpuprofile string
	serverPath string
}

func main() {
	// When re-executed as the benchmark server, serve and exit.
	testserver.RunIfChild()

	var cfg config
	var inflight, clients string
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "measurement time per client, level and round")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "warm-up time after connecting, not measured")
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds; the report gives medians over rounds")
	flag.StringVar(&inflight, "inflight", "1,16,256", "comma-separated calls in flight (one goroutine each)")
	flag.StringVar(&clients, "clients", strings.Join(clientOrder, ","), "comma-separated clients: "+strings.Join(clientOrder, ","))
	flag.StringVar(&cfg.out, "out", "", "also write the markdown report to this file")
	flag.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile of the mcpactor client's first measurement at the highest in-flight level")
	flag.StringVar(&cfg.serverPath, "server", "", "server binary (default: this program re-executed as mcpactor's test server)")
	flag.Parse()

	for _, f := range strings.Split(inflight, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fatalf("bad -inflight entry %q", f)
		}
		cfg.inflight = append(cfg.inflight, n)
	}
	for _, c := range strings.Split(clients, ",") {
		c = strings.TrimSpace(c)
		if _, ok := dialers[c]; !ok {
			fatalf("unknown client %q (want some of %s)", c, strings.Join(clientOrder, ","))
		}
		cfg.clients = append(cfg.clients, c)
	}
	if cfg.rounds < 1 || cfg.duration <= 0 {
		fatalf("-rounds and -duration must be positive")
	}

	srv := benchServer(cfg.serverPath)
	results := run(cfg, srv)
	report := render(cfg, results)
	fmt.Print(report)
	if cfg.out != "" {
		if err := os.WriteFile(cfg.out, []byte(report), 0o644); err != nil {
			fatalf("writing %s: %v", cfg.out, err)
		}
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "stdiobench: "+format+"\n", args...)
	os.Exit(2)
}

// benchServer is the one server every client starts: the test server with
// its default (well-behaved) options.
func benchServer(path string) server {
	opts := testserver.Options{}
	if path != "" {
		return server{path: path, args: opts.Args(), env: os.Environ()}
	}
	p, args, env := testserver.Command(opts)
	return server{path: p, args: args, env: env}
}

// key identifies one cell of the report.
type key struct {
	client   string
	inflight int
}

// sample is one measurement of one client at one level.
type sample struct {
	calls      uint64
	elapsed    time.Duration
	rate       float64 // calls/s
	p50, p99   time.Duration
	cpuPerCall time.Duration // this process's CPU time (user+system) per call
	errors     uint64        // failed calls and failed connects
	mismatches uint64        // answers whose text was not the message sent
	firstErr   string
}

func run(cfg config, srv server) map[key][]sample {
	results := make(map[key][]sample)
	profiled := false
	maxLevel := slices.Max(cfg.inflight)
	for round := range cfg.rounds {
		for _, n := range cfg.inflight {
			for i := range cfg.clients {
				name := cfg.clients[(i+round)%len(cfg.clients)]
				profile := cfg.cpuprofile != "" && !profiled && name == "mcpactor" && n == maxLevel
				s := measure(cfg, srv, name, n, profile)
				if profile {
					profiled = true
				}
				k := key{name, n}
				results[k] = append(results[k], s)
				flag := ""
				if s.errors+s.mismatches > 0 {
					flag = fmt.Sprintf("  errors=%d mismatches=%d first: %s", s.errors, s.mismatches, s.firstErr)
				}
				fmt.Fprintf(os.Stderr, "round %d/%d  inflight %4d  %-9s %10.0f calls/s  p50 %9s  p99 %9s%s\n",
					round+1, cfg.rounds, n, name, s.rate, fmtDur(s.p50), fmtDur(s.p99), flag)
			}
		}
	}
	return results
}

// worker is one caller goroutine's tally; each has its own, so recording
// shares no memory with the others.
type worker struct {
	h          hist
	calls      uint64
	errors     uint64
	mismatches uint64
	firstErr   string
}

// measure connects one client, warms it up, measures it and closes it.
func measure(cfg config, srv server, name string, n int, profile bool) sample {
	var s sample
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
	c, err := dialers[name](dctx, srv)
	dcancel()
	if err != nil {
		s.errors = 1
		s.firstErr = "connect: " + err.Error()
		return s
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		if err := c.Close(cctx); err != nil && s.firstErr == "" {
			// Reported, but not counted: some clients report the
			// server's exit on SIGTERM/close as an error.
			fmt.Fprintf(os.Stderr, "  %s close: %v\n", name, err)
		}
	}()

	// A watchdog: a client that stops answering fails its calls instead of
	// hanging the run.
	watchdog := time.AfterFunc(cfg.warmup+cfg.duration+60*time.Second, cancel)
	defer watchdog.Stop()

	if cfg.warmup > 0 {
		phase(ctx, c, n, cfg.warmup)
	}
	runtime.GC()

	if profile {
		f, err := os.Create(cfg.cpuprofile)
		if err != nil {
			fatalf("cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatalf("cpuprofile: %v", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}
	cpu0 := processCPU()
	workers, elapsed := phase(ctx, c, n, cfg.duration)
	cpu := processCPU() - cpu0
	var h hist
	for _, w := range workers {
		h.merge(&w.h)
		s.calls += w.calls
		s.errors += w.errors
		s.mismatches += w.mismatches
		if s.firstErr == "" {
			s.firstErr = w.firstErr
		}
	}
	s.elapsed = elapsed
	s.rate = float64(s.calls) / elapsed.Seconds()
	s.p50 = h.quantile(0.50)
	s.p99 = h.quantile(0.99)
	if s.calls > 0 {
		s.cpuPerCall = cpu / time.Duration(s.calls)
	}
	return s
}

// processCPU is the user plus system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// phase runs n goroutines, each calling echo in a loop, until d has passed;
// calls in flight at the deadline are waited for and counted. The elapsed
// time runs until the last of them is back.
func phase(ctx context.Context, c client, n int, d time.Duration) ([]*worker, time.Duration) {
	workers := make([]*worker, n)
	for i := range workers {
		workers[i] = new(worker)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	for g, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prefix := "hello-" + strconv.Itoa(g) + "-"
			for i := 0; !stop.Load(); i++ {
				msg := prefix + strconv.Itoa(i)
				t0 := time.Now()
				got, err := c.Call(ctx, msg)
				lat := time.Since(t0)
				switch {
				case err != nil:
					w.errors++
					if w.firstErr == "" {
						w.firstErr = err.Error()
					}
					if ctx.Err() != nil || w.errors >= 100 {
						return
					}
				case got != msg:
					w.mismatches++
					if w.firstErr == "" {
						w.firstErr = fmt.Sprintf("sent %q, got %q", msg, got)
					}
				default:
					w.calls++
					w.h.record(lat)
				}
			}
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	return workers, time.Since(start)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cell is the medians over rounds for one client and level.
type cell struct {
	rate, p50, p99 float64 // calls/s, ns, ns
	cpu            float64 // ns of client CPU per call
	minRate        float64
	maxRate        float64
	errors         uint64
	mismatches     uint64
	firstErr       string
}

func summarize(ss []sample) cell {
	var c cell
	var rates, p50s, p99s, cpus []float64
	for _, s := range ss {
		c.errors += s.errors
		c.mismatches += s.mismatches
		if c.firstErr == "" {
			c.firstErr = s.firstErr
		}
		if s.calls == 0 {
			continue
		}
		rates = append(rates, s.rate)
		p50s = append(p50s, float64(s.p50))
		p99s = append(p99s, float64(s.p99))
		cpus = append(cpus, float64(s.cpuPerCall))
	}
	c.rate, c.p50, c.p99, c.cpu = median(rates), median(p50s), median(p99s), median(cpus)
	if len(rates) > 0 {
		c.minRate, c.maxRate = slices.Min(rates), slices.Max(rates)
	}
	return c
}

func render(cfg config, results map[key][]sample) string {
	var b bytes.Buffer
	cells := make(map[key]cell)
	for k, ss := range results {
		cells[k] = summarize(ss)
	}

	fmt.Fprintf(&b, "### stdio tools/call echo: medians over %d rounds of %s (warm-up %s)\n\n", cfg.rounds, cfg.duration, cfg.warmup)
	fmt.Fprintf(&b, "- command: `go -C bench run ./cmd/stdiobench%s`\n", prefixed(" ", strings.Join(os.Args[1:], " ")))
	fmt.Fprintf(&b, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- machine: %s, nproc %d, GOMAXPROCS %d, %s %s/%s\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "- mcpactor: %s\n", moduleVersion())
	fmt.Fprintf(&b, "- server: mcpactor's internal/testserver, default options, one process per client (%s)\n\n", serverDesc(cfg))

	fmt.Fprintf(&b, "| client | in flight | calls/s | min–max over rounds | p50 | p99 | client CPU/call | vs wire | status |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, n := range cfg.inflight {
		wire, haveWire := cells[key{"wire", n}]
		for _, name := range cfg.clients {
			c := cells[key{name, n}]
			vs := "–"
			if haveWire && wire.rate > 0 {
				vs = fmt.Sprintf("%.0f%%", 100*c.rate/wire.rate)
			}
			status := "ok"
			if c.errors+c.mismatches > 0 {
				status = fmt.Sprintf("**FLAGGED**: %d errors, %d mismatches (%s)", c.errors, c.mismatches, oneLine(c.firstErr))
			}
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f–%.0f | %s | %s | %s | %s | %s |\n",
				name, n, c.rate, c.minRate, c.maxRate, fmtDur(time.Duration(c.p50)), fmtDur(time.Duration(c.p99)),
				fmtDur(time.Duration(c.cpu)), vs, status)
		}
	}

	var others []string
	for _, name := range cfg.clients {
		if name != "wire" {
			others = append(others, name)
		}
	}
	fmt.Fprintf(&b, "\n**Ratios of calls/s**: ratio of the medians, and in brackets the median over rounds of the ratio within each round.\n\n")
	fmt.Fprintf(&b, "| in flight |")
	for _, name := range others {
		fmt.Fprintf(&b, " %s / wire |", name)
	}
	fmt.Fprintf(&b, " mcpactor / best peer |\n|---:|%s---|\n", strings.Repeat("---:|", len(others)))
	for _, n := range cfg.inflight {
		wire := cells[key{"wire", n}]
		fmt.Fprintf(&b, "| %d |", n)
		for _, name := range others {
			if wire.rate > 0 {
				fmt.Fprintf(&b, " %.2f (%.2f) |", cells[key{name, n}].rate/wire.rate, perRound(results, name, "wire", n))
			} else {
				fmt.Fprintf(&b, " – |")
			}
		}
		best, bestName := 0.0, ""
		for _, name := range cfg.clients {
			if peers[name] && cells[key{name, n}].rate > best {
				best, bestName = cells[key{name, n}].rate, name
			}
		}
		if m, ok := cells[key{"mcpactor", n}]; ok && best > 0 {
			fmt.Fprintf(&b, " %.2f (%.2f) vs %s |\n", m.rate/best, perRound(results, "mcpactor", bestName, n), bestName)
		} else {
			fmt.Fprintf(&b, " – |\n")
		}
	}
	return b.String()
}

// perRound is the median over rounds of a's calls/s divided by b's in the
// same round, at level n.
func perRound(results map[key][]sample, a, b string, n int) float64 {
	as, bs := results[key{a, n}], results[key{b, n}]
	var ratios []float64
	for r := range min(len(as), len(bs)) {
		if bs[r].rate > 0 {
			ratios = append(ratios, as[r].rate/bs[r].rate)
		}
	}
	return median(ratios)
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func serverDesc(cfg config) string {
	if cfg.serverPath != "" {
		return "`" + cfg.serverPath + "`"
	}
	return "the stdiobench binary itself, re-executed with MCPACTOR_TESTSERVER=1"
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

// moduleVersion describes the mcpactor source measured (the bench module
// replaces it with the parent directory): its git commit, marked dirty when
// the working tree has changes.
func moduleVersion() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown commit"
	}
	v := "commit " + strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		v += " + uncommitted changes"
	}
	return v
}

func cpuModel() string {
	out, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	if out, err := exec.Command("uname", "-m").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return "unknown CPU"
}
