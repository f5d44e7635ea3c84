package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// runEmbedded is the demo with no arguments: everything it talks to is of
// its own making, real subprocesses and one in-process HTTP server, run
// through Runtime.Manage.
func runEmbedded(ctx context.Context, o options, logger *slog.Logger, r *report) error {
	r.intro()
	cancels := make(chan string, 16) // "cancelled <id> <reason>" lines from the servers' stderr
	var logs atomic.Int64
	hs, err := startHTTPServer()
	if err != nil {
		return err
	}
	defer hs.close() // after rt.Stop (deferred below), which ends the client's session
	rt, err := mcpactor.Start(mcpactor.Options{
		ClientInfo: messages.Implementation{Name: "mcpactor-demo", Version: "0.1.0"},
		Logger:     logger,
		Handlers: mcpactor.Handlers{
			Roots: func(context.Context, string) ([]messages.Root, error) {
				return []messages.Root{{URI: "file:///workspace", Name: "workspace"}}, nil
			},
			Notification: func(server string, n mcpactor.Notification) {
				if n.Method == messages.NotificationMessage {
					logs.Add(1)
				}
			},
		},
		StderrLine: func(server, line string) {
			if strings.HasPrefix(line, "cancelled ") {
				select {
				case cancels <- server + ": " + line:
				default:
				}
			}
		},
	})
	if err != nil {
		return err
	}
	defer rt.Stop(context.WithoutCancel(ctx))

	m, err := startGate(ctx, rt, o, hs.url, newEventLog(logger), r)
	if err != nil {
		r.summary()
		return err
	}
	demos, err := targets(m, o)
	if err != nil {
		return err
	}
	listTools(ctx, m, r)
	burst(ctx, m, demos, o, r)
	progress(ctx, m, demos[0], r)
	serverRequest(ctx, m, demos[0], r)
	timeoutWithCancel(ctx, m, demos[0], cancels, r)
	overHTTP(ctx, m, hs.url, r)
	crash(ctx, rt, r)
	logging(ctx, demos[0], r)
	if o.restart {
		restart(ctx, m, demos[0], o.timeout, r)
	}

	r.heading("manager status")
	printStatus(r, m.Status())

	sctx, end := r.step(ctx, "shutdown", "shutdown")
	start := time.Now()
	if err := rt.Stop(sctx); err != nil {
		r.fail("stop: %v", err)
	}
	r.line("all servers stopped and reaped in %v (log notifications received: %d)", time.Since(start).Round(time.Millisecond), logs.Load())
	end()

	r.heading("summary")
	r.summary()
	return r.err()
}

func serverConfig(opts testserver.Options, connectTimeout time.Duration) mcpactor.ServerConfig {
	path, args, env := testserver.Command(opts)
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return mcpactor.ServerConfig{Command: path, Args: args, Env: m, ConnectTimeout: connectTimeout}
}

// target is one managed demo-N server as the steps use it: the exposed
// names of its tools, which calls go by, and its client for the methods
// the manager does not route.
type target struct {
	name   string
	client *mcpactor.Client
	tools  map[string]string // the server's own tool name -> the exposed name
}

// targets are the demo-N servers, all up by now.
func targets(m *mcpactor.Manager, o options) ([]target, error) {
	byServer := map[string]map[string]string{}
	for _, t := range m.ListTools() {
		if byServer[t.Server] == nil {
			byServer[t.Server] = map[string]string{}
		}
		byServer[t.Server][t.Tool.Name] = t.Name
	}
	out := make([]target, o.servers)
	for i := range out {
		name := demoName(i)
		c, ok := m.Client(name)
		if !ok || byServer[name]["echo"] == "" {
			return nil, fmt.Errorf("%s: not managed, or no echo tool", name)
		}
		out[i] = target{name: name, client: c, tools: byServer[name]}
	}
	return out, nil
}

// listTools asks every managed server for its tools, through its client.
func listTools(ctx context.Context, m *mcpactor.Manager, r *report) {
	ctx, end := r.step(ctx, "tools", "listing tools")
	defer end()
	for _, s := range m.Status() {
		c, ok := m.Client(s.Name)
		if !ok {
			r.fail("%s: no client", s.Name)
			continue
		}
		t0 := time.Now()
		tools, err := c.ListTools(ctx)
		r.record(s.Name, time.Since(t0), err, false)
		if err != nil {
			r.fail("%s: tools/list: %v", s.Name, err)
			continue
		}
		r.setTools(s.Name, len(tools))
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		r.line("%-8s %d tools: %s", s.Name, len(tools), strings.Join(names, ", "))
	}
}

