//go:build linux

package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/telemetry"
)

// A member child is this test binary started with the role "member": it
// joins the cluster described by memberSpec and runs calls it reads from
// stdin (control lines), answering on stdout, until stdin ends.
const (
	envMemberSpec = "MCPACTOR_CLUSTER_TEST_MEMBER"
	// envIdentity marks each test server process with
	// "<run>|<member>|<identity>", so that the tests can count them.
	envIdentity = "MCPACTOR_CLUSTER_TEST_IDENTITY"
)

// testServers are the servers of every test cluster.
var testServers = []string{"alpha", "beta", "gamma"}

// tenantVersions gives each test tenant's session a protocol version of
// its own (testserver.Options.ProtocolVersion), so that a test can tell
// from Info which process answered.
var tenantVersions = map[string]string{"": "2025-11-25", "alice": "2025-03-26", "bob": "2025-06-18"}

// silentTenant's servers never answer server/discover (nor any method
// they do not know), as some session-era servers do: a client that probes
// waits out silentProbe.
const (
	silentTenant = "silent"
	silentProbe  = 5 * time.Second
)

type memberSpec struct {
	Name     string        `json:"name"`
	Endpoint string        `json:"endpoint"`
	Prefix   string        `json:"prefix"`
	TTL      time.Duration `json:"ttl"`
	Secret   string        `json:"secret"`
	Run      string        `json:"run"`
	CallOnly bool          `json:"callOnly"`
	// BenchGRPC makes the member serve serveBenchGRPC too, and answer
	// its address in the ready line.
	BenchGRPC bool `json:"benchGRPC,omitempty"`
	// Servers, when set, configures that many servers (serverNames)
	// instead of testServers.
	Servers int `json:"servers,omitempty"`
	// Restart is every server's restart policy (the manager's defaults
	// when zero).
	Restart mcpactor.RestartPolicy `json:"restart,omitzero"`
	// DisabledTools are every server's DisabledTools.
	DisabledTools []string `json:"disabledTools,omitempty"`
	// PanicTenant, when set, makes ServerFor panic for that tenant.
	PanicTenant string `json:"panicTenant,omitempty"`
	// TeeDir, when set, runs each server behind tee(1), which appends
	// everything the member writes to the server to
	// TeeDir/<member>.<identity>.log: the server's own log of what it
	// was sent.
	TeeDir string `json:"teeDir,omitempty"`
	// LogDir, when set, runs every server as a logging server
	// (loggingServer: its log of each request it read, in LogDir), after
	// SlowStart.
	LogDir    string        `json:"logDir,omitempty"`
	SlowStart time.Duration `json:"slowStart,omitempty"`
	// MaxServeTimeout and MaxTenantActivations are the Config's.
	MaxServeTimeout time.Duration `json:"maxServeTimeout,omitempty"`
	// CallTimeout is the Config's (every member's and the driver's).
	CallTimeout          time.Duration `json:"callTimeout,omitempty"`
	MaxTenantActivations int           `json:"maxTenantActivations,omitempty"`
	// Traced records the member's spans and metric points (childTrace),
	// for the "spans" and "metric-servers" controls.
	Traced bool `json:"traced,omitempty"`
	// TaskURL, when set, adds the server taskServer reached over HTTP
	// at this URL (tasks_linux_test.go).
	TaskURL string `json:"taskURL,omitempty"`
}

// serverNames are the servers of a member spec.
func (s memberSpec) serverNames() []string {
	if s.Servers == 0 {
		return testServers
	}
	names := make([]string, s.Servers)
	for i := range names {
		names[i] = fmt.Sprintf("s%03d", i)
	}
	return names
}

