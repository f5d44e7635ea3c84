//go:build linux

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestOrphanedKeyCleared: an ownership key bound to the member's own live
// lease and naming it, which no activation holds, is what a claim leaves
// when etcd applies it after the member gave up waiting (the transaction's
// context ended first). It used to refuse every activation of the identity
// with *NotOwnerError naming the member itself, for as long as the member
// kept its lease alive. The member now clears it and claims again, under a
// new create revision; a key of another member, or of another lease of
// this one, is left alone.
func TestOrphanedKeyCleared(t *testing.T) {
	e := etcdFor(t)
	spec := testSpec(t, e, 3*time.Second)
	spec.Name = "m1"
	m := startLocal(t, "m1", spec.config())
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	lease, ok := m.lease.current()
	if !ok {
		t.Fatal("the member holds no lease")
	}
	id := Identity{Server: testServers[0]}
	key := m.view.ownersPrefix() + id.key()
	rec, _ := json.Marshal(ownerRecord{Member: m.cfg.Name, Address: m.addr})
	orphan, err := m.etcd.Put(ctx, key, string(rec), clientv3.WithLease(lease))
	if err != nil {
		t.Fatal(err)
	}

	if _, err := m.CallTool(ctx, id.Server, "echo", map[string]any{"message": "after the orphan"}); err != nil {
		t.Fatalf("a call to an identity whose key the member orphaned: %v", err)
	}
	got, err := m.etcd.Get(ctx, key)
	if err != nil || len(got.Kvs) != 1 {
		t.Fatalf("the key after the activation: %v, %v", got, err)
	}
	if kv := got.Kvs[0]; kv.CreateRevision == orphan.Header.Revision || kv.Lease != int64(lease) {
		t.Errorf("the key has create revision %d (the orphan's was %d) and lease %x (the member's %x): want a new key under the member's lease",
			kv.CreateRevision, orphan.Header.Revision, kv.Lease, lease)
	}

	// Another lease's key naming this member (a lease it lost) is not
	// this member's to clear: it goes when that lease does.
	other, err := m.etcd.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = m.etcd.Revoke(context.Background(), other.ID) })
	id2 := Identity{Server: testServers[1]}
	key2 := m.view.ownersPrefix() + id2.key()
	if _, err := m.etcd.Put(ctx, key2, string(rec), clientv3.WithLease(other.ID)); err != nil {
		t.Fatal(err)
	}
	// The call goes on trying the key's owner until its context ends.
	cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
	defer ccancel()
	_, err = m.CallTool(cctx, id2.Server, "echo", map[string]any{"message": "another lease's key"})
	var notOwner *NotOwnerError
	if !errors.As(err, &notOwner) {
		t.Fatalf("a call to an identity whose key another lease holds: %v, want *NotOwnerError", err)
	}
	if got, err := m.etcd.Get(ctx, key2); err != nil || len(got.Kvs) != 1 || got.Kvs[0].Lease != int64(other.ID) {
		t.Errorf("another lease's key was touched: %v, %v", got, err)
	}
}
