//go:build linux

package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/mcpactor/mcpactor/internal/proctest"
)

// waitLimit bounds every wait of these tests. It is generous on purpose:
// on a loaded 2-core machine they prove outcomes, never speed.
const waitLimit = 30 * time.Second

// testCluster is an etcd, member children, and a call-only member in the
// test process (the driver) through which the tests call.
type testCluster struct {
	t       testing.TB
	run     string
	base    memberSpec
	members []*memberProc
	driver  *Member
}

// newCluster starts n members (m1..mn) with lease ttl on the shared etcd,
// under a prefix of the test's own, and the driver.
func newCluster(t testing.TB, n int, ttl time.Duration) *testCluster {
	t.Helper()
	return newClusterWith(t, etcdFor(t), n, memberSpec{TTL: ttl})
}

// newClusterAlone is newCluster on an etcd of its own, for a test that
// stops and starts it (every other test shares one).
func newClusterAlone(t testing.TB, n int, ttl time.Duration) (*testCluster, *etcdProc) {
	t.Helper()
	e := privateEtcd(t)
	return newClusterWith(t, e, n, memberSpec{TTL: ttl}), e
}

// testSpec is the spec every member of a test's cluster shares: etcd e,
// a prefix and a secret of the test's own, and lease ttl.
func testSpec(t testing.TB, e *etcdProc, ttl time.Duration) memberSpec {
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	return memberSpec{Endpoint: e.endpoint(), Prefix: "/test/" + t.Name() + "/" + run + "/", TTL: ttl,
		Secret: "test-secret-" + run, Run: run}
}

// newClusterWith is newCluster on etcd e with the members' spec: its TTL, Servers
// and Restart (the rest is the cluster's own).
func newClusterWith(t testing.TB, e *etcdProc, n int, spec memberSpec) *testCluster {
	t.Helper()
	base := testSpec(t, e, spec.TTL)
	base.Servers, base.Restart, base.DisabledTools = spec.Servers, spec.Restart, spec.DisabledTools
	base.PanicTenant, base.TeeDir, base.TaskURL, base.CallTimeout = spec.PanicTenant, spec.TeeDir, spec.TaskURL, spec.CallTimeout
	base.MaxServeTimeout, base.MaxTenantActivations = spec.MaxServeTimeout, spec.MaxTenantActivations
	c := &testCluster{t: t, run: base.Run, base: base}
	c.members = make([]*memberProc, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := c.base
			spec.Name = fmt.Sprintf("m%d", i+1)
			c.members[i] = startMember(t, spec)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	driver := c.base
	driver.Name, driver.CallOnly = "driver", true
	d := startLocal(t, "driver", driver.config())
	c.driver = d
	c.eventually("the driver sees every member", func() bool { return len(d.Members()) == n+1 })
	return c
}

// startLocal starts a member in the test process (one that is not a
// child: the driver, or a test's own caller) and stops it when the test
// ends; what names it in failures.
func startLocal(t testing.TB, what string, cfg Config) *Member {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := m.Stop(ctx); err != nil {
			t.Errorf("%s Stop: %v", what, err)
		}
	})
	return m
}

// info is the driver's SessionInfo of server; an error fails the test.
func (c *testCluster) info(ctx context.Context, server string) SessionInfo {
	c.t.Helper()
	info, err := c.driver.Info(ctx, server)
	if err != nil {
		c.t.Fatal(err)
	}
	return info
}

// inFlight is how many calls the driver is waiting on.
func (c *testCluster) inFlight() int {
	c.driver.calls.mu.Lock()
	defer c.driver.calls.mu.Unlock()
	return len(c.driver.calls.calls)
}

// waitEcho calls alpha's echo with msg (each try bounded, so that a try
// sent to a dead or fenced owner does not spend ctx) until it is
// answered, failing the test with what once ctx ends.
func (c *testCluster) waitEcho(ctx context.Context, msg, what string) {
	c.t.Helper()
	for {
		cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
		got, err := callText(cctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": msg})
		ccancel()
		if err == nil && got == textResult(msg) {
			return
		}
		if ctx.Err() != nil {
			c.t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// member returns the child named name.
func (c *testCluster) member(name string) *memberProc {
	for _, m := range c.members {
		if m.name == name {
			return m
		}
	}
	c.t.Fatalf("no member %q", name)
	return nil
}

func (c *testCluster) eventually(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: not within %v", what, waitLimit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// memberAddress is member name's remote address, as the driver sees it.
func (c *testCluster) memberAddress(name string) string {
	c.t.Helper()
	rec, ok := c.driver.view.member(name)
	if !ok {
		c.t.Fatalf("%s not in the view", name)
	}
	return rec.Address
}

// dialAsPeer connects to addr with a member's dial options (the
// cluster's secret and TLS), for a test that plays a peer; the
// connection is closed when the test ends.
func (c *testCluster) dialAsPeer(addr string) *grpc.ClientConn {
	c.t.Helper()
	conn, err := grpc.NewClient(addr, dialOptions(c.base.config())...)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { conn.Close() })
	return conn
}

// oneProcessEach checks that each identity (server, or server@tenant)
// runs as one process across the cluster.
func (c *testCluster) oneProcessEach(ids ...string) {
	c.t.Helper()
	byID := running(c.servers())
	for _, id := range ids {
		if n := len(byID[id]); n != 1 {
			c.t.Errorf("%s runs as %d processes, want 1", id, n)
		}
	}
}

// serverProc is one test server process of this cluster, found in /proc
// by its envIdentity mark.
type serverProc struct {
	pid      int
	member   string
	identity string
	state    string // /proc state letter: "S", "R", "T" (stopped), "Z"
}

// servers lists the cluster's live test server processes (zombies left
// out: they run nothing).
func (c *testCluster) servers() []serverProc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		c.t.Fatalf("/proc: %v", err)
	}
	mark := []byte(envIdentity + "=" + c.run + "|")
	var out []serverProc
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + ent.Name() + "/environ")
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if !bytes.HasPrefix(kv, mark) {
				continue
			}
			member, identity, _ := strings.Cut(string(kv[len(mark):]), "|")
			_, state, ok := proctest.Stat(pid)
			if ok && state != "Z" && state != "X" {
				out = append(out, serverProc{pid: pid, member: member, identity: identity, state: state})
			}
		}
	}
	return out
}

// running counts the running (not stopped) server processes by identity.
func running(procs []serverProc) map[string][]serverProc {
	out := map[string][]serverProc{}
	for _, p := range procs {
		if p.state != "T" && p.state != "t" {
			out[p.identity] = append(out[p.identity], p)
		}
	}
	return out
}

// ofMember returns the processes of member.
func ofMember(procs []serverProc, member string) []serverProc {
	return slices.DeleteFunc(slices.Clone(procs), func(p serverProc) bool { return p.member != member })
}

// procStat reports whether pid still exists as a process that is not a
// zombie (it may be stopped).
func procStat(pid int) (ppid int, state string, ok bool) {
	ppid, state, ok = proctest.Stat(pid)
	if ok && (state == "Z" || state == "X") {
		return ppid, state, false
	}
	return ppid, state, ok
}

// steadyCalls keeps n callers calling until stopped, each call bounded by
// 3 s: the load under which the fencing tests pull a member away.
// outcome hears each call's error (nil for an answer), on its caller's
// goroutine. The returned stop ends the callers and waits for them; it
// may be called more than once.
func steadyCalls(ctx context.Context, n int, call func(context.Context) error, outcome func(error)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				err := call(cctx)
				cancel()
				outcome(err)
			}
		})
	}
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
