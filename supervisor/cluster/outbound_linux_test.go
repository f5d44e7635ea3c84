//go:build linux

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

// stallPeer accepts protoactor's message stream and never answers its
// handshake (nor reads what follows).
type stallPeer struct {
	remote.UnimplementedRemotingServer
}

func (stallPeer) Receive(s remote.Remoting_ReceiveServer) error {
	<-s.Context().Done()
	return s.Context().Err()
}

// TestStalledPeerBounded: a peer registered in etcd that accepts the
// gRPC stream but never completes protoactor's handshake owns an
// identity. The calls sent to it queue no more than
// Config.MaxOutboundBytes (the rest fail at once with *BackloggedError,
// counted), the member's heap stays within a bound, the stall timeout
// evicts the peer's connection (counted) and its calls end with
// *MemberLostError, not at their deadline, and the member goes on
// serving calls to other members (issue 34, item 4).
func TestStalledPeerBounded(t *testing.T) {
	e := etcdFor(t)
	base := testSpec(t, e, 2*time.Second)
	m1 := base
	m1.Name = "m1"
	startMember(t, m1)

	const limit = 4 << 20
	callerSpec := base
	callerSpec.Name, callerSpec.CallOnly = "caller", true
	cfg := callerSpec.config()
	cfg.MaxOutboundBytes, cfg.OutboundStallTimeout = limit, 2*time.Second
	caller := startLocal(t, "caller", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()

	// After the caller's start, whose remote layer writes gRPC's
	// process-wide logger, which a running gRPC server reads.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	remote.RegisterRemotingServer(srv, stallPeer{})
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	ghostAddr := lis.Addr().String()

	// The ghost: a member record (never placed: call-only) and the
	// ownership of one identity.
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{e.endpoint()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ghosted := Identity{Server: "beta", Tenant: "ghosted"}
	mrec, _ := json.Marshal(memberRecord{Name: "ghost", Address: ghostAddr, CallOnly: true})
	orec, _ := json.Marshal(ownerRecord{Member: "ghost", Address: ghostAddr})
	if _, err := cli.Put(ctx, base.Prefix+"members/ghost", string(mrec)); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, base.Prefix+"owners/"+ghosted.key(), string(orec)); err != nil {
		t.Fatal(err)
	}
	for p, _ := caller.Owner(ghosted); p.Member != "ghost" || len(caller.Members()) != 3; p, _ = caller.Owner(ghosted) {
		if ctx.Err() != nil {
			t.Fatalf("the caller sees %v, owner %+v", caller.Members(), p)
		}
		time.Sleep(20 * time.Millisecond)
	}

	var before runtime.MemStats
	runtime.GC()
	runtime.GC() // and the pools' victims
	runtime.ReadMemStats(&before)

	const calls = 32
	payload := strings.Repeat("x", 1<<20)
	errs := make(chan error, calls)
	callCtx, callCancel := context.WithTimeout(ctx, 25*time.Second)
	defer callCancel()
	for range calls {
		go func() {
			_, err := caller.As(ghosted.Tenant).CallTool(callCtx, ghosted.Server, "echo", map[string]any{"message": payload})
			errs <- err
		}()
	}
	var backlogged, lost int
	var others []error
	collect := func(err error) {
		var be *BackloggedError
		switch {
		case errors.As(err, &be):
			backlogged++
			if be.Limit != limit || be.Member != "ghost" || be.Address != ghostAddr {
				t.Errorf("BackloggedError %+v: want the ghost and the bound", be)
			}
		case errors.Is(err, ErrMemberLost):
			lost++
		default:
			others = append(others, err)
		}
	}
	// The refused calls end at once; the admitted ones wait.
	for backlogged < calls-limit/(1<<20) {
		select {
		case err := <-errs:
			collect(err)
		case <-ctx.Done():
			t.Fatalf("only %d calls refused, %d lost, others %v", backlogged, lost, others)
		}
	}
	if b := caller.out.backlog(ghostAddr); b <= 0 || b > limit {
		t.Errorf("backlog for the ghost = %d bytes, want within (0, %d]", b, limit)
	}
	var during runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&during)
	grown := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap grown by %d MiB with %d calls of 1 MiB sent to a stalled peer (%d refused)", grown>>20, calls, backlogged)
	if grown > 8*limit {
		t.Errorf("heap grew by %d bytes, want under %d: the backlog is not bounded", grown, 8*limit)
	}

	for backlogged+lost+len(others) < calls {
		collect(<-errs)
	}
	if len(others) > 0 {
		t.Errorf("%d calls ended otherwise than backlogged or lost: %v", len(others), others)
	}
	if lost == 0 {
		t.Error("no call ended with *MemberLostError: the stalled peer was not evicted")
	}
	cs := caller.Counters()
	if cs.Backlogged != uint64(backlogged) || cs.StalledPeers == 0 {
		t.Errorf("Counters = %+v, want Backlogged %d and a stalled peer", cs, backlogged)
	}
	if b := caller.out.backlog(ghostAddr); b != 0 {
		t.Errorf("backlog for the ghost after the eviction = %d bytes, want 0", b)
	}

	// The caller is healthy: other members' calls go on.
	res, err := caller.CallTool(ctx, "alpha", "echo", map[string]any{"message": "still here"})
	if err != nil || len(res.Content) == 0 || res.Content[0].Text != "still here" {
		t.Fatalf("a call to m1 after the eviction: %+v, %v", res, err)
	}
}
