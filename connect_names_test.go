package mcpactor_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

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