// config is the member's Config: the test servers, each identity's
// process marked for counting.
func (s memberSpec) config() Config {
	servers := map[string]mcpactor.ServerConfig{}
	for _, name := range s.serverNames() {
		servers[name] = mcpactor.ServerConfig{}
	}
	if s.TaskURL != "" {
		servers[taskServer] = mcpactor.ServerConfig{URL: s.TaskURL}
	}
	tel := telemetry.Options{Propagator: propagation.TraceContext{}}
	if s.Traced {
		tel.TracerProvider, tel.MeterProvider = childTrace.providers()
		tel.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	return Config{
		Name:            s.Name,
		Etcd:            EtcdConfig{Endpoints: []string{s.Endpoint}, Prefix: s.Prefix},
		LeaseTTL:        s.TTL,
		Servers:         servers,
		Secret:          s.Secret,
		CallOnly:        s.CallOnly,
		MaxServeTimeout: s.MaxServeTimeout, MaxTenantActivations: s.MaxTenantActivations,
		CallTimeout: s.CallTimeout,
		// W3C propagation into _meta, for TestTraceCrossesMembers: the
		// global propagator propagates nothing until an application
		// installs one.
		Runtime: mcpactor.Options{Telemetry: tel},
		ServerFor: func(id Identity, _ mcpactor.ServerConfig) (mcpactor.ServerConfig, error) {
			if s.PanicTenant != "" && id.Tenant == s.PanicTenant {
				panic("ServerFor of tenant " + id.Tenant)
			}
			if id.Server == taskServer {
				return mcpactor.ServerConfig{URL: s.TaskURL, Identity: id.Tenant}, nil
			}
			if s.LogDir != "" {
				return loggingServer(s, id), nil
			}
			path, args, env := testserver.Command(testserver.Options{ProtocolVersion: tenantVersions[id.Tenant], SilentOnUnknown: id.Tenant == silentTenant})
			m := map[string]string{}
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				if !strings.HasPrefix(k, "MCPACTOR_CLUSTER_TEST_") {
					m[k] = v
				}
			}
			m[envIdentity] = s.Run + "|" + s.Name + "|" + id.String()
			if s.TeeDir != "" {
				m["MCPACTOR_TEE_LOG"] = filepath.Join(s.TeeDir, s.Name+"."+id.String()+".log")
				path, args = "/bin/sh", append([]string{"-c", `tee -a "$MCPACTOR_TEE_LOG" | exec "$@"`, "sh", path}, args...)
			}
			return mcpactor.ServerConfig{Command: path, Args: args, Env: m, Identity: id.Tenant, ProbeTimeout: silentProbe, Restart: s.Restart, DisabledTools: s.DisabledTools}, nil
		},
	}
}

