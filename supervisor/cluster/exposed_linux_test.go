//go:build linux

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// TestExposedLikeManager: a member's Exposed lists every server's tools
// under the names a Manager running the same servers gives them, calls
// by those names (a tenant's sessions apart from the shared ones),
// refuses unknown names with *mcpactor.Error as the Manager
// does, and reports a status per server by the user's name.
func TestExposedLikeManager(t *testing.T) {
	c := newCluster(t, 2, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()

	local := localManager(t, c)
	want := names(local.ListTools())

	shared := c.driver.Exposed()
	if got := shared.ListTools(); len(got) != 0 {
		t.Errorf("ListTools before any activation = %v, want none (nothing listed yet)", names(got))
	}
	for _, st := range shared.Status() {
		if st.State != mcpactor.StateConnecting || !st.ToolsPending {
			t.Errorf("Status before any activation: %+v, want connecting, tools pending", st)
		}
	}
	loaded, err := shared.LoadTools(ctx)
	if err != nil || !slices.Equal(names(loaded), want) {
		t.Fatalf("LoadTools = %v, %v; want the Manager's %v", names(loaded), err, want)
	}
	for _, tool := range loaded {
		if !slices.Contains(testServers, tool.Server) || tool.Name != "mcp__"+tool.Server+"__"+tool.Tool.Name {
			t.Errorf("tool %+v: server or name not the user's", tool)
		}
	}
	if got := names(shared.ListTools()); !slices.Equal(got, want) {
		t.Errorf("ListTools after LoadTools = %v, want %v", got, want)
	}

	var api toolCaller = shared
	for _, srv := range testServers {
		res, err := api.CallTool(ctx, "mcp__"+srv+"__echo", map[string]any{"message": "to " + srv})
		if err != nil || len(res.Content) == 0 || res.Content[0].Text != "to "+srv {
			t.Fatalf("CallTool(mcp__%s__echo) = %+v, %v", srv, res, err)
		}
	}
	for _, name := range []string{"mcp__alpha__nope", "nope", "mcp__nope__echo"} {
		_, err := api.CallTool(ctx, name, nil)
		_, lerr := local.CallTool(ctx, name, nil)
		var unknown, lunknown *mcpactor.Error
		if !(errors.As(err, &unknown) && callerr.UnknownTool(unknown) == unknown) || unknown.Tool != name || !errors.Is(err, mcpactor.ErrNotFound) ||
			!(errors.As(lerr, &lunknown) && callerr.UnknownTool(lunknown) == lunknown) || lunknown.Error() != unknown.Error() {
			t.Errorf("CallTool(%s) = %v; the Manager's: %v", name, err, lerr)
		}
	}

	status := api.Status()
	if got := statusNames(status); !slices.Equal(got, testServers) {
		t.Errorf("Status names = %v, want %v", got, testServers)
	}
	for _, st := range status {
		if st.State != mcpactor.StateReady || st.Tools != len(want)/len(testServers) || !st.Cached {
			t.Errorf("driver's Status of %s = %+v, want ready, every tool, from the cache", st.Name, st)
		}
	}
	// The owner reports its manager's own status under the user's name.
	p, ok := c.driver.Owner(Identity{Server: "alpha"})
	if !ok {
		t.Fatal("alpha has no owner")
	}
	r := c.member(p.Member).do(control{Op: "exposed-status"})
	var owned []mcpactor.ServerStatus
	if r.Err != "" || json.Unmarshal([]byte(r.Text), &owned) != nil {
		t.Fatalf("owner's exposed status: %+v", r)
	}
	if i := slices.IndexFunc(owned, func(s mcpactor.ServerStatus) bool { return s.Name == "alpha" }); i < 0 ||
		owned[i].State != mcpactor.StateReady || owned[i].Generation == 0 || owned[i].ProtocolVersion == "" {
		t.Errorf("owner's Status = %+v, want alpha ready with its connection", owned)
	}

	// A tenant's exposed calls are its own sessions, by the same names.
	alice := c.driver.As("alice").Exposed()
	if _, err := alice.CallTool(ctx, "mcp__beta__echo", map[string]any{"message": "alice"}); err != nil {
		t.Fatalf("alice CallTool: %v", err)
	}
	if _, ok := c.driver.Owner(Identity{Server: "beta", Tenant: "alice"}); !ok {
		t.Error("alice's call did not activate her session of beta")
	}
	if _, ok := c.driver.Owner(Identity{Server: "alpha", Tenant: "alice"}); ok {
		t.Error("alice's call of beta activated her alpha too")
	}
}

// TestExposedCallOptions: Timeout and MaxTotalTimeout reach the owner's
// request to the server (each ends a long call with the owner's
// an ErrTimeout *mcpactor.Error, long before the server would answer) and Meta
// is sent as params._meta. OnProgress: progress_linux_test.go.
func TestExposedCallOptions(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	api := c.driver.Exposed()
	if _, err := api.LoadTools(ctx); err != nil {
		t.Fatal(err)
	}
	const sleep = 20 * time.Second // longer than any bound below, shorter than waitLimit
	for _, opts := range []mcpactor.CallOptions{
		{Timeout: 300 * time.Millisecond},
		{Timeout: time.Minute, ResetTimeoutOnProgress: true, MaxTotalTimeout: 300 * time.Millisecond},
	} {
		start := time.Now()
		_, err := api.CallToolWith(ctx, "mcp__alpha__sleep", map[string]any{"ms": sleep.Milliseconds()}, opts)
		var timeout *mcpactor.Error
		if !errors.Is(err, mcpactor.ErrTimeout) || !(errors.As(err, &timeout) && callerr.Timeout(timeout) == timeout) || time.Since(start) >= sleep/2 {
			t.Errorf("CallToolWith(%+v) = %v after %v, want the owner's timeout well before %v", opts, err, time.Since(start), sleep)
		}
	}

	res, err := api.CallToolWith(ctx, "mcp__alpha__trace-meta", nil, mcpactor.CallOptions{Meta: messages.Meta{"example.com/request": "r-1"}})
	if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, `"example.com/request":"r-1"`) {
		t.Errorf("CallToolWith(Meta) = %+v, %v; want the _meta sent", res, err)
	}

}

