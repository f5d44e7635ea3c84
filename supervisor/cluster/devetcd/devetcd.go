// Package devetcd starts a single-node etcd inside the process, on
// loopback, for a laptop, a demo or a test of a cluster
// (github.com/mcpactor/mcpactor/supervisor/cluster): no external
// service, ready in about a second, stopped without a line of output.
//
// It is not for production: one node is no quorum (its loss is the
// cluster's), it listens without TLS or authentication (on loopback
// only), and it links etcd's server into the program. docs/cluster.md
// has the production recipe: an external etcd cluster of three or five
// nodes, reached over TLS with a user and password, and members with
// mutual TLS and a secret.
package devetcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Etcd is a running development etcd.
type Etcd struct {
	e        *embed.Etcd
	endpoint string
	dir      string
	ownDir   bool
}

// Start starts a single-node etcd on 127.0.0.1 (free ports), with its
// data in dir (a temporary directory, removed by Stop, when dir is
// empty), and returns once it serves, or ctx ends.
func Start(ctx context.Context, dir string) (*Etcd, error) {
	own := dir == ""
	if own {
		var err error
		if dir, err = os.MkdirTemp("", "mcpactor-devetcd-"); err != nil {
			return nil, fmt.Errorf("devetcd: %w", err)
		}
	}
	cleanup := func() {
		if own {
			os.RemoveAll(dir)
		}
	}
	clientPort, err1 := freePort()
	peerPort, err2 := freePort()
	if err := errors.Join(err1, err2); err != nil {
		cleanup()
		return nil, fmt.Errorf("devetcd: %w", err)
	}
	cfg := embed.NewConfig()
	cfg.Name = "dev"
	cfg.Dir = dir
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(clientPort)}
	peer := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(peerPort)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("devetcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		cleanup()
		return nil, fmt.Errorf("devetcd: %w", err)
	case <-ctx.Done():
		e.Close()
		cleanup()
		return nil, fmt.Errorf("devetcd: not ready: %w", ctx.Err())
	}
	return &Etcd{e: e, endpoint: client.String(), dir: dir, ownDir: own}, nil
}

// Endpoint is the client URL to put in cluster.EtcdConfig.Endpoints.
func (d *Etcd) Endpoint() string { return d.endpoint }

// Stop stops etcd and, if Start made its data directory, removes it.
func (d *Etcd) Stop() error {
	d.e.Close()
	if d.ownDir {
		return os.RemoveAll(d.dir)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
