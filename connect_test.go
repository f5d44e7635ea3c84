package mcpactor_test

// Connect: its deadline, the names and URLs it refuses, what a timed-out
// connect shows of the server, and a progress reset without a callback.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// A connect that runs out of time is torn down without waiting out the
// orderly-close grace periods, so the caller gets its answer near its own
// deadline even from a server that ignores stdin EOF and SIGTERM.
func TestConnectDoesNotOverrunItsDeadline(t *testing.T) {
	stuck := mcptest.Stdio("stubborn-stuck")
	stuck.CloseGrace, stuck.TermGrace = 5*time.Second, 5*time.Second // an orderly close would take 10 s

	t.Run("caller deadline", func(t *testing.T) {
		rt := startRuntime(t, mcpactor.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := rt.Connect(ctx, "stuck", stuck)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want the context's deadline", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Connect returned after %v", d)
		}
	})
	t.Run("connect timeout", func(t *testing.T) {
		rt := startRuntime(t, mcpactor.Options{})
		cfg := stuck
		cfg.ConnectTimeout = 300 * time.Millisecond
		start := time.Now()
		_, err := rt.Connect(waitCtx(t), "stuck", cfg)
		var cte *callerr.Error
		if !(errors.As(err, &cte) && callerr.ConnectTimeout(cte) == cte) {
			t.Fatalf("got %v, want a connect timeout", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Connect returned after %v", d)
		}
	})
}

// ResetTimeoutOnProgress alone (no callback) still asks for progress, so the
// progress keeps the call alive past its timeout: the server received a
// progress token.
func TestResetTimeoutOnProgressWithoutCallback(t *testing.T) {
	fake := &mcptest.Server{Tools: []mcptest.Tool{{Name: "progress", Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
		// 8 steps 100 ms apart take 800 ms against a 300 ms timeout.
		for i := 1; i <= 8; i++ {
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			c.Progress(float64(i), 8, "")
		}
		return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("done")}}, nil
	}}}}
	rt := startRuntime(t, mcpactor.Options{})
	t.Cleanup(fake.Close) // after the runtime's Stop: cleanups run last first
	ctx := waitCtx(t)
	c, err := rt.Connect(ctx, "ts", fake.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallToolWith(ctx, "progress", nil, mcpactor.CallOptions{
		Timeout: 300 * time.Millisecond, ResetTimeoutOnProgress: true,
	})
	if err != nil {
		t.Fatalf("progress call: %v", err)
	}
	var meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if calls := fake.Calls(); len(calls) != 1 || json.Unmarshal(calls[0].Meta, &meta) != nil || len(meta.ProgressToken) == 0 {
		t.Errorf("the call carried no progress token: %+v", calls)
	}
}

// TestConnectRefusesBadNames checks that Connect and Open refuse what
// Manager.Add refuses: a name that is not 1 to 100 letters, digits, '-',
// '_' or '.', and a name a live client of the runtime already has (two
// would share one mcpactor.server.name in telemetry, and one name in every
// error). Nothing is started for a refused name: the server hears of none.
func TestConnectRefusesBadNames(t *testing.T) {
	t.Parallel()
	fake := &mcptest.Server{}
	rt := startRuntime(t, mcpactor.Options{})
	t.Cleanup(fake.Close) // after the runtime's Stop: cleanups run last first
	cfg := fake.InProcess()
	for _, name := range []string{"", "has space", "slash/name", strings.Repeat("x", 101)} {
		_, err := rt.Connect(waitCtx(t), name, cfg)
		var ce *mcpactor.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "name must be") {
			t.Errorf("Connect(%q): %v, want a *ConfigError about the name", name, err)
		}
		if _, err := rt.Open(waitCtx(t), name, cfg); !errors.As(err, &ce) {
			t.Errorf("Open(%q): %v, want a *ConfigError", name, err)
		}
	}
	if got := fake.Received(); len(got) != 0 {
		t.Errorf("refused names reached the server: %+v", got)
	}
	c, err := rt.Connect(waitCtx(t), "twin", cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.Connect(waitCtx(t), "twin", cfg)
	var ce *mcpactor.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "already") {
		t.Fatalf("second Connect(twin): %v, want a *ConfigError saying the name is taken", err)
	}
	if n := countOf(fake.Methods(), "initialize"); n != 1 {
		t.Errorf("%d handshakes for one live client: %v", n, fake.Methods())
	}
	if err := c.Close(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	// Once closed, the name is free again.
	c, err = rt.Connect(waitCtx(t), "twin", cfg)
	if err != nil {
		t.Fatalf("Connect(twin) after Close: %v", err)
	}
	c.Close(waitCtx(t))
}