// control is one line to a member child, and its answer.
type control struct {
	Seq    int             `json:"seq"`
	Op     string          `json:"op"` // "call", "info", "status"
	Server string          `json:"server"`
	Tenant string          `json:"tenant,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
}

type controlReply struct {
	Seq    int    `json:"seq"`
	Text   string `json:"text,omitempty"`
	Member string `json:"member,omitempty"`
	Err    string `json:"err,omitempty"`
	Lost   bool   `json:"lost,omitempty"`
}

func runChild() {
	switch os.Getenv(envRole) {
	case "etcd":
		runEtcdChild()
	case "member":
		runMemberChild()
	case "logserver":
		runLogServer()
	}
}

func runMemberChild() {
	var spec memberSpec
	if err := json.Unmarshal([]byte(os.Getenv(envMemberSpec)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "member spec:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	m, err := Start(ctx, spec.config())
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "member start:", err)
		os.Exit(1)
	}
	out := json.NewEncoder(os.Stdout)
	var outMu sync.Mutex
	reply := func(r controlReply) {
		outMu.Lock()
		defer outMu.Unlock()
		_ = out.Encode(r)
	}
	ready := controlReply{Seq: 0, Member: m.Name()}
	if spec.BenchGRPC {
		if ready.Text, err = serveBenchGRPC(); err != nil {
			fmt.Fprintln(os.Stderr, "bench gRPC:", err)
			os.Exit(1)
		}
		if err := serveBenchEcho(m); err != nil {
			fmt.Fprintln(os.Stderr, "bench echo actor:", err)
			os.Exit(1)
		}
	}
	reply(ready)
	var wg sync.WaitGroup
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c control
		if json.Unmarshal(sc.Bytes(), &c) != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply(runControl(m, c))
		}()
	}
	wg.Wait()
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	if err := m.Stop(sctx); err != nil {
		fmt.Fprintln(os.Stderr, "member stop:", err)
	}
	os.Exit(0)
}

func runControl(m *Member, c control) controlReply {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := controlReply{Seq: c.Seq}
	var err error
	switch c.Op {
	case "call":
		var res interface{ text() string }
		res, err = callText(ctx, m.As(c.Tenant), c.Server, c.Tool, c.Args)
		if err == nil {
			r.Text = res.text()
		}
	case "info":
		var info SessionInfo
		info, err = m.As(c.Tenant).Info(ctx, c.Server)
		r.Member, r.Text = info.Member, info.ProtocolVersion
	case "status":
		var b []byte
		b, err = json.Marshal(ownedStatuses(m.Status()))
		r.Member, r.Text = m.Name(), string(b)
	case "exposed-status":
		var b []byte
		// Without LastError, an interface JSON cannot decode.
		var list []mcpactor.ServerStatus
		for _, st := range m.As(c.Tenant).Exposed().Status() {
			st.LastError = nil
			list = append(list, st)
		}
		b, err = json.Marshal(list)
		r.Member, r.Text = m.Name(), string(b)
	case "counters":
		var b []byte
		b, err = json.Marshal(m.Counters())
		r.Member, r.Text = m.Name(), string(b)
	case "spans", "metric-servers":
		r.Text, err = childTrace.control(c.Op)
	case "usage", "cpuprofile":
		r.Text, err = benchControl(c)
	case "task-start", "task-await":
		r.Member, r.Text, err = taskControl(ctx, m, c)
	}
	if err != nil {
		r.Err, r.Lost = err.Error(), errors.Is(err, ErrMemberLost)
	}
	return r
}

// ownedStatus is an OwnedServer as a member child reports it.
type ownedStatus struct {
	Identity   string `json:"identity"`
	Generation int64  `json:"generation"`
	State      string `json:"state"`
	Restarts   int    `json:"restarts"`
	Connection uint64 `json:"connection"`
	LastError  string `json:"lastError,omitempty"`
}

func ownedStatuses(in []OwnedServer) []ownedStatus {
	out := make([]ownedStatus, len(in))
	for i, o := range in {
		out[i] = ownedStatus{Identity: o.Identity.String(), Generation: o.Generation, State: string(o.Server.State),
			Restarts: o.Server.Restarts, Connection: o.Server.Generation, LastError: errText(o.Server.LastError)}
	}
	return out
}

// status asks the member child for its owned servers, by identity.
func (p *memberProc) status() map[string]ownedStatus {
	p.t.Helper()
	r := p.do(control{Op: "status"})
	var list []ownedStatus
	if r.Err != "" || json.Unmarshal([]byte(r.Text), &list) != nil {
		p.t.Fatalf("member %s status: %+v", p.name, r)
	}
	out := map[string]ownedStatus{}
	for _, s := range list {
		out[s.Identity] = s
	}
	return out
}

type textResult string

func (t textResult) text() string { return string(t) }

// callText calls a tool and returns its first text content.
func callText(ctx context.Context, t Tenant, server, tool string, args any) (textResult, error) {
	res, err := t.CallTool(ctx, server, tool, args)
	if err != nil {
		return "", err
	}
	if len(res.Content) == 0 {
		return "", nil
	}
	return textResult(res.Content[0].Text), nil
}

// memberProc is a member child as the test sees it.
type memberProc struct {
	t     testing.TB
	ready controlReply // the ready line
	name  string
	cmd   *exec.Cmd
	in    io.WriteCloser
	mu    sync.Mutex
	seq   int
	wait  map[int]chan controlReply
	done  chan struct{}
}

// startMember starts a member child and waits until it has joined.
func startMember(t testing.TB, spec memberSpec) *memberProc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(spec)
	cmd := exec.Command(self)
	cmd.Env = append(childEnv(), envRole+"=member", envMemberSpec+"="+string(b))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &memberProc{t: t, name: spec.Name, cmd: cmd, in: in, wait: map[int]chan controlReply{}, done: make(chan struct{})}
	ready := make(chan controlReply, 1)
	p.wait[0] = ready
	go p.read(outPipe)
	t.Cleanup(p.stop)
	select {
	case p.ready = <-ready:
	case <-p.done:
		t.Fatalf("member %s exited before joining", spec.Name)
	case <-time.After(waitLimit):
		t.Fatalf("member %s did not join within %v", spec.Name, waitLimit)
	}
	return p
}

func (p *memberProc) read(r io.Reader) {
	defer close(p.done)
	dec := json.NewDecoder(r)
	for {
		var rep controlReply
		if dec.Decode(&rep) != nil {
			return
		}
		p.mu.Lock()
		ch := p.wait[rep.Seq]
		delete(p.wait, rep.Seq)
		p.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
}

// do sends one control line and waits for its answer.
func (p *memberProc) do(c control) controlReply {
	p.t.Helper()
	ch := make(chan controlReply, 1)
	p.mu.Lock()
	p.seq++
	c.Seq = p.seq
	p.wait[c.Seq] = ch
	p.mu.Unlock()
	b, _ := json.Marshal(c)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("member %s: %v", p.name, err)
	}
	select {
	case r := <-ch:
		return r
	case <-p.done:
		p.t.Fatalf("member %s exited during %s", p.name, c.Op)
	case <-time.After(waitLimit):
		p.t.Fatalf("member %s: no answer to %s within %v", p.name, c.Op, waitLimit)
	}
	return controlReply{}
}

func (p *memberProc) pid() int { return p.cmd.Process.Pid }

func (p *memberProc) signal(sig syscall.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Errorf("member %s: %v: %v", p.name, sig, err)
	}
}

// stop ends the member (stdin closed: it leaves the cluster) and reaps it;
// SIGKILL if it takes too long.
func (p *memberProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(waitLimit):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	_ = p.cmd.Wait()
}
