package main

import "strconv"

// step is one harness run of the suite: a command of bench/cmd, with the
// arguments of a full run and of a smoke run, whose markdown report goes
// into docs/benchmarks.md between the markers named after the step.
type step struct {
	name    string
	program string
	full    []string
	smoke   []string
}

// smokeCalls are the arguments that make a throughput command's
// measurements short: the smoke mode checks that every driver completes
// without errors, never a speed.
var smokeCalls = []string{"-rounds", "1", "-duration", "100ms", "-warmup", "50ms"}

// steps are the suite, in the order they run and appear on the page.
var steps = []step{
	{
		name: "stdio-echo", program: "stdiobench",
		full:  []string{"-servers", "fast", "-loads", "echo-fixed,echo-unique", "-inflight", "1,16,256", "-rounds", "5", "-duration", "2s"},
		smoke: append([]string{"-servers", "fast", "-loads", "echo-fixed,echo-unique", "-inflight", "1,4"}, smokeCalls...),
	},
	{
		name: "stdio-big", program: "stdiobench",
		full:  []string{"-servers", "fast", "-loads", "big-65536", "-inflight", "8", "-rounds", "5", "-duration", "2s"},
		smoke: append([]string{"-servers", "fast", "-loads", "big-65536", "-inflight", "2"}, smokeCalls...),
	},
	{
		// The other servers, and the 2026-07-28 revision beside the
		// session era's stdio-echo: the fast server offering it
		// (fast-2026), with which every client speaks it, the
		// references included.
		name: "stdio-servers", program: "stdiobench",
		full:  []string{"-servers", "testserver,gosdk,fast-2026", "-loads", "echo-fixed", "-inflight", "1,16,256", "-rounds", "5", "-duration", "2s"},
		smoke: append([]string{"-servers", "testserver,gosdk,fast-2026", "-loads", "echo-fixed", "-inflight", "4"}, smokeCalls...),
	},
	{
		name: "hotpath", program: "hotpath",
		full:  []string{"-inflight", "256", "-duration", "5s", "-calls", "50000"},
		smoke: []string{"-inflight", "4", "-duration", "200ms", "-calls", "200"},
	},
	{
		name: "inflight", program: "inflight",
		full:  []string{"-rounds", "3", "-levels", "1000,10000", "-ms", "1000"},
		smoke: []string{"-rounds", "1", "-levels", "20,50", "-ms", "20"},
	},
	{
		// What a runtime with one server holds at rest, beside the peers
		// (issue 22's resident memory).
		name: "idle", program: "inflight",
		full:  []string{"-idle", "-rounds", "3"},
		smoke: []string{"-idle", "-rounds", "1", "-ms", "20"},
	},
	{
		name: "telemetry", program: "telemetrycost",
		full:  []string{"-rounds", "5", "-duration", "2s", "-inflight", "16,256"},
		smoke: append([]string{"-inflight", "4"}, smokeCalls...),
	},
	{
		name: "http", program: "httpbench",
		full:  []string{"-rounds", "5", "-duration", "2s", "-inflight", "1,16,256", "-stateless-inflight", "1,16,256"},
		smoke: append([]string{"-inflight", "4", "-stateless-inflight", "4", "-retries", "0"}, smokeCalls...),
	},
	{
		name: "bringup", program: "bringup",
		full:  []string{"-servers", "100", "-rounds", "5"},
		smoke: []string{"-servers", "3", "-rounds", "1", "-everything", "0", "-retries", "0"},
	},
	{
		name: "cluster", program: "clusterbench",
		full:  []string{"-rounds", "3", "-duration", "2s", "-failover-calls", "1000", "-bringup-servers", "100"},
		smoke: []string{"-rounds", "1", "-duration", "100ms", "-failover-calls", "20", "-bringup-servers", "6"},
	},
	{
		// One runtime at scale (issue 40): servers at rest, many stdio
		// servers under one Manager, many HTTP sessions one per identity,
		// each client in a process of its own.
		name: "scale", program: "scale",
		full: []string{"-rest-servers", strconv.Itoa(scaleRestServers), "-stdio-servers", strconv.Itoa(scaleStdioServers),
			"-http-sessions", strconv.Itoa(scaleHTTPSessions), "-rounds", "3", "-duration", "2s", "-inflight", "256"},
		smoke: []string{"-rest-servers", "3", "-stdio-servers", "4", "-http-sessions", "5", "-rounds", "1",
			"-duration", "100ms", "-warmup", "50ms", "-rest", "10ms", "-inflight", "4", "-retries", "0"},
	},
}
