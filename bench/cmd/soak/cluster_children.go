package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The cluster soak's processes other than members (cluster_member.go)
// are this binary re-executed too: etcd, on fixed ports and a data
// directory so that a restart finds its data and the members find it
// again; and the fleet's test servers, each of which logs every request
// it receives, so that fencing is judged from the servers' side.
const (
	envClusterServer = "MCPACTOR_SOAK_CLUSTER_SERVER" // the server's name
	envClusterLogDir = "MCPACTOR_SOAK_CLUSTER_LOGS"   // where it logs its requests
	envClusterEtcd   = "MCPACTOR_SOAK_CLUSTER_ETCD"   // "dir clientPort peerPort"
)

// runClusterChildIfAsked runs this process as a cluster soak child when
// the environment says so, and exits; otherwise it returns.
func runClusterChildIfAsked() {
	if name := os.Getenv(envClusterServer); name != "" {
		os.Exit(runLoggingServer(name, os.Getenv(envClusterLogDir)))
	}
	if spec := os.Getenv(envClusterEtcd); spec != "" {
		os.Exit(runEtcdChild(spec))
	}
	if spec := os.Getenv(envClusterMember); spec != "" {
		os.Exit(runMemberChild(spec))
	}
}

// runLoggingServer is the test server (internal/testserver) behind a
// reader that logs each request line as it is read from stdin: the
// wall-clock time in nanoseconds, one line per request, written with one
// system call so that a SIGKILL loses none that were received. The file
// is <dir>/<name>.<pid>.log; its first line marks the start.
func runLoggingServer(name, dir string) int {
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%s.%d.log", name, os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak server:", err)
		return 1
	}
	fmt.Fprintf(f, "%d start\n", time.Now().UnixNano())
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			// A request has a method and an id; notifications and the
			// client's answers are not requests written to the server
			// on a caller's behalf.
			if bytes.Contains(line, []byte(`"method"`)) && bytes.Contains(line, []byte(`"id"`)) {
				_, _ = f.WriteString(strconv.FormatInt(time.Now().UnixNano(), 10) + " req\n")
			}
			if _, err := pw.Write(append(line, '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	if err := testserver.Serve(context.Background(), pr, os.Stdout, os.Stderr, testserver.Options{}); err != nil {
		return 1
	}
	return 0
}

// runEtcdChild runs a single-node etcd on the given ports until stdin
// closes; it prints "ready" once it serves.
func runEtcdChild(spec string) int {
	var dir string
	var cp, pp int
	if _, err := fmt.Sscan(spec, &dir, &cp, &pp); err != nil {
		fmt.Fprintln(os.Stderr, "soak etcd:", err)
		return 1
	}
	cfg := embed.NewConfig()
	cfg.Name = "soak"
	cfg.Dir = dir
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(cp)}
	peer := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(pp)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak etcd:", err)
		return 1
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		fmt.Fprintln(os.Stderr, "soak etcd: not ready after 60 s")
		return 1
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	e.Close()
	return 0
}
