//go:build linux

package cluster

import (
	"context"
	"os"
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
	e, err := newEtcd()
	if err != nil {
		t.Fatalf("embedded etcd: %v", err)
	}
	t.Cleanup(func() {
		e.stop(false)
		os.RemoveAll(e.dir)
	})
	c := newClusterOn(t, e, 2, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	before, err := c.driver.Info(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}

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
	for {
		cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
		got, err := callText(cctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "back"})
		ccancel()
		if err == nil && got == "back" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("alpha never answered after etcd came back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("alpha answered %v after etcd came back", time.Since(up))
	for _, m := range c.members {
		r := m.do(control{Op: "call", Server: "beta", Tool: "echo", Args: []byte(`{"message":"hi"}`)})
		if r.Err != "" || r.Text != "hi" {
			t.Errorf("member %s after the restart: %+v", m.name, r)
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
