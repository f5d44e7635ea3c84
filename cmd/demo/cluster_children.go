package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor/cluster"
	"github.com/mcpactor/mcpactor/telemetry/otelenv"
)

// The processes of --cluster are this binary started again: an embedded
// etcd, and the members, each serving until its stdin ends.
const (
	envClusterRole = "MCPACTOR_DEMO_CLUSTER_ROLE"
	envClusterSpec = "MCPACTOR_DEMO_CLUSTER_SPEC"
)

// clusterServers are the servers of the demo cluster: our own test server,
// started by whichever member owns each.
var clusterServers = []string{"files", "search", "notes", "mail", "calendar", "weather"}

// childSpec tells a child what to be.
type childSpec struct {
	Name       string        `json:"name,omitempty"`
	Etcd       string        `json:"etcd,omitempty"` // member: etcd's client URL
	Prefix     string        `json:"prefix,omitempty"`
	TTL        time.Duration `json:"ttl,omitempty"`
	Secret     string        `json:"secret,omitempty"`
	Dir        string        `json:"dir,omitempty"` // etcd: data dir
	ClientPort int           `json:"clientPort,omitempty"`
	PeerPort   int           `json:"peerPort,omitempty"`
	// TraceFile, for a member, is where it writes its spans (--trace's
	// file with the member's name appended); the OTEL_* variables it
	// inherits select OTLP exporters too.
	TraceFile string `json:"traceFile,omitempty"`
}

// clusterChild turns the process into a --cluster child when it was
// started as one, and exits; otherwise it returns at once.
func clusterChild() {
	role := os.Getenv(envClusterRole)
	if role == "" {
		return
	}
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(envClusterSpec)), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "demo %s: %v\n", role, err)
		os.Exit(2)
	}
	var err error
	switch role {
	case "etcd":
		err = serveEtcd(spec)
	case "member":
		err = serveMember(spec)
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo %s: %v\n", role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serveEtcd runs a single-node etcd until stdin ends.
func serveEtcd(spec childSpec) error {
	cfg := embed.NewConfig()
	cfg.Name = "demo"
	cfg.Dir = spec.Dir
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(spec.ClientPort)}
	peer := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(spec.PeerPort)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		return fmt.Errorf("etcd not ready after 30 s")
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// memberConfig is a demo member's configuration.
func memberConfig(spec childSpec, callOnly bool) cluster.Config {
	servers := map[string]mcpactor.ServerConfig{}
	path, args, env := testserver.Command(testserver.Options{})
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k != envClusterRole && k != envClusterSpec {
			vars[k] = v
		}
	}
	for _, name := range clusterServers {
		servers[name] = mcpactor.ServerConfig{Command: path, Args: args, Env: vars}
	}
	return cluster.Config{
		Name:     spec.Name,
		Etcd:     cluster.EtcdConfig{Endpoints: []string{spec.Etcd}, Prefix: spec.Prefix},
		LeaseTTL: spec.TTL,
		Servers:  servers,
		Secret:   spec.Secret,
		CallOnly: callOnly,
	}
}

// serveMember runs a member until stdin ends. Its spans (the owner's
// side of each hop and its runtime's calls, in the callers' traces) go
// where spec.TraceFile and the OTEL_* variables say.
func serveMember(spec childSpec) (err error) {
	providers, err := otelenv.Setup(context.Background(), otelenv.Options{
		TraceFile: spec.TraceFile,
		OnError: func(err error) {
			fmt.Fprintf(os.Stderr, "demo member %s: telemetry export failed: %v\n", spec.Name, err)
		},
	})
	if err != nil {
		return err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err = errors.Join(err, providers.Shutdown(ctx))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	m, err := cluster.Start(ctx, memberConfig(spec, false))
	cancel()
	if err != nil {
		return err
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return m.Stop(ctx)
}

// child is a --cluster child process as the demo sees it.
type child struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startChild starts this binary as role with spec and waits for its
// "ready" line.
func startChild(role string, spec childSpec) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(spec)
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envClusterRole+"="+role, envClusterSpec+"="+string(b))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s %s did not start: %q, %v", role, spec.Name, line, err)
	}
	return &child{name: spec.Name, cmd: cmd, stdin: stdin}, nil
}

// stop ends the child (stdin closed) and reaps it, killing it after 15 s.
func (c *child) stop() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() {
		_ = c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// kill ends the child with SIGKILL (TerminateProcess on Windows) and
// reaps it.
func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
