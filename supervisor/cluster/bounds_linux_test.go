//go:build linux

package cluster

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestRepliesOnlyToKnownMembers: requests whose reply address is not the
// inbox a member registered in etcd (a stranger's address, a known name
// with another address, another process than the inbox) are served no
// reply: counted, and the address is never dialled.
func TestRepliesOnlyToKnownMembers(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m1 := c.member("m1")
	addr := c.memberAddress("m1")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var dialled atomic.Int32
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			conn.Close()
		}
	}()
	conn := c.dialAsPeer(addr)
	stranger := l.Addr().String()
	var msgs [][]byte
	for _, r := range []*request{
		{ID: 1, ReplyAddr: stranger, ReplyID: actorName, From: "m9"},
		{ID: 2, ReplyAddr: stranger, ReplyID: actorName, From: "driver"},
		{ID: 3, ReplyAddr: c.driver.Address(), ReplyID: "some-other-process", From: "driver"},
	} {
		r.Server, r.Method, r.Timeout = "alpha", methodInfo, 5*time.Second
		msgs = append(msgs, encodeRequest(r).GetValue())
	}
	if err := sendMessages(ctx, conn, addr, msgs...); err != nil {
		t.Fatal(err)
	}
	c.eventually("the requests refused", func() bool { return m1.counters().RefusedRequests == 3 })
	time.Sleep(500 * time.Millisecond)
	if n := dialled.Load(); n != 0 {
		t.Errorf("m1 dialled the stranger's address %d times", n)
	}
	if got, err := callText(ctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "still here"}); err != nil || got != "still here" {
		t.Errorf("echo after the strangers' requests = %q, %v", got, err)
	}
}

// TestPeerBoundsHold: the deadline a caller sends is capped by the
// owner's MaxServeTimeout (a 5 s call under a 2 s cap ends after about
// 2 s with the deadline, though the caller allowed 20 s; the cap is also
// what each tenant's activation below must fit in, on a loaded machine), and a member
// owns at most MaxTenantActivations tenants' sessions: the next tenant
// is refused with ErrTooManyActivations, the shared session still works.
func TestPeerBoundsHold(t *testing.T) {
	c := newClusterWith(t, etcdFor(t), 1, memberSpec{TTL: 2 * time.Second, MaxServeTimeout: 2 * time.Second, MaxTenantActivations: 2})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c.info(ctx, "alpha")
	cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
	start := time.Now()
	_, err := c.driver.CallTool(cctx, "alpha", "sleep", map[string]any{"ms": 5000})
	took := time.Since(start)
	ccancel()
	if !errors.Is(err, context.DeadlineExceeded) || took > 4500*time.Millisecond {
		t.Errorf("a 5 s call under a 2 s cap = %v after %v; want the owner's deadline first", err, took)
	}
	for _, tenant := range []string{"alice", "bob"} {
		if _, err := c.driver.As(tenant).CallTool(ctx, "alpha", "echo", map[string]any{"message": "x"}); err != nil {
			t.Fatalf("%s: %v", tenant, err)
		}
	}
	if _, err := c.driver.As("carol").CallTool(ctx, "alpha", "echo", map[string]any{"message": "x"}); !errors.Is(err, ErrTooManyActivations) {
		t.Errorf("a third tenant = %v, want ErrTooManyActivations", err)
	}
	if got, err := callText(ctx, c.driver.As(""), "beta", "echo", map[string]any{"message": "shared"}); err != nil || got != "shared" {
		t.Errorf("the shared session of beta = %q, %v", got, err)
	}
}
