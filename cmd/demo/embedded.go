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
		return err
	}
	listTools(ctx, clients, r)
	burst(ctx, clients, o, r)
	progress(ctx, clients[0], r)
	serverRequest(ctx, clients[0], r)
	timeoutWithCancel(ctx, clients[0], cancels, r)
	crash(ctx, rt, r)
	if err := clients[0].SetLoggingLevel(ctx, messages.LevelInfo); err != nil {
		r.fail("logging/setLevel: %v", err)
	}
	r.step("shutdown")
	start := time.Now()
	if err := rt.Stop(ctx); err != nil {
		r.fail("stop: %v", err)
	}
	r.line("all servers stopped and reaped in %v (log notifications received: %d)", time.Since(start).Round(time.Millisecond), logs.Load())
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

func connectEmbedded(ctx context.Context, rt *mcpactor.Runtime, o options, r *report) ([]*mcpactor.Client, error) {
	r.step("connecting %d embedded servers concurrently", o.servers)
	start := time.Now()
	clients := make([]*mcpactor.Client, o.servers)
	for i := range clients {
		c, err := rt.Open(fmt.Sprintf("demo-%d", i+1), serverConfig(testserver.Options{ReportCancels: true}, o.timeout))
		if err != nil {
			return nil, err
		}
		clients[i] = c
	}
	for _, c := range clients {
		if err := c.WaitReady(ctx); err != nil {
			return nil, fmt.Errorf("connect %s: %w", c.Name(), err)
		}
	}
	r.line("%d servers up in %v (spawn + initialize, in parallel)", len(clients), time.Since(start).Round(time.Millisecond))
	for _, c := range clients {
		info := c.ServerInfo()
		r.line("%-8s %s %s, protocol %s", c.Name(), info.Name, info.Version, c.ProtocolVersion())
	}
	return clients, nil
}

func listTools(ctx context.Context, clients []*mcpactor.Client, r *report) {
	r.step("listing tools")
	for _, c := range clients {
		tools, err := c.ListTools(ctx)
		if err != nil {
			r.fail("%s: tools/list: %v", c.Name(), err)
			continue
		}
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
	r.step("burst: %d echo calls, %d in flight, over %d servers", o.calls, o.concurrency, len(clients))
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
				lat[w] = append(lat[w], time.Since(t0))
				switch {
				case err != nil:
					kinds[w][errorKind(err)]++
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
	r.step("progress notifications reach the call that asked for them")
	var seen []string
	res, err := c.CallToolWith(ctx, "progress", map[string]any{"steps": 4, "intervalMs": 25}, mcpactor.CallOptions{
		OnProgress: func(p messages.ProgressParams) {
			seen = append(seen, fmt.Sprintf("%.0f/%.0f", p.Progress, deref(p.Total)))
		},
	})
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
	r.step("server-to-client request answered by our roots handler")
	res, err := c.CallTool(ctx, "ask-client", map[string]any{"method": "roots/list"})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, "file:///workspace") {
		r.fail("roots/list round trip: err=%v result=%+v", err, res)
		return
	}
	r.line("the server asked roots/list and got: %s", res.Content[0].Text)
}

func timeoutWithCancel(ctx context.Context, c *mcpactor.Client, cancels <-chan string, r *report) {
	r.step("a call that times out is cancelled on the wire")
	start := time.Now()
	_, err := c.CallToolWith(ctx, "sleep", map[string]any{"ms": 10000}, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
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
	if _, err := c.CallTool(ctx, "echo", map[string]any{"message": "still here"}); err != nil {
		r.fail("connection unusable after a timeout: %v", err)
	}
}

func crash(ctx context.Context, rt *mcpactor.Runtime, r *report) {
	r.step("a server crash with requests in flight is reported")
	c, err := rt.Connect(ctx, "crashy", serverConfig(testserver.Options{}, 30*time.Second))
	if err != nil {
		r.fail("connect crashy: %v", err)
		return
	}
	defer c.Close(ctx)
	inflight := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "sleep", map[string]any{"ms": 10000})
		inflight <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the sleep reach the server
	_, err = c.CallTool(ctx, "crash", map[string]any{"code": 3, "stderr": "fatal: out of cheese"})
	if !errors.Is(err, mcpactor.ErrTransportClosed) || !strings.Contains(err.Error(), "out of cheese") {
		r.fail("crash: got %v, want Transport closed with the stderr tail", err)
		return
	}
	r.line("the crashing call got: %v", err)
	select {
	case err := <-inflight:
		if !errors.Is(err, mcpactor.ErrTransportClosed) {
			r.fail("the call in flight got %v, want Transport closed", err)
			return
		}
		r.line("the call in flight got the same error (kind %s)", errorKind(err))
	case <-time.After(10 * time.Second):
		r.fail("the call in flight never ended")
	}
}

// errorKind names an error for the summary, as telemetry's error.type does.
func errorKind(err error) string {
	var rpc *messages.RPCError
	switch {
	case errors.As(err, &rpc):
		return fmt.Sprintf("rpc_%d", rpc.Code)
	case errors.Is(err, messages.ErrTimeout):
		return "timeout"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	case errors.Is(err, messages.ErrTransportClosed):
		return "transport_closed"
	}
	return "other"
}
