//go:build linux

package cluster

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"github.com/mcpactor/mcpactor/messages"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// TestAnyMemberCallsAnyServer: every member, and the call-only driver,
// calls every server by name wherever it lives, and each identity runs as
// one process on one member.
func TestAnyMemberCallsAnyServer(t *testing.T) {
	c := newCluster(t, 3, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, srv := range testServers {
		got, err := callText(ctx, c.driver.As(""), srv, "echo", map[string]any{"message": "to " + srv})
		if err != nil || got != textResult("to "+srv) {
			t.Fatalf("driver echo on %s = %q, %v", srv, got, err)
		}
		p, ok := c.driver.Owner(Identity{Server: srv})
		if !ok || p.Member == "driver" || p.Generation == 0 {
			t.Errorf("owner of %s = %+v, %v", srv, p, ok)
		}
		t.Logf("%s lives on %s (generation %d)", srv, p.Member, p.Generation)
	}
	for _, m := range c.members {
		for _, srv := range testServers {
			r := m.do(control{Op: "call", Server: srv, Tool: "echo", Args: []byte(`{"message":"from ` + m.name + `"}`)})
			if r.Err != "" || r.Text != "from "+m.name {
				t.Errorf("member %s echo on %s = %+v", m.name, srv, r)
			}
		}
	}
	tools, err := c.driver.ListTools(ctx, "beta")
	if err != nil || len(tools) == 0 {
		t.Errorf("ListTools(beta) = %d tools, %v", len(tools), err)
	}
	if _, err := c.driver.CallTool(ctx, "nope", "echo", nil); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("CallTool(nope) = %v, want ErrUnknownServer", err)
	}
	c.oneProcessEach(testServers...)
}

