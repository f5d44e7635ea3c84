package mcpactor_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
)

// Approve sees a project file's entry as the ServerConfig it reads as
// (every field a file can write, "maxRestarts": 0 as -1, !command values
// as written), with where it came from and what it would run; refused,
// the server is not started.
func TestApproveSeesTheEntryAsServerConfig(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	doc := `{"mcpServers": {
		"proj": {"command": "srv", "args": ["-v", "${WHO}"], "env": {"K": "v", "T": "!printf tok"}, "cwd": "/tmp",
			"timeout": 7000, "connectTimeout": 2000, "maxInFlight": 8, "queueTimeout": 2500,
			"restart": {"maxRestarts": 0, "window": 1000, "backoffMin": 10, "backoffMax": 20},
			"protocolVersion": "2025-06-18", "keepalive": 15000, "auth": {"type": "apikey", "credentialId": "work"},
			"enabledTools": ["a"], "disabledTools": ["b"], "inheritEnv": "safe"},
		"web": {"type": "sse", "url": "https://h.example/sse", "headers": {"X": "${WHO}"}}
	}}`
	file := filepath.Join(project, ".mcpactor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	asked := map[string]*mcpactor.Server{}
	ctx, _, m := startManager(t, mcpactor.ManageOptions{NoCache: true,
		Discover: &mcpactor.DiscoverOptions{Home: home, ProjectDir: project, Lookup: func(k string) (string, bool) { return "alice", k == "WHO" }},
		Approve: func(s *mcpactor.Server) bool {
			mu.Lock()
			defer mu.Unlock()
			asked[s.Name] = s
			return false
		}})
	defer m.Close(ctx)
	for {
		mu.Lock()
		n := len(asked)
		mu.Unlock()
		if n == 2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("Approve asked about %d servers, want 2", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	want := mcpactor.ServerConfig{Command: "srv", Args: []string{"-v", "alice"}, Env: map[string]string{"K": "v", "T": "!printf tok"}, Cwd: "/tmp",
		ConnectTimeout: 2 * time.Second, RequestTimeout: 7 * time.Second, MaxInFlight: 8, QueueTimeout: 2500 * time.Millisecond,
		Restart:         mcpactor.RestartPolicy{MaxRestarts: -1, Window: time.Second, BackoffMin: 10 * time.Millisecond, BackoffMax: 20 * time.Millisecond},
		ProtocolVersion: "2025-06-18", Keepalive: 15 * time.Second, Identity: "work",
		EnabledTools: []string{"a"}, DisabledTools: []string{"b"}, InheritEnv: mcpactor.EnvInheritSafe}
	p := asked["proj"]
	if d := differentFields(p.Config, want); d != nil {
		t.Errorf("proj's Config differs in %v", d)
	}
	wantSource := mcpactor.Source{Kind: "native", File: file, Level: "project", Project: project}
	if p.Source != wantSource || !p.Enabled || !p.NeedsApproval || p.Hash == "" ||
		!reflect.DeepEqual(p.Commands, []mcpactor.ValueCommand{{Field: "env", Key: "T", Line: "printf tok"}}) {
		t.Errorf("proj = %+v", p)
	}
	wantWeb := mcpactor.ServerConfig{Type: "sse", URL: "https://h.example/sse", Headers: map[string]string{"X": "alice"}}
	if w := asked["web"]; differentFields(w.Config, wantWeb) != nil || w.Commands != nil {
		t.Errorf("web's Config differs in %v, commands %v", differentFields(w.Config, wantWeb), w.Commands)
	}
	for _, st := range m.Status() {
		if st.State != mcpactor.StateRefused {
			t.Errorf("%s: %s, want %s", st.Name, st.State, mcpactor.StateRefused)
		}
	}
}

// differentFields names the fields of two ServerConfigs that differ (a
// ServerConfig prints without most of its values).
func differentFields(got, want mcpactor.ServerConfig) []string {
	var names []string
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			names = append(names, g.Type().Field(i).Name)
		}
	}
	return names
}
