//go:build linux

package cluster

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// The embedded etcd runs in a child process (this test binary again), not
// in the test process: a test can then kill and restart it, and its
// goroutines and gRPC server stay out of the test process's leak check.
const (
	envRole    = "MCPACTOR_CLUSTER_TEST_ROLE"
	envEtcdDir = "MCPACTOR_CLUSTER_TEST_ETCD_DIR"
	envEtcdCP  = "MCPACTOR_CLUSTER_TEST_ETCD_CLIENT_PORT"
	envEtcdPP  = "MCPACTOR_CLUSTER_TEST_ETCD_PEER_PORT"
)

// runEtcdChild serves an embedded single-node etcd until stdin ends.
func runEtcdChild() {
	cfg := embed.NewConfig()
	cfg.Name = "test"
	cfg.Dir = os.Getenv(envEtcdDir)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client := url.URL{Scheme: "http", Host: "127.0.0.1:" + os.Getenv(envEtcdCP)}
	peer := url.URL{Scheme: "http", Host: "127.0.0.1:" + os.Getenv(envEtcdPP)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd:", err)
		os.Exit(1)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		fmt.Fprintln(os.Stderr, "etcd: not ready after 30 s")
		os.Exit(1)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	e.Close()
	os.Exit(0)
}

// etcdProc is an embedded etcd child on fixed ports and a data dir, so
// that a restart finds its data and its clients find it again.
type etcdProc struct {
	dir                  string
	clientPort, peerPort int
	mu                   sync.Mutex
	cmd                  *exec.Cmd
	stdin                io.WriteCloser
}

func (e *etcdProc) endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(e.clientPort) }

func newEtcd() (*etcdProc, error) {
	dir, err := os.MkdirTemp("", "mcpactor-cluster-etcd-")
	if err != nil {
		return nil, err
	}
	e := &etcdProc{dir: dir}
	if e.clientPort, err = harness.FreePort(); err != nil {
		return nil, err
	}
	if e.peerPort, err = harness.FreePort(); err != nil {
		return nil, err
	}
	return e, e.start()
}

func (e *etcdProc) start() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self)
	cmd.Env = append(childEnv(), envRole+"=etcd", envEtcdDir+"="+e.dir,
		envEtcdCP+"="+strconv.Itoa(e.clientPort), envEtcdPP+"="+strconv.Itoa(e.peerPort))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("etcd child: %q, %v", line, err)
	}
	e.mu.Lock()
	e.cmd, e.stdin = cmd, stdin
	e.mu.Unlock()
	return nil
}

// stop ends the child: gracefully (stdin closed), or with SIGKILL.
func (e *etcdProc) stop(kill bool) {
	e.mu.Lock()
	cmd, stdin := e.cmd, e.stdin
	e.cmd = nil
	e.mu.Unlock()
	if cmd == nil {
		return
	}
	if kill {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	stdin.Close()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// privateEtcd starts an etcd for the test alone, stopped and removed when
// it ends.
func privateEtcd(t testing.TB) *etcdProc {
	t.Helper()
	e, err := newEtcd()
	if err != nil {
		t.Fatalf("embedded etcd: %v", err)
	}
	t.Cleanup(func() {
		e.stop(false)
		os.RemoveAll(e.dir)
	})
	return e
}

var (
	sharedEtcdOnce sync.Once
	sharedEtcd     *etcdProc
	sharedEtcdErr  error
)

// etcdFor returns the etcd shared by the tests (each uses a prefix of its
// own), starting it on first use.
func etcdFor(t testing.TB) *etcdProc {
	t.Helper()
	sharedEtcdOnce.Do(func() { sharedEtcd, sharedEtcdErr = newEtcd() })
	if sharedEtcdErr != nil {
		t.Fatalf("embedded etcd: %v", sharedEtcdErr)
	}
	return sharedEtcd
}

func stopSharedEtcd() {
	if sharedEtcd != nil {
		sharedEtcd.stop(false)
		os.RemoveAll(sharedEtcd.dir)
	}
}

// childEnv is this process's environment without the role variables, and
// with GORACE's exit sleep off, as testserver.Command does.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "MCPACTOR_CLUSTER_TEST_") || strings.HasPrefix(kv, "GORACE=") || strings.HasPrefix(kv, "MCPACTOR_TESTSERVER") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}
