package cluster

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mcpactor/mcpactor/internal/bootclock"
)

// leaseKeeper holds the member's etcd lease, to which its member key and
// every ownership key it takes are bound, and fences the member itself
// when the lease may be lost.
//
// The lease expires on etcd's side no earlier than TTL after etcd received
// the last renewal, hence no earlier than TTL after we sent it. The keeper
// records, on the boot clock (internal/bootclock: on Linux
// CLOCK_BOOTTIME, which keeps counting while the process is stopped or
// the machine suspended; Go's monotonic clock does not count a suspended
// machine), when it sent each renewal that succeeded; the member holds its ownerships until that time plus
// TTL minus a margin of TTL/3 (fenceAt). A watchdog fences at fenceAt if no
// renewal has moved it: every activation of the lease is stopped (its
// server killed within TTL/6) before the lease can expire and another
// member can take the identity. A paused member cannot run its watchdog,
// but its clock runs on: when it resumes past fenceAt, valid fails at once
// and no call is served before the watchdog has stopped everything; and
// every write to an owned server checks valid at the write itself (the
// server's ServerConfig.Fence, activation.go), so that nothing queued
// before a pause is written after it.
// After a fence the lease is dropped and the member joins again with a
// new one.
type leaseKeeper struct {
	cli    *clientv3.Client
	ttl    time.Duration
	base   time.Duration // the boot clock's reading at the start: fenceAt's origin
	onJoin func(ctx context.Context, id clientv3.LeaseID) error
	// onFence stops every activation bound to lease id (their servers
	// are killed within TTL/6) and reports whether all of them are gone:
	// only then is the lease revoked. It returns within TTL/3.
	onFence func(id clientv3.LeaseID, reason string) bool
	log     func(msg string, args ...any)

	mu      sync.Mutex
	id      clientv3.LeaseID // 0: none
	fencing clientv3.LeaseID // the lease a fence is stopping, if any
	// stale are fenced leases whose revocation failed (etcd was
	// unreachable): etcd keeps them, and the ownership keys bound to
	// them, until they expire, and keeps them longer if it restarts.
	// The next join revokes them, so that those identities are free at
	// once (their servers are gone: a lease whose servers may still run
	// is never revoked, only left to expire).
	stale   []clientv3.LeaseID
	fenceAt time.Duration // since base
	changed chan struct{} // closed and replaced when id or fenceAt moves
	joined  chan struct{} // closed at the first join
	// etcdErr is the error of the last grant or renewal, nil once one
	// succeeds: with no valid lease, the member cannot reach etcd.
	etcdErr error
}

func newLeaseKeeper(cli *clientv3.Client, ttl time.Duration) *leaseKeeper {
	return &leaseKeeper{cli: cli, ttl: ttl, base: bootclock.Now(), changed: make(chan struct{}), joined: make(chan struct{})}
}

func (k *leaseKeeper) margin() time.Duration { return k.ttl / 3 }
func (k *leaseKeeper) now() time.Duration    { return bootclock.Now() - k.base }

// current returns the lease held now and whether it is still safe to act
// as its owner.
func (k *leaseKeeper) current() (clientv3.LeaseID, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.id, k.id != 0 && k.now() < k.fenceAt
}

// validFor is how much longer ownership under the current lease may be
// exercised (0 when none).
func (k *leaseKeeper) validFor() time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.id == 0 {
		return 0
	}
	return max(k.fenceAt-k.now(), 0)
}

// unreachable reports why the member cannot reach etcd, if it holds no
// valid lease because its last grant or renewal failed.
func (k *leaseKeeper) unreachable() (error, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.etcdErr == nil || (k.id != 0 && k.now() < k.fenceAt) {
		return nil, false
	}
	return k.etcdErr, true
}

// noteEtcd records the outcome of a grant or renewal.
func (k *leaseKeeper) noteEtcd(err error) {
	k.mu.Lock()
	k.etcdErr = err
	k.mu.Unlock()
}

// valid reports whether ownership under lease id may still be exercised.
func (k *leaseKeeper) valid(id clientv3.LeaseID) bool {
	cur, ok := k.current()
	return ok && cur == id
}

func (k *leaseKeeper) set(id clientv3.LeaseID, fenceAt time.Duration) {
	k.mu.Lock()
	k.id, k.fenceAt = id, fenceAt
	close(k.changed)
	k.changed = make(chan struct{})
	k.mu.Unlock()
}

