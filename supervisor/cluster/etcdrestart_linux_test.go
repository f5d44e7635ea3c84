//go:build linux

package cluster

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestEtcdRestart: etcd goes away for longer than the lease TTL and comes
// back with its data. Members that could not renew fence themselves (the
// server stops, and no two processes ever run for an identity), join
// again, and every member's calls are answered again.
func TestEtcdRestart(t *testing.T) {
	const ttl = 2 * time.Second
	c, e := newClusterAlone(t, 2, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	before := c.info(ctx, "alpha")

	var mu sync.Mutex
	worst := 0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			n := len(running(c.servers())["alpha"])
			mu.Lock()
			worst = max(worst, n)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-sampled
	}()

	e.stop(true)
	down := time.Now()
	c.eventually("the owner fences itself while etcd is down", func() bool {
		return len(ofMember(c.servers(), before.Member)) == 0
	})
	t.Logf("the owner stopped alpha's server %v after etcd went down", time.Since(down))
	time.Sleep(ttl)
	if err := e.start(); err != nil {
		t.Fatalf("etcd restart: %v", err)
	}
	up := time.Now()
	c.waitEcho(ctx, "back", "alpha never answered after etcd came back")
	t.Logf("alpha answered %v after etcd came back", time.Since(up))
	// Each member's etcd client reconnects on its own backoff; until it
	// has, the member's calls end at once with EtcdUnavailableError (by
	// design: not at their deadline). Every member must get there.
	for _, m := range c.members {
		deadline := time.Now().Add(waitLimit)
		for {
			r := m.do(control{Op: "call", Server: "beta", Tool: "echo", Args: []byte(`{"message":"hi"}`)})
			if r.Err == "" && r.Text == "hi" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("member %s after the restart, still after %v: %+v", m.name, waitLimit, r)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	after, err := c.driver.Info(ctx, "alpha")
	if err != nil || after.Generation <= before.Generation {
		t.Errorf("after the restart alpha is %+v, %v; was %+v", after, err, before)
	}
	close(stop)
	<-sampled
	mu.Lock()
	defer mu.Unlock()
	if worst > 1 {
		t.Errorf("alpha ran as %d processes at once", worst)
	}
}
