package cluster_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/supervisor/cluster"
	"github.com/mcpactor/mcpactor/supervisor/cluster/devetcd"
)

// A member on a laptop: a development etcd in the process, the member on
// loopback. In production, Etcd names an external etcd cluster (TLS, a
// user and password), and a member that listens beyond loopback needs
// mutual TLS and a Secret (docs/cluster.md).
func Example_development() {
	ctx := context.Background()
	etcd, err := devetcd.Start(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	defer etcd.Stop()

	m, err := cluster.Start(ctx, cluster.Config{
		Etcd:     cluster.EtcdConfig{Endpoints: []string{etcd.Endpoint()}},
		LeaseTTL: 2 * time.Second,
		Servers:  map[string]mcpactor.ServerConfig{"files": {Command: "files-server"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Stop(ctx)
	res, err := m.CallTool(ctx, "files", "read", map[string]any{"path": "README.md"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
}