// burst runs o.calls echo calls with o.concurrency in flight, spread over
// the demo-N servers by their exposed names, through the manager, and
// checks every answer is the caller's own.
func burst(ctx context.Context, m *mcpactor.Manager, demos []target, o options, r *report) {
	ctx, end := r.step(ctx, "burst", "burst: %d echo calls through the manager, %d in flight, over %d servers", o.calls, o.concurrency, len(demos))
	defer end()
	var next atomic.Int64
	lat := make([]latencies, o.concurrency)
	kinds := make([]errorKinds, o.concurrency)
	start := time.Now()
	var wg conc.WaitGroup
	for w := range o.concurrency {
		kinds[w] = errorKinds{}
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(o.calls) {
					return
				}
				t := demos[int(i)%len(demos)]
				msg := fmt.Sprintf("call-%d", i)
				t0 := time.Now()
				res, err := m.CallTool(ctx, t.tools["echo"], map[string]any{"message": msg})
				d := time.Since(t0)
				lat[w] = append(lat[w], d)
				r.record(t.name, d, err, err == nil && res.IsError)
				switch {
				case err != nil:
					kinds[w][kindNames[errorKind(err, false)]]++
				case res.IsError:
					kinds[w][kindNames[kindTool]]++
				case len(res.Content) != 1 || res.Content[0].Text != msg:
					kinds[w]["wrong_answer"]++
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all latencies
	total := errorKinds{}
	for w := range lat {
		all = append(all, lat[w]...)
		for k, n := range kinds[w] {
			total[k] += n
		}
	}
	r.line("calls: %d in %v = %.0f calls/s", len(all), elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds())
	r.line("latency: p50 %v, p99 %v", all.quantile(0.5).Round(time.Microsecond), all.quantile(0.99).Round(time.Microsecond))
	r.line("errors by kind: %s", total)
	if len(total) > 0 {
		r.fail("burst had errors: %s", total)
	}
}

func progress(ctx context.Context, m *mcpactor.Manager, t target, r *report) {
	ctx, end := r.step(ctx, "progress", "progress notifications reach the call that asked for them")
	defer end()
	var seen []string
	t0 := time.Now()
	res, err := m.CallToolWith(ctx, t.tools["progress"], map[string]any{"steps": 4, "intervalMs": 25}, mcpactor.CallOptions{
		OnProgress: func(p messages.ProgressParams) {
			seen = append(seen, fmt.Sprintf("%.0f/%.0f", p.Progress, deref(p.Total)))
		},
	})
	r.record(t.name, time.Since(t0), err, err == nil && res.IsError)
	switch {
	case err != nil:
		r.fail("progress call: %v", err)
	case len(seen) != 4:
		r.fail("progress: got %d notifications, want 4", len(seen))
	default:
		r.line("progress %s, then result %q", strings.Join(seen, " "), res.Content[0].Text)
	}
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func serverRequest(ctx context.Context, m *mcpactor.Manager, t target, r *report) {
	ctx, end := r.step(ctx, "server-request", "server-to-client request answered by our roots handler")
	defer end()
	t0 := time.Now()
	res, err := m.CallTool(ctx, t.tools["ask-client"], map[string]any{"method": "roots/list"})
	r.record(t.name, time.Since(t0), err, err == nil && res.IsError)
	if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, "file:///workspace") {
		r.fail("roots/list round trip: err=%v result=%+v", err, res)
		return
	}
	r.line("the server asked roots/list and got: %s", res.Content[0].Text)
}

func timeoutWithCancel(ctx context.Context, m *mcpactor.Manager, t target, cancels <-chan string, r *report) {
	ctx, end := r.step(ctx, "timeout", "a call that times out is cancelled on the wire (intended: 300 ms allowed for a 10 s sleep)")
	defer end()
	start := time.Now()
	_, err := m.CallToolWith(ctx, t.tools["sleep"], map[string]any{"ms": 10000}, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
	r.record(t.name, time.Since(start), err, false) // the summary counts it: a timeout, as intended
	var te *mcpactor.Error
	if !errors.As(err, &te) || te.Kind != mcpactor.ErrTimeout {
		r.fail("sleep with a 300ms timeout: got %v, want a timeout", err)
		return
	}
	r.line("caller got %q (request id %s) after %v", err, te.ID, time.Since(start).Round(time.Millisecond))
	select {
	case line := <-cancels:
		r.line("server saw: %s", line)
	case <-time.After(5 * time.Second):
		r.fail("the server never reported notifications/cancelled")
	}
	t0 := time.Now()
	_, err = m.CallTool(ctx, t.tools["echo"], map[string]any{"message": "still here"})
	r.record(t.name, time.Since(t0), err, false)
	if err != nil {
		r.fail("connection unusable after a timeout: %v", err)
	}
}

// overHTTP sends concurrent calls to the server served over Streamable
// HTTP: the same calls, another transport.
func overHTTP(ctx context.Context, m *mcpactor.Manager, url string, r *report) {
	ctx, end := r.step(ctx, "http", "%s: Streamable HTTP at %s", httpName, url)
	defer end()
	const calls, inFlight = 100, 8
	echo, ok := exposed(m, httpName, "echo")
	if !ok {
		r.fail("%s offers no echo tool", httpName)
		return
	}
	var next atomic.Int64
	var wrong atomic.Int64
	start := time.Now()
	var wg conc.WaitGroup
	for range inFlight {
		wg.Go(func() {
			for i := next.Add(1); i <= calls; i = next.Add(1) {
				msg := fmt.Sprintf("http-%d", i)
				t0 := time.Now()
				res, err := m.CallTool(ctx, echo, map[string]any{"message": msg})
				r.record(httpName, time.Since(t0), err, err == nil && res.IsError)
				if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != msg {
					wrong.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		r.fail("%s: %d of %d echo calls failed or were answered wrong", httpName, n, calls)
		return
	}
	s, _ := statusOf(m, httpName)
	r.line("%d echo calls, %d in flight, in %v; protocol %s (%s era)", calls, inFlight, time.Since(start).Round(time.Millisecond), s.ProtocolVersion, protocolOf(s.ProtocolVersion))
}

func crash(ctx context.Context, rt *mcpactor.Runtime, r *report) {
	ctx, end := r.step(ctx, "crash", "a server crash with requests in flight is reported (intended: the server exits on purpose)")
	defer end()
	const name = "crashy"
	r.setState(name, "connecting", "")
	c, err := rt.Connect(ctx, name, serverConfig(testserver.Options{}, 30*time.Second))
	if err != nil {
		r.setState(name, "failed to connect", "")
		r.fail("connect crashy: %v", err)
		return
	}
	defer c.Close(context.WithoutCancel(ctx))
	r.setState(name, "ready", c.ProtocolVersion())
	r.line("%s connected, protocol %s negotiated", name, c.ProtocolVersion())
	inflight := make(chan error, 1)
	go func() {
		t0 := time.Now()
		_, err := c.CallTool(ctx, "sleep", map[string]any{"ms": 10000})
		r.record(name, time.Since(t0), err, false)
		inflight <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the sleep reach the server
	t0 := time.Now()
	_, err = c.CallTool(ctx, "crash", map[string]any{"code": 3, "stderr": "fatal: out of cheese"})
	r.record(name, time.Since(t0), err, false)
	if !errors.Is(err, mcpactor.ErrTransportClosed) || !strings.Contains(err.Error(), "out of cheese") {
		r.setState(name, "crash not reported", "")
		r.fail("crash: got %v, want Transport closed with the stderr tail", err)
		return
	}
	r.line("the crashing call got: %v", err)
	select {
	case err := <-inflight:
		if !errors.Is(err, mcpactor.ErrTransportClosed) {
			r.setState(name, "crashed, call in flight misreported", "")
			r.fail("the call in flight got %v, want Transport closed", err)
			return
		}
		r.line("the call in flight got the same error (kind %s)", kindNames[errorKind(err, false)])
		r.setState(name, "crashed (as intended)", "")
	case <-time.After(10 * time.Second):
		r.setState(name, "crashed, call in flight never ended", "")
		r.fail("the call in flight never ended")
	}
}

// logging sets a managed server's log level through its client: the
// manager routes tool calls only.
func logging(ctx context.Context, t target, r *report) {
	ctx, end := r.step(ctx, "logging", "the server's log level is set (logging/setLevel)")
	defer end()
	t0 := time.Now()
	err := t.client.SetLoggingLevel(ctx, messages.LevelInfo)
	r.record(t.name, time.Since(t0), err, false)
	if err != nil {
		r.fail("logging/setLevel: %v", err)
		return
	}
	r.line("%s now sends its log messages at level %s and above", t.name, messages.LevelInfo)
}
