// Command bringup measures the bring-up of many stdio MCP servers: the time
// from start until every server has been initialized and has answered
// tools/list, and the client memory each session costs. The clients are
// mcpactor (Runtime.Manage, and Runtime.Connect of every server at once),
// the go-sdk (github.com/modelcontextprotocol/go-sdk), mcp-go
// (github.com/mark3labs/mcp-go) and a minimal hand-written client, the
// reference.
//
//	go -C bench run ./cmd/bringup [-servers 100] [-rounds 5]
//	    [-clients manage,manage-all,connect,gosdk,mcpgo,wire]
//	    [-everything 20] [-out file.md] [-json file.json] [-memprofile file]
//
// Each measurement runs in a fresh process (this program re-executed), so
// that no measurement inherits another's heap, stacks or RSS: it reads the
// memory, brings up the servers, reads the memory again (after
// runtime.GC), closes everything and prints its result as one JSON line.
// Rounds are interleaved: each round measures every client once, in an
// order that rotates from round to round; the report gives medians over
// rounds. The servers are mcpactor's test server (this program re-executed
// as it), and, when installed, @modelcontextprotocol/server-everything on
// Node.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

type config struct {
	servers    int
	rounds     int
	clients    []string
	everything int
	evRounds   int
	out        string
	json       string
	memprofile string
	cpuprofile string
	profClient string
	serverPath string
	timeout    time.Duration
	noise      measure.Noise
}

func main() {
	runIfChild()

	var cfg config
	var clients string
	flag.IntVar(&cfg.servers, "servers", 100, "stdio servers (test server processes) per bring-up")
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds; the report gives medians over rounds")
	flag.StringVar(&clients, "clients", strings.Join(driverNames(false), ","), "comma-separated clients: "+strings.Join(driverNames(true), ","))
	flag.IntVar(&cfg.everything, "everything", 20, "also bring up this many server-everything (Node) servers per client and round, when installed; 0: not")
	flag.IntVar(&cfg.evRounds, "everything-rounds", 3, "rounds of the server-everything bring-ups (the first ones of -rounds; Node servers are slow to start)")
	flag.StringVar(&cfg.out, "out", "", "also write the markdown report to this file")
	flag.StringVar(&cfg.json, "json", "", "also write the results to this file as JSON (for cmd/benchrun)")
	flag.StringVar(&cfg.memprofile, "memprofile", "", "write a heap profile of -profile-client's first bring-up of test servers, taken after it (and FILE.before, taken before it, for go tool pprof -diff_base)")
	flag.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile of -profile-client's first bring-up of test servers")
	flag.StringVar(&cfg.profClient, "profile-client", "manage", "the client -memprofile and -cpuprofile profile")
	flag.StringVar(&cfg.serverPath, "server", "auto", "test server binary: a path; auto builds bench/cmd/benchserver (go build) into a temporary directory, falling back to self; self re-executes this program as the test server")
	flag.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "bound on one bring-up")
	cfg.noise.Flags(flag.CommandLine)
	flag.Parse()

	var err error
	if cfg.clients, err = measure.ParseList("client", clients, driverNames(true)); err != nil {
		fatalf("%v", err)
	}
	if cfg.rounds < 1 || cfg.servers < 1 {
		fatalf("-rounds and -servers must be positive")
	}
	// bench/cmd/benchserver is the test server as a program of its own,
	// about half this one's size, without the client libraries and their
	// init work.
	serverPath, serverNote, cleanup := measure.ServerBinary("bringup", cfg.serverPath, "benchserver", "test server")
	defer cleanup()
	cfg.serverPath = serverPath
	kinds := []string{"testserver"}
	everythingNote := ""
	if cfg.everything > 0 {
		if _, _, err := everythingCommand(); err != nil {
			everythingNote = "server-everything rows not run: " + err.Error()
			fmt.Fprintln(os.Stderr, "bringup: "+everythingNote)
		} else {
			kinds = append(kinds, "everything")
		}
	}

	results := run(&cfg, kinds)
	report := render(&cfg, kinds, results, strings.TrimSpace(serverNote+"\n"+everythingNote))
	if err := measure.WriteOutputs(report, cfg.out, resultsOf(&cfg, kinds, results), cfg.json); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bringup: "+format+"\n", args...)
	os.Exit(2)
}

