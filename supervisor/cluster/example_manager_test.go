package cluster_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/cluster"
	"github.com/mcpactor/mcpactor/supervisor/cluster/devetcd"
)

// tools is the part of *mcpactor.Manager that the agent below uses;
// cluster.Exposed has the same methods.
type tools interface {
	ListTools() []mcpactor.ManagedTool
	CallToolWith(ctx context.Context, exposed string, args any, opts mcpactor.CallOptions) (*messages.CallToolResult, error)
	Status() []mcpactor.ServerStatus
}

// agent is code written against the Manager: it knows nothing of
// clusters.
func agent(ctx context.Context, t tools) error {
	for _, tool := range t.ListTools() {
		fmt.Println(tool.Name, "from", tool.Server)
	}
	res, err := t.CallToolWith(ctx, "mcp__files__read", map[string]any{"path": "README.md"},
		mcpactor.CallOptions{Timeout: 10 * time.Second})
	if err != nil {
		return err
	}
	fmt.Println(res.Content[0].Text)
	return nil
}

// The same agent on one machine and on a cluster: only the construction
// changes, from Runtime.Manage to a member's Exposed. A tenant's
// sessions are m.As(tenant).Exposed(). (It runs a server command, so it
// is compiled, not run, by go test.)
func Example_managerAPI() {
	ctx := context.Background()
	servers := map[string]mcpactor.ServerConfig{"files": {Command: "files-server"}}

	// One machine.
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Stop(ctx)
	mgr, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: servers})
	if err != nil {
		log.Fatal(err)
	}
	if err := agent(ctx, mgr); err != nil {
		log.Fatal(err)
	}

	// A cluster (here of one member, on a development etcd).
	etcd, err := devetcd.Start(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	defer etcd.Stop()
	m, err := cluster.Start(ctx, cluster.Config{
		Etcd:    cluster.EtcdConfig{Endpoints: []string{etcd.Endpoint()}},
		Servers: servers,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Stop(ctx)
	exposed := m.Exposed()
	// Runtime.Manage starts every server before it returns; a cluster
	// starts a session at its first call. LoadTools starts those never
	// listed, so that ListTools offers every tool from the start.
	if _, err := exposed.LoadTools(ctx); err != nil {
		log.Fatal(err)
	}
	if err := agent(ctx, exposed); err != nil {
		log.Fatal(err)
	}
}
