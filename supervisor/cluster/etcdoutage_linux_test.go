//go:build linux

package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestEtcdOutageEndsCalls: with etcd down past the lease TTL, a call with
// a long deadline ends long before it, with *EtcdUnavailableError
// (ErrEtcdUnavailable), and its text never says a member is not the owner
// because that same member is; once etcd is back, calls are answered.
func TestEtcdOutageEndsCalls(t *testing.T) {
	const ttl = 2 * time.Second
	c, e := newClusterAlone(t, 2, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	before := c.info(ctx, "alpha")
	e.stop(true)
	c.eventually("the owner fences itself while etcd is down", func() bool {
		return len(ofMember(c.servers(), before.Member)) == 0
	})
	const deadline = 25 * time.Second
	for _, srv := range []string{"alpha", "beta"} { // owned before, and never activated
		cctx, ccancel := context.WithTimeout(ctx, deadline)
		start := time.Now()
		_, err := c.driver.CallTool(cctx, srv, "echo", map[string]any{"message": "x"})
		took := time.Since(start)
		ccancel()
		var eu *EtcdUnavailableError
		if !errors.Is(err, ErrEtcdUnavailable) || !errors.As(err, &eu) {
			t.Errorf("%s during the outage: %v, want *EtcdUnavailableError", srv, err)
		}
		if took > deadline/2 {
			t.Errorf("%s during the outage ended after %v, not long before its %v deadline", srv, took, deadline)
		}
		if err != nil && (strings.Contains(err.Error(), "("+before.Member+" is)") || strings.Contains(err.Error(), "(driver is)")) {
			t.Errorf("%s: the error contradicts itself: %v", srv, err)
		}
		t.Logf("%s during the outage: %v after %v", srv, err, took)
	}
	if err := e.start(); err != nil {
		t.Fatalf("etcd restart: %v", err)
	}
	c.waitEcho(ctx, "back", "alpha never answered after etcd came back")
}

func TestNotOwnerErrorNeverContradictsItself(t *testing.T) {
	e := &NotOwnerError{Identity: Identity{Server: "alpha"}, Member: "m3", Method: methodCallTool, Owner: "m3", Reason: "its lease could not be renewed in time"}
	if s := e.Error(); strings.Contains(s, "(m3 is)") {
		t.Errorf("%s", s)
	}
}