// run measures every client and server kind, rounds interleaved.
func run(cfg *config, kinds []string) map[key][]result {
	results := make(map[key][]result)
	profiled, cpuProfiled := false, false
	for round := range cfg.rounds {
		for _, kind := range kinds {
			n := cfg.servers
			if kind == "everything" {
				if round >= cfg.evRounds {
					continue
				}
				n = cfg.everything
			}
			for i := range cfg.clients {
				name := cfg.clients[(i+round)%len(cfg.clients)]
				sp := spec{Client: name, Kind: kind, Servers: n, ServerPath: cfg.serverPath, Timeout: cfg.timeout}
				if cfg.memprofile != "" && !profiled && name == cfg.profClient && kind == "testserver" {
					sp.MemProfile, profiled = cfg.memprofile, true
				}
				if cfg.cpuprofile != "" && !cpuProfiled && name == cfg.profClient && kind == "testserver" {
					sp.CPUProfile, cpuProfiled = cfg.cpuprofile, true
				}
				label := fmt.Sprintf("round %d/%d  %-10s %3d servers  %-10s", round+1, cfg.rounds, kind, n, name)
				r, others := measure.Measure(&cfg.noise, label, func(int) result { return measureInChild(sp) })
				k := key{kind, name}
				results[k] = append(results[k], r)
				flag := ""
				if r.Errors > 0 {
					flag = fmt.Sprintf("  errors=%d first: %s", r.Errors, r.FirstErr)
				}
				fmt.Fprintf(os.Stderr, "%s %9s  CPU %9s  heap in use %6.1f KB/session  stacks %5.1f KB/session  RSS %6.1f KB/session  close %s  others %2.0f%%%s\n",
					label, measure.Dur(r.Elapsed), measure.Dur(r.CPU), perSessionKB(r.HeapInuse, n), perSessionKB(r.StackInuse, n),
					perSessionKB(r.RSS, n), measure.Dur(r.Close), 100*others, flag)
			}
		}
	}
	return results
}

type key struct {
	kind   string
	client string
}

// bringUp brings up sp.Servers servers with sp.Client, in this process.
func bringUp(sp spec) result {
	r := result{Client: sp.Client, Kind: sp.Kind, Servers: sp.Servers}
	d, ok := driverByName(sp.Client)
	if !ok {
		r.Errors, r.FirstErr = sp.Servers, "unknown client "+sp.Client
		return r
	}
	srv, err := serverFor(sp)
	if err != nil {
		r.Errors, r.FirstErr = sp.Servers, err.Error()
		return r
	}
	timeout := sp.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	before := readMem()
	if sp.MemProfile != "" {
		// The baseline, for go tool pprof -diff_base.
		writeHeapProfile(sp.MemProfile + ".before")
	}
	if sp.CPUProfile != "" {
		if pf, err := os.Create(sp.CPUProfile); err == nil {
			if pprof.StartCPUProfile(pf) == nil {
				defer pf.Close()
			}
		}
	}
	cpu0 := measure.ProcessCPU()
	start := time.Now()
	f, err := d.up(ctx, srv, sp.Servers)
	r.Elapsed = time.Since(start)
	r.CPU = measure.ProcessCPU() - cpu0
	if sp.CPUProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		r.Errors, r.FirstErr = sp.Servers, err.Error()
		if f == nil {
			return r
		}
	}
	ls := f.listings()
	for i, l := range ls {
		switch {
		case l.err != nil:
			r.Errors++
			if r.FirstErr == "" {
				r.FirstErr = serverName(i) + ": " + l.err.Error()
			}
		case !l.echo || (r.Tools != 0 && l.tools != r.Tools):
			r.Errors++
			if r.FirstErr == "" {
				r.FirstErr = fmt.Sprintf("%s: %d tools (echo: %v), others %d", serverName(i), l.tools, l.echo, r.Tools)
			}
		default:
			r.Tools = l.tools
		}
	}
	after := readMem()
	r.HeapInuse = int64(after.heapInuse) - int64(before.heapInuse)
	r.HeapAlloc = int64(after.heapAlloc) - int64(before.heapAlloc)
	r.StackInuse = int64(after.stackInuse) - int64(before.stackInuse)
	r.RSS = after.rss - before.rss
	r.PeakRSS = after.hwm - before.rss
	r.Goroutines = after.goroutines - before.goroutines
	if sp.MemProfile != "" {
		writeHeapProfile(sp.MemProfile)
	}

	cstart := time.Now()
	cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
	if err := f.close(cctx); err != nil {
		// Reported, not counted: some clients report a server's exit on
		// close as an error.
		fmt.Fprintf(os.Stderr, "  %s close: %s\n", sp.Client, measure.OneLine(err.Error()))
	}
	ccancel()
	r.Close = time.Since(cstart)
	runtime.KeepAlive(f)
	return r
}