// TestConnectRefusesAManagedName checks that a name a managed server has
// is taken for Connect too, whatever that server's state: here one whose
// every connection fails.
func TestConnectRefusesAManagedName(t *testing.T) {
	t.Parallel()
	fake := &mcptest.Server{}
	rt := startRuntime(t, mcpactor.Options{})
	t.Cleanup(fake.Close)
	refused := func(context.Context) (io.ReadWriteCloser, error) { return nil, errors.New("no server here") }
	if _, err := rt.Manage(waitCtx(t), mcpactor.ManageOptions{NoCache: true,
		Servers: map[string]mcpactor.ServerConfig{"managed": {Dial: refused}}}); err != nil {
		t.Fatalf("Manage: %v", err)
	}
	_, err := rt.Connect(waitCtx(t), "managed", fake.InProcess())
	var ce *mcpactor.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "already") {
		t.Fatalf("Connect(managed): %v, want a *ConfigError saying the name is taken", err)
	}
	c, err := rt.Connect(waitCtx(t), "plain", fake.InProcess())
	if err != nil {
		t.Fatalf("Connect(plain): %v", err)
	}
	c.Close(waitCtx(t))
}

// TestConnectRefusesBadURLs checks that a URL that cannot reach an http
// server is a configuration error at once, with the reason, and without
// the URL's credentials.
func TestConnectRefusesBadURLs(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	for _, u := range []string{"ftp://example.com/mcp", "http://user:s3cr3t-pw@[::1:80/mcp", "localhost:8080/mcp", "http:///mcp"} {
		_, err := rt.Connect(waitCtx(t), "remote", mcpactor.ServerConfig{URL: u})
		var ce *mcpactor.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), `"url"`) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("Connect(%q): %v, want a *ConfigError about the url, without its password", u, err)
		}
	}
}

// countOf counts v in list.
func countOf(list []string, v string) int {
	n := 0
	for _, s := range list {
		if s == v {
			n++
		}
	}
	return n
}

// TestConnectTimeoutShowsSkippedStdout checks that a server that printed
// something other than JSON-RPC on stdout and then never answered the
// handshake times out with an error that says so: how many lines were
// skipped, and the first of them.
func TestConnectTimeoutShowsSkippedStdout(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	cfg := mcptest.Stdio("login-banner")
	// Long enough for the server to start and print its banner on a
	// loaded machine: the handshake is never answered, so the test waits
	// it out whole.
	cfg.ConnectTimeout = 3 * time.Second
	_, err := rt.Connect(waitCtx(t), "banner", cfg)
	var ct *mcpactor.Error
	if !(errors.As(err, &ct) && callerr.ConnectTimeout(ct) == ct) || !errors.Is(err, mcpactor.ErrTimeout) {
		t.Fatalf("Connect: %v, want a connect-timeout error", err)
	}
	if ct.SkippedStdout != 2 || !strings.Contains(err.Error(), "2 non-JSON lines on stdout were skipped") ||
		!strings.Contains(err.Error(), "Please log in first") {
		t.Fatalf("Connect: %q (SkippedStdout %d), want the 2 skipped lines counted and the first shown", err, ct.SkippedStdout)
	}
}
