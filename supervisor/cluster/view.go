package cluster

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// view is this member's mirror of the cluster's state in etcd: the live
// members, the owner of each identity, and the shared tool-list cache. It
// is read on every call, so routing costs no etcd round trip; etcd's watch
// keeps it current, and a member whose key goes (its lease expired or was
// revoked) is reported to onLost at once.
type view struct {
	prefix string
	cli    *clientv3.Client
	onLost func(member, reason string)
	log    func(msg string, args ...any)

	mu      sync.RWMutex
	members map[string]memberRecord
	owners  map[Identity]ownerRecord
	tools   map[Identity][]byte
	eras    map[Identity][]byte // the version to pin, as text
	synced  chan struct{}       // closed after the first full read
}

// memberRecord is the value of a member's key, bound to its lease.
type memberRecord struct {
	Name     string `json:"name"`
	Address  string `json:"address"`
	CallOnly bool   `json:"callOnly,omitempty"`
}

// ownerRecord is the value of an identity's ownership key, bound to the
// owner's lease. Generation is the key's create revision: the fencing
// token, larger for every new activation of the identity.
type ownerRecord struct {
	Member     string `json:"member"`
	Address    string `json:"address"`
	Generation int64  `json:"-"`
}

func (v *view) membersPrefix() string { return v.prefix + "members/" }
func (v *view) ownersPrefix() string  { return v.prefix + "owners/" }
func (v *view) toolsPrefix() string   { return v.prefix + "tools/" }
func (v *view) erasPrefix() string    { return v.prefix + "eras/" }

// run keeps the view current until ctx ends: a full read, then a watch
// from the next revision; whenever the watch fails (compaction, etcd
// restarted and lost history), it reads everything again.
func (v *view) run(ctx context.Context) {
	backoff := newBackoff(50*time.Millisecond, 2*time.Second)
	for ctx.Err() == nil {
		rev, err := v.reload(ctx)
		if err != nil {
			v.log("cluster view reload failed", "error", err)
			if !backoff.sleep(ctx) {
				return
			}
			continue
		}
		backoff.reset()
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for resp := range v.cli.Watch(wctx, v.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
			if err := resp.Err(); err != nil {
				v.log("cluster view watch failed", "error", err)
				break
			}
			for _, ev := range resp.Events {
				v.apply(ev.Type == clientv3.EventTypeDelete, string(ev.Kv.Key), ev.Kv.Value, ev.Kv.CreateRevision)
			}
		}
		cancel()
		if !backoff.sleep(ctx) {
			return
		}
	}
}

// reload replaces the view with a full read and returns its revision.
// Members known before and absent now are reported lost. The new state is
// built aside and swapped in whole: a call routed meanwhile sees the old
// view or the new one, never an empty one.
func (v *view) reload(ctx context.Context) (int64, error) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := v.cli.Get(rctx, v.prefix, clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	next := &view{prefix: v.prefix, members: map[string]memberRecord{}, owners: map[Identity]ownerRecord{}, tools: map[Identity][]byte{}, eras: map[Identity][]byte{}}
	for _, kv := range resp.Kvs {
		next.apply(false, string(kv.Key), kv.Value, kv.CreateRevision)
	}
	v.mu.Lock()
	var lost []string
	for name := range v.members {
		if _, ok := next.members[name]; !ok {
			lost = append(lost, name)
		}
	}
	v.members, v.owners, v.tools, v.eras = next.members, next.owners, next.tools, next.eras
	v.mu.Unlock()
	for _, name := range lost {
		v.onLost(name, "left while the watch was down")
	}
	select {
	case <-v.synced:
	default:
		close(v.synced)
	}
	return resp.Header.Revision, nil
}

// apply records one key's put or delete; a member's delete is reported
// to onLost, if set.
func (v *view) apply(deleted bool, key string, value []byte, createRev int64) {
	switch {
	case strings.HasPrefix(key, v.membersPrefix()):
		name := strings.TrimPrefix(key, v.membersPrefix())
		var rec memberRecord
		if !deleted && json.Unmarshal(value, &rec) != nil {
			return
		}
		v.mu.Lock()
		_, known := v.members[name]
		if deleted {
			delete(v.members, name)
		} else {
			v.members[name] = rec
		}
		v.mu.Unlock()
		if deleted && known && v.onLost != nil {
			v.onLost(name, "lease expired or revoked")
		}
	case strings.HasPrefix(key, v.ownersPrefix()):
		id, ok := parseIdentityKey(strings.TrimPrefix(key, v.ownersPrefix()))
		if !ok {
			return
		}
		var rec ownerRecord
		if !deleted && json.Unmarshal(value, &rec) != nil {
			return
		}
		rec.Generation = createRev
		v.mu.Lock()
		if deleted {
			delete(v.owners, id)
		} else {
			v.owners[id] = rec
		}
		v.mu.Unlock()
	case strings.HasPrefix(key, v.toolsPrefix()):
		v.setEntry(v.tools, strings.TrimPrefix(key, v.toolsPrefix()), deleted, value)
	case strings.HasPrefix(key, v.erasPrefix()):
		v.setEntry(v.eras, strings.TrimPrefix(key, v.erasPrefix()), deleted, value)
	}
}

// setEntry keeps an identity's entry of a shared cache (tools, eras).
func (v *view) setEntry(entries map[Identity][]byte, idKey string, deleted bool, value []byte) {
	id, ok := parseIdentityKey(idKey)
	if !ok {
		return
	}
	v.mu.Lock()
	if deleted {
		delete(entries, id)
	} else {
		entries[id] = value
	}
	v.mu.Unlock()
}

func (v *view) member(name string) (memberRecord, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	rec, ok := v.members[name]
	return rec, ok
}

func (v *view) owner(id Identity) (ownerRecord, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	rec, ok := v.owners[id]
	return rec, ok
}

func (v *view) cachedTools(id Identity) []byte {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.tools[id]
}

// noteTools records tools, a list id's owner just gave this member, in
// the view's copy of the shared cache unless the cache has one: the
// owner's own write of it reaches the view later (by the watch), and
// replaces it then.
func (v *view) noteTools(id Identity, tools []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.tools[id]; !ok {
		v.tools[id] = tools
	}
}

// era is the protocol era id's server spoke when last activated: a
// version to pin, or "" when unknown.
func (v *view) era(id Identity) string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return string(v.eras[id])
}

// memberNames returns the live members' names; with candidates, only
// those that may own identities.
func (v *view) memberNames(candidates bool) []string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make([]string, 0, len(v.members))
	for name, rec := range v.members {
		if !candidates || !rec.CallOnly {
			out = append(out, name)
		}
	}
	return out
}
