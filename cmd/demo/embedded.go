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

// runEmbedded is the demo with no arguments: everything it talks to is a
// real subprocess of its own making.
func runEmbedded(ctx context.Context, o options, logger *slog.Logger, r *report) error {
	cancels := make(chan string, 16) // "cancelled <id> <reason>" lines from the servers' stderr
	var logs atomic.Int64
	rt, err := mcpactor.Start(ctx, mcpactor.Options{
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

	clients, err := connectEmbedded(ctx, rt, o, r)
	if err != nil {
		r.summary()
		return err
	}
	listTools(ctx, clients, r)
	burst(ctx, clients, o, r)
	progress(ctx, clients[0], r)
	serverRequest(ctx, clients[0], r)
	timeoutWithCancel(ctx, clients[0], cancels, r)
	crash(ctx, rt, r)
	logging(ctx, clients[0], r)

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

// connectEmbedded starts the servers and connects them concurrently, each
// with Connect under the step's context.
func connectEmbedded(ctx context.Context, rt *mcpactor.Runtime, o options, r *report) ([]*mcpactor.Client, error) {
	ctx, end := r.step(ctx, "connect", "connecting %d embedded servers concurrently", o.servers)
	defer end()
	start := time.Now()
	clients := make([]*mcpactor.Client, o.servers)
	errs := make([]error, o.servers)
	var wg conc.WaitGroup
	for i := range clients {
		name := fmt.Sprintf("demo-%d", i+1)
		r.setState(name, "connecting", "")
		wg.Go(func() {
			clients[i], errs[i] = rt.Connect(ctx, name, serverConfig(testserver.Options{ReportCancels: true}, o.timeout))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for i, e := range errs {
			if e != nil {
				r.setState(fmt.Sprintf("demo-%d", i+1), "failed to connect", "")
				r.fail("connect demo-%d: %v", i+1, e)
			}
		}
		return nil, fmt.Errorf("connect: %w", err)
	}
	r.line("%d servers up in %v (spawn + initialize, in parallel)", len(clients), time.Since(start).Round(time.Millisecond))
	for _, c := range clients {
		info := c.ServerInfo()
		r.setState(c.Name(), "ready", c.ProtocolVersion())
		r.line("%-8s %s %s, protocol %s negotiated", c.Name(), info.Name, info.Version, c.ProtocolVersion())
	}
	return clients, nil
}

func listTools(ctx context.Context, clients []*mcpactor.Client, r *report) {
	ctx, end := r.step(ctx, "tools", "listing tools")
	defer end()
	for _, c := range clients {
		t0 := time.Now()
		tools, err := c.ListTools(ctx)
		r.record(c.Name(), time.Since(t0), err, false)
		if err != nil {
			r.fail("%s: tools/list: %v", c.Name(), err)
			continue
		}
		r.setTools(c.Name(), len(tools))
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		r.line("%-8s %d tools: %s", c.Name(), len(tools), strings.Join(names, ", "))
	}
}

// burst runs o.calls echo calls with o.concurrency in flight, spread over
// the servers, and checks every answer is the caller's own.
func burst(ctx context.Context, clients []*mcpactor.Client, o options, r *report) {
	ctx, end := r.step(ctx, "burst", "burst: %d echo calls, %d in flight, over %d servers", o.calls, o.concurrency, len(clients))
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
				c := clients[int(i)%len(clients)]
				msg := fmt.Sprintf("call-%d", i)
				t0 := time.Now()
				res, err := c.CallTool(ctx, "echo", map[string]any{"message": msg})
				d := time.Since(t0)
				lat[w] = append(lat[w], d)
				r.record(c.Name(), d, err, err == nil && res.IsError)
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

func progress(ctx context.Context, c *mcpactor.Client, r *report) {
	ctx, end := r.step(ctx, "progress", "progress notifications reach the call that asked for them")
	defer end()
	var seen []string
	t0 := time.Now()
	res, err := c.CallToolWith(ctx, "progress", map[string]any{"steps": 4, "intervalMs": 25}, mcpactor.CallOptions{
		OnProgress: func(p messages.ProgressParams) {
			seen = append(seen, fmt.Sprintf("%.0f/%.0f", p.Progress, deref(p.Total)))
		},
	})
	r.record(c.Name(), time.Since(t0), err, err == nil && res.IsError)
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

func serverRequest(ctx context.Context, c *mcpactor.Client, r *report) {
	ctx, end := r.step(ctx, "server-request", "server-to-client request answered by our roots handler")
	defer end()
	t0 := time.Now()
	res, err := c.CallTool(ctx, "ask-client", map[string]any{"method": "roots/list"})
	r.record(c.Name(), time.Since(t0), err, err == nil && res.IsError)
	if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, "file:///workspace") {
		r.fail("roots/list round trip: err=%v result=%+v", err, res)
		return
	}
	r.line("the server asked roots/list and got: %s", res.Content[0].Text)
}

func timeoutWithCancel(ctx context.Context, c *mcpactor.Client, cancels <-chan string, r *report) {
	ctx, end := r.step(ctx, "timeout", "a call that times out is cancelled on the wire")
	defer end()
	start := time.Now()
	_, err := c.CallToolWith(ctx, "sleep", map[string]any{"ms": 10000}, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
	r.record(c.Name(), time.Since(start), err, false) // the summary counts it: a timeout, as intended
	var te *messages.TimeoutError
	if !errors.As(err, &te) {
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
	_, err = c.CallTool(ctx, "echo", map[string]any{"message": "still here"})
	r.record(c.Name(), time.Since(t0), err, false)
	if err != nil {
		r.fail("connection unusable after a timeout: %v", err)
	}
}

func crash(ctx context.Context, rt *mcpactor.Runtime, r *report) {
	ctx, end := r.step(ctx, "crash", "a server crash with requests in flight is reported")
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

func logging(ctx context.Context, c *mcpactor.Client, r *report) {
	ctx, end := r.step(ctx, "logging", "the server's log level is set (logging/setLevel)")
	defer end()
	t0 := time.Now()
	err := c.SetLoggingLevel(ctx, messages.LevelInfo)
	r.record(c.Name(), time.Since(t0), err, false)
	if err != nil {
		r.fail("logging/setLevel: %v", err)
		return
	}
	r.line("%s now sends its log messages at level %s and above", c.Name(), messages.LevelInfo)
}