// TestRemoteRefusesStrangers: a member's remote layer refuses the gRPC
// methods protoactor leaves unimplemented (one of which panics the member
// in the pinned version) and streams without the cluster secret, and
// keeps serving the cluster.
func TestRemoteRefusesStrangers(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	conn, err := grpc.NewClient(c.memberAddress("m1"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := remote.NewRemotingClient(conn)
	_, err = client.ListProcesses(ctx, &remote.ListProcessesRequest{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("ListProcesses = %v, want Unimplemented", err)
	}
	_, err = client.GetProcessDiagnostics(ctx, &remote.GetProcessDiagnosticsRequest{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("GetProcessDiagnostics = %v, want Unimplemented", err)
	}
	stream, err := client.Receive(ctx)
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("Receive without the secret = %v, want Unauthenticated", err)
	}
	if got, err := callText(ctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "still here"}); err != nil || got != "still here" {
		t.Errorf("echo after the strangers = %q, %v", got, err)
	}
}

// TestKillOwner: kill -9 of the member owning a server ends every call in
// flight to it with *MemberLostError (never a bare deadline), the tools
// stay listed from the shared cache, and the server answers again on
// another member, as a new generation, about a lease TTL later.
func TestKillOwner(t *testing.T) {
	const ttl = 2 * time.Second
	c := newCluster(t, 3, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	before := c.info(ctx, "alpha")
	c.eventually("alpha's tools cached", func() bool { return c.driver.view.cachedTools(Identity{Server: "alpha"}) != nil })
	victim := c.member(before.Member)

	const inFlight = 20
	type ended struct {
		err error
		at  time.Time
	}
	results := make(chan ended, inFlight)
	var wg sync.WaitGroup
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.driver.CallTool(ctx, "alpha", "sleep", map[string]any{"ms": 25000})
			results <- ended{err, time.Now()}
		}()
	}
	c.eventually("the calls are in flight to the owner", func() bool { return c.inFlight() == inFlight })
	time.Sleep(200 * time.Millisecond) // and have reached its server
	killed := time.Now()
	victim.signal(syscall.SIGKILL)
	if tools, err := c.driver.ListTools(ctx, "alpha"); err != nil || len(tools) == 0 {
		t.Errorf("ListTools(alpha) right after the kill = %d tools, %v", len(tools), err)
	}
	wg.Wait()
	close(results)
	var slowest time.Duration
	for r := range results {
		var lost *MemberLostError
		if !errors.As(r.err, &lost) || !errors.Is(r.err, ErrMemberLost) || errors.Is(r.err, context.DeadlineExceeded) {
			t.Errorf("call in flight ended with %v, want *MemberLostError", r.err)
			continue
		}
		if lost.Member != victim.name {
			t.Errorf("lost member = %q, want %q", lost.Member, victim.name)
		}
		slowest = max(slowest, r.at.Sub(killed))
	}
	t.Logf("%d calls in flight ended with MemberLostError, the last %v after the kill", inFlight, slowest)
	if slowest > waitLimit/2 {
		t.Errorf("calls in flight ended %v after the kill", slowest)
	}

	c.waitEcho(ctx, "again", "alpha never answered again after the kill")
	back := time.Since(killed)
	t.Logf("alpha answered again %v after the kill (lease TTL %v)", back, ttl)
	after := c.info(ctx, "alpha")
	if after.Member == victim.name || after.Generation <= before.Generation {
		t.Errorf("after the kill alpha is %+v, was %+v", after, before)
	}
	c.eventually("alpha runs as one process", func() bool { return len(running(c.servers())["alpha"]) == 1 })
}

// TestTenantsKeptApart: each tenant's session of a server is an identity
// of its own, with its own process, and calls as one tenant never reach
// another's.
func TestTenantsKeptApart(t *testing.T) {
	c := newCluster(t, 2, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for tenant, version := range tenantVersions {
		info, err := c.driver.As(tenant).Info(ctx, "alpha")
		if err != nil || info.ProtocolVersion != version || info.Identity != (Identity{Server: "alpha", Tenant: tenant}) {
			t.Errorf("tenant %q: Info = %+v, %v; want protocol %s", tenant, info, err, version)
		}
		for _, m := range c.members {
			r := m.do(control{Op: "info", Server: "alpha", Tenant: tenant})
			if r.Err != "" || r.Text != version || r.Member != info.Member {
				t.Errorf("tenant %q via %s: %+v, want %s on %s", tenant, m.name, r, version, info.Member)
			}
		}
	}
	c.oneProcessEach("alpha", "alpha@alice", "alpha@bob")
}

// TestListChangedRefreshesTheSharedCache: a server's tools/list_changed
// makes its owner list the tools again into the shared cache, so that the
// other members do not offer a list the server has replaced.
func TestListChangedRefreshesTheSharedCache(t *testing.T) {
	c := newCluster(t, 2, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	id := Identity{Server: "alpha"}
	if _, err := callText(ctx, c.driver.As(""), id.Server, "echo", map[string]any{"message": "up"}); err != nil {
		t.Fatal(err)
	}
	key := c.driver.view.toolsPrefix() + id.key()
	revision := func() int64 {
		resp, err := c.driver.etcd.Get(ctx, key)
		if err != nil || len(resp.Kvs) != 1 {
			return 0
		}
		return resp.Kvs[0].ModRevision
	}
	var before int64
	for before = revision(); before == 0; before = revision() {
		if ctx.Err() != nil {
			t.Fatal("the activation never wrote the shared cache")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := callText(ctx, c.driver.As(""), id.Server, "notify", map[string]any{"method": messages.NotificationToolsListChanged}); err != nil {
		t.Fatal(err)
	}
	for r := revision(); r <= before; r = revision() {
		if ctx.Err() != nil {
			t.Fatal("tools/list_changed did not refresh the shared cache")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEraMemoSkipsTheProbe: the era a server spoke is shared in etcd, so
// that its next activation (here on another member, after the owner was
// killed) skips the server/discover
// probe, which a session-era server that never answers it makes wait out
// the probe timeout.
func TestEraMemoSkipsTheProbe(t *testing.T) {
	c := newCluster(t, 2, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	id := Identity{Server: "alpha", Tenant: silentTenant}
	start := time.Now()
	if _, err := callText(ctx, c.driver.As(id.Tenant), id.Server, "echo", map[string]any{"message": "first"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("first activation (probed): %v", time.Since(start))
	c.eventually("the era is shared", func() bool { return c.driver.view.era(id) == messages.Version20251125 })
	owner, ok := c.driver.view.owner(id)
	if !ok {
		t.Fatal("no owner")
	}
	// The other member's runtime has never spoken to this server: only
	// the shared memo can spare it the probe.
	c.member(owner.Member).signal(syscall.SIGKILL)
	c.eventually("the owner's loss is seen", func() bool {
		_, alive := c.driver.view.member(owner.Member)
		return !alive
	})
	start = time.Now()
	for {
		cctx, ccancel := context.WithTimeout(ctx, 2*silentProbe)
		_, err := callText(cctx, c.driver.As(id.Tenant), id.Server, "echo", map[string]any{"message": "again"})
		ccancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("never answered again: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	again := time.Since(start)
	t.Logf("activation on another member (era from the memo): %v", again)
	// A generous bound: an activation takes a fraction of a second; one
	// that probed again would take the whole probe timeout more.
	if again >= silentProbe-time.Second {
		t.Errorf("the activation on another member took %v: it probed (the probe timeout is %v)", again, silentProbe)
	}
}

// TestEraMemoContradicted: a memo the server contradicts (it was replaced
// by one of the other era) costs one failed attempt, not the activation:
// the server is probed and the memo corrected.
func TestEraMemoContradicted(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	id := Identity{Server: "beta", Tenant: "alice"} // a session-era server
	if _, err := c.driver.etcd.Put(ctx, c.driver.view.erasPrefix()+id.key(), messages.Version20260728); err != nil {
		t.Fatal(err)
	}
	c.eventually("the wrong memo is seen", func() bool { return c.driver.view.era(id) == messages.Version20260728 })
	if _, err := callText(ctx, c.driver.As(id.Tenant), id.Server, "echo", map[string]any{"message": "hi"}); err != nil {
		t.Fatalf("echo with a wrong memo: %v", err)
	}
	c.eventually("the memo is corrected", func() bool { return c.driver.view.era(id) == messages.Version20251125 })
}