// run grants, renews and watches the lease until ctx ends.
func (k *leaseKeeper) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		k.watchdog(ctx)
	}()
	defer wg.Wait()
	retry := newBackoff(50*time.Millisecond, k.ttl)
	for ctx.Err() == nil {
		id, _ := k.current()
		if id == 0 {
			if err := k.join(ctx); err != nil {
				k.log("cluster lease grant failed", "error", err)
				retry.sleep(ctx)
				continue
			}
			retry.reset()
			continue
		}
		t := time.NewTimer(k.ttl / 6)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		k.renew(ctx, id)
	}
}

// join grants a lease and registers the member under it; once etcd has
// answered the grant, it revokes the stale leases first.
func (k *leaseKeeper) join(ctx context.Context) error {
	sent := k.now()
	gctx, cancel := context.WithTimeout(ctx, k.ttl)
	defer cancel()
	resp, err := k.cli.Grant(gctx, int64(k.ttl/time.Second))
	k.noteEtcd(err)
	if err != nil {
		return err
	}
	k.revokeStale()
	if err := k.onJoin(gctx, resp.ID); err != nil {
		k.revoke(resp.ID)
		return err
	}
	k.set(resp.ID, sent+k.ttl-k.margin())
	select {
	case <-k.joined:
	default:
		close(k.joined)
	}
	return nil
}

// renew sends one keep-alive and moves fenceAt on success.
func (k *leaseKeeper) renew(ctx context.Context, id clientv3.LeaseID) {
	sent := k.now()
	rctx, cancel := context.WithTimeout(ctx, k.margin())
	defer cancel()
	resp, err := k.cli.KeepAliveOnce(rctx, id)
	switch {
	case ctx.Err() != nil:
	case errors.Is(err, rpctypes.ErrLeaseNotFound): // etcd answered
		k.noteEtcd(nil)
	default:
		k.noteEtcd(err)
	}
	switch {
	case err == nil && resp.TTL > 0:
		k.mu.Lock()
		if k.id == id && k.now() < k.fenceAt { // never revive a fenced lease
			k.fenceAt = sent + k.ttl - k.margin()
		}
		k.mu.Unlock()
	case err == nil || errors.Is(err, rpctypes.ErrLeaseNotFound):
		k.fence(id, "lease expired")
	case ctx.Err() == nil:
		k.log("cluster lease renewal failed", "error", err)
	}
}

// watchdog fences the lease when fenceAt passes without a renewal.
func (k *leaseKeeper) watchdog(ctx context.Context) {
	for {
		k.mu.Lock()
		id, wait, changed := k.id, k.fenceAt-k.now(), k.changed
		k.mu.Unlock()
		if id != 0 && wait <= 0 {
			k.fence(id, "lease not renewed in time")
			continue
		}
		if id == 0 {
			wait = time.Hour
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-changed:
			t.Stop()
		case <-t.C:
		}
	}
}

// fence stops everything bound to lease id, revokes it once all of that
// is gone, then drops it so that the member joins again with a new one.
// The watchdog and a renewal told the lease is gone may both fence it:
// the first does it, the other returns at once, and neither drops a lease
// other than id.
func (k *leaseKeeper) fence(id clientv3.LeaseID, reason string) {
	k.mu.Lock()
	if k.id != id || k.fencing == id {
		k.mu.Unlock()
		return
	}
	k.fenceAt = 0 // valid fails from here on
	k.fencing = id
	k.mu.Unlock()
	k.log("cluster member fenced itself", "reason", reason)
	if k.onFence(id, reason) && !k.revoke(id) {
		k.mu.Lock()
		k.stale = append(k.stale, id)
		k.mu.Unlock()
	}
	k.mu.Lock()
	k.fencing = 0
	if k.id == id {
		k.id, k.fenceAt = 0, 0
		close(k.changed)
		k.changed = make(chan struct{})
	}
	k.mu.Unlock()
}

// revoke gives the lease up, best effort: it expires by itself anyway.
// It reports whether etcd answered (a lease already gone counts).
func (k *leaseKeeper) revoke(id clientv3.LeaseID) bool {
	ctx, cancel := context.WithTimeout(context.Background(), k.margin())
	defer cancel()
	_, err := k.cli.Revoke(ctx, id)
	return err == nil || errors.Is(err, rpctypes.ErrLeaseNotFound)
}

// revokeStale revokes the stale leases etcd answers for.
func (k *leaseKeeper) revokeStale() {
	k.mu.Lock()
	stale := k.stale
	k.stale = nil
	k.mu.Unlock()
	var left []clientv3.LeaseID
	for _, id := range stale {
		if !k.revoke(id) {
			left = append(left, id)
		}
	}
	if len(left) > 0 {
		k.mu.Lock()
		k.stale = append(k.stale, left...)
		k.mu.Unlock()
	}
}
