//go:build linux

package cluster

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// etcdClient is a client of endpoint, closed when the test ends.
func etcdClient(t *testing.T, endpoint string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// TestFenceOnce: the watchdog and a renewal told "lease not found" fence
// the same lease at once (a member resuming from a pause does both).
// Only the first stops the activations; the second returns at once;
// and the first, when done, drops only its own lease, never one granted
// since. Before, both ran onFence, and the slower one's end cleared a
// lease the member had joined with meanwhile: its activations were never
// fenced, and it held them under a lease nobody renewed.
func TestFenceOnce(t *testing.T) {
	cli := etcdClient(t, etcdFor(t).endpoint())
	k := newLeaseKeeper(cli, 2*time.Second)
	k.log = func(string, ...any) {}
	var fences atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	k.onFence = func(clientv3.LeaseID, string) bool {
		if fences.Add(1) == 1 {
			close(entered)
			<-release
		}
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	old, err := cli.Grant(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	k.set(old.ID, k.now()+time.Hour)

	first := make(chan struct{})
	go func() {
		defer close(first)
		k.fence(old.ID, "lease not renewed in time")
	}()
	<-entered
	k.fence(old.ID, "lease expired") // must not wait for the first
	if n := fences.Load(); n != 1 {
		t.Errorf("onFence ran %d times for one lease", n)
	}
	// The member joins with a new lease before the first fence is done
	// (it cannot with the fix, whose run loop sees the old lease until
	// then; the keeper must not clear a new one either way).
	const newer clientv3.LeaseID = 42
	k.set(newer, k.now()+time.Hour)
	close(release)
	<-first
	if id, ok := k.current(); id != newer || !ok {
		t.Errorf("after the old lease's fence the keeper holds %x (%v), want the new lease %x", id, ok, newer)
	}
}

// TestStaleLeaseRevokedAtJoin: a member fenced while etcd was unreachable
// could not revoke its lease; etcd keeps it, and the ownership keys bound
// to it, until it expires (longer if etcd restarts: it renews every
// lease). The next join revokes it once etcd answers, so that those
// identities are free at once. Before, they stayed taken, naming the
// member, until the old lease expired.
func TestStaleLeaseRevokedAtJoin(t *testing.T) {
	e := etcdFor(t)
	proxy := newCutProxy(t, strings.TrimPrefix(e.endpoint(), "http://"))
	direct := etcdClient(t, e.endpoint())
	cli := etcdClient(t, "http://"+proxy.addr())
	k := newLeaseKeeper(cli, 2*time.Second)
	k.log = func(string, ...any) {}
	k.onFence = func(clientv3.LeaseID, string) bool { return true }
	k.onJoin = func(context.Context, clientv3.LeaseID) error { return nil }

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	// A lease that would outlive the test, and a key bound to it.
	old, err := direct.Grant(ctx, 120)
	if err != nil {
		t.Fatal(err)
	}
	key := "/test/" + t.Name() + "/owners/alpha"
	if _, err := direct.Put(ctx, key, "m1", clientv3.WithLease(old.ID)); err != nil {
		t.Fatal(err)
	}
	k.set(old.ID, k.now()+time.Hour)

	proxy.setCut(true)
	k.fence(old.ID, "lease not renewed in time") // its revoke fails
	if r, err := direct.Get(ctx, key); err != nil || len(r.Kvs) != 1 {
		t.Fatalf("the key after a fence etcd did not hear: %v, %v", r, err)
	}
	proxy.setCut(false)
	if err := k.join(ctx); err != nil {
		t.Fatalf("join: %v", err)
	}
	if r, err := direct.Get(ctx, key); err != nil || len(r.Kvs) != 0 {
		t.Errorf("the stale lease's key after the join: %v, %v; want it gone", r.Kvs, err)
	}
	if id, _ := k.current(); id != 0 {
		k.revoke(id)
	}
}
