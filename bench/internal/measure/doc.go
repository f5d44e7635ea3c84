// Package measure is what the benchmark commands of the bench module
// (stdiobench, httpbench, bringup) share, so that they measure, summarize
// and report in one way and their numbers can be set side by side:
//
//   - the workload of the throughput benchmarks (calls.go): n goroutines
//     calling tools/call echo with unique messages, every answer checked,
//     latencies in a histogram (hist.go), the client's CPU time (cpu.go);
//     the same in testing.B form (bench.go) and as a smoke test
//     (smoke.go);
//   - the clients: each library called the same way (clients.go), the
//     hand-written references' request encoding and reply decoding
//     (wire.go), the server processes they start (process.go), and the
//     go-sdk's echo server for a command to serve (gosdkserver.go);
//   - the flags the throughput commands share (flags.go);
//   - what to make of rounds: medians and per-round ratios (stats.go),
//     summaries of samples (summary.go), the tables of calls (table.go),
//     and how noisy the shared machine was while a measurement ran, with
//     repetition of the noisy ones (noise.go);
//   - the facts a report states about its run (runinfo.go, machine.go)
//     and how it writes durations, messages and progress lines
//     (format.go).
//
// None of it asserts a speed: the tests of this module check that the
// harness measures correctly, never how fast anything is.
package measure