// localManager is a Manager in the test process running the servers the
// cluster runs, for comparison.
func localManager(t *testing.T, c *testCluster) *mcpactor.Manager {
	t.Helper()
	spec := c.base
	spec.Name = "local"
	cfg := spec.config()
	servers := map[string]mcpactor.ServerConfig{}
	for _, srv := range testServers {
		sc, err := cfg.ServerFor(Identity{Server: srv}, mcpactor.ServerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		servers[srv] = sc
	}
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := rt.Stop(ctx); err != nil {
			t.Errorf("local runtime Stop: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Status() {
		if st.State != mcpactor.StateReady {
			t.Fatalf("local manager: %+v", st)
		}
	}
	return m
}

func names(tools []mcpactor.ManagedTool) []string {
	out := make([]string, len(tools))
	for i, tool := range tools {
		out[i] = tool.Name
	}
	return out
}

func statusNames(in []mcpactor.ServerStatus) []string {
	out := make([]string, len(in))
	for i, st := range in {
		out[i] = st.Name
	}
	return out
}

// TestExposedPromptsAndResources: a member's Exposed lists prompts by the
// exposed names a Manager running the same servers gives them, renders
// one by that name on its owner (another member), refuses an unknown
// name with the Manager's error, and lists and reads resources by
// server and URI as the Manager does; a tenant's are its own sessions'
// (issue 34, item 14).
func TestExposedPromptsAndResources(t *testing.T) {
	c := newCluster(t, 2, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	local := localManager(t, c)
	c.eventually("the local manager lists every server's prompts and resources", func() bool {
		return len(local.ListPrompts()) > 0 && len(promptServers(local.ListPrompts())) == len(testServers) &&
			len(resourceServers(local.ListResources())) == len(testServers)
	})
	wantPrompts, wantResources := promptNames(local.ListPrompts()), resourceKeys(local.ListResources())

	api := c.driver.Exposed()
	if got := api.ListPrompts(); len(got) != 0 {
		t.Errorf("ListPrompts before LoadPrompts = %v, want none", promptNames(got))
	}
	loaded, err := api.LoadPrompts(ctx)
	if err != nil || !slices.Equal(promptNames(loaded), wantPrompts) {
		t.Fatalf("LoadPrompts = %v, %v; want the Manager's %v", promptNames(loaded), err, wantPrompts)
	}
	if got := promptNames(api.ListPrompts()); !slices.Equal(got, wantPrompts) {
		t.Errorf("ListPrompts after LoadPrompts = %v, want %v", got, wantPrompts)
	}
	for _, srv := range testServers {
		name := "mcp__" + srv + "__greet"
		got, err := api.GetPrompt(ctx, name, map[string]string{"name": srv})
		want, lerr := local.GetPrompt(ctx, name, map[string]string{"name": srv})
		if err != nil || lerr != nil || len(got.Messages) != 1 || got.Messages[0].Content.Text != want.Messages[0].Content.Text {
			t.Fatalf("GetPrompt(%s) = %+v, %v; the Manager's %+v, %v", name, got, err, want, lerr)
		}
	}
	for _, name := range []string{"mcp__alpha__nope", "nope"} {
		_, err := api.GetPrompt(ctx, name, nil)
		_, lerr := local.GetPrompt(ctx, name, nil)
		var unknown, lunknown *mcpactor.Error
		if !(errors.As(err, &unknown) && callerr.UnknownTool(unknown) == unknown) || !(errors.As(lerr, &lunknown) && callerr.UnknownTool(lunknown) == lunknown) || unknown.Error() != lunknown.Error() || !errors.Is(err, mcpactor.ErrNotFound) {
			t.Errorf("GetPrompt(%s) = %v; the Manager's: %v", name, err, lerr)
		}
	}

	if got := api.ListResources(); len(got) != 0 {
		t.Errorf("ListResources before LoadResources = %v, want none", resourceKeys(got))
	}
	res, err := api.LoadResources(ctx)
	if err != nil || !slices.Equal(resourceKeys(res), wantResources) {
		t.Fatalf("LoadResources = %v, %v; want the Manager's %v", resourceKeys(res), err, wantResources)
	}
	first := res[0]
	got, err := api.ReadResource(ctx, first.Server, first.Resource.URI)
	want, lerr := local.ReadResource(ctx, first.Server, first.Resource.URI)
	if err != nil || lerr != nil || len(got.Contents) == 0 || len(got.Contents) != len(want.Contents) || got.Contents[0].URI != want.Contents[0].URI {
		t.Fatalf("ReadResource(%s, %s) = %+v, %v; the Manager's %+v, %v", first.Server, first.Resource.URI, got, err, want, lerr)
	}

	// A tenant's prompts come from its own sessions.
	alice := c.driver.As("alice").Exposed()
	if len(alice.ListPrompts()) != 0 {
		t.Error("alice's ListPrompts shows the shared sessions' prompts")
	}
	if _, err := alice.GetPrompt(ctx, "mcp__gamma__simple", nil); err != nil {
		t.Fatalf("alice GetPrompt: %v", err)
	}
	if _, ok := c.driver.Owner(Identity{Server: "gamma", Tenant: "alice"}); !ok {
		t.Error("alice's GetPrompt did not activate her session of gamma")
	}
}

func promptNames(in []mcpactor.ManagedPrompt) []string {
	out := make([]string, len(in))
	for i, p := range in {
		out[i] = p.Name
	}
	return out
}

func promptServers(in []mcpactor.ManagedPrompt) map[string]bool {
	out := map[string]bool{}
	for _, p := range in {
		out[p.Server] = true
	}
	return out
}

func resourceServers(in []mcpactor.ManagedResource) map[string]bool {
	out := map[string]bool{}
	for _, r := range in {
		out[r.Server] = true
	}
	return out
}

func resourceKeys(in []mcpactor.ManagedResource) []string {
	out := make([]string, len(in))
	for i, r := range in {
		out[i] = r.Server + " " + r.Resource.URI
	}
	return out
}
