//go:build linux

package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestMalformedBatchesRefused: a peer holding the cluster secret sends a
// member each malformed batch that panicked protoactor's reader (and the
// other batches no member sends); each closes its own stream with
// InvalidArgument and is counted, and the member keeps serving.
func TestMalformedBatchesRefused(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m1 := c.member("m1")
	addr := c.memberAddress("m1")
	conn := c.dialAsPeer(addr)
	for _, bc := range malformedBatches {
		b := validBatch(addr)
		bc.edit(b)
		err := sendBatch(ctx, conn, b)
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: stream ended with %v, want InvalidArgument", bc.name, err)
		}
	}
	if got := m1.counters().MalformedMessages; got != uint64(len(malformedBatches)) {
		t.Errorf("m1 counted %d malformed messages, want %d", got, len(malformedBatches))
	}
	if got, err := callText(ctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "still here"}); err != nil || got != "still here" {
		t.Errorf("echo after the malformed batches = %q, %v", got, err)
	}
}

// sendBatch opens a stream of the remote layer on conn, sends b and
// returns how the stream ended.
func sendBatch(ctx context.Context, conn *grpc.ClientConn, b *remote.MessageBatch) error {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stream, err := remote.NewRemotingClient(conn).Receive(sctx)
	if err != nil {
		return err
	}
	if err := stream.Send(&remote.RemoteMessage{MessageType: &remote.RemoteMessage_MessageBatch{MessageBatch: b}}); err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			return err
		}
	}
}

// counters asks the member child for its Counters.
func (p *memberProc) counters() Counters {
	p.t.Helper()
	r := p.do(control{Op: "counters"})
	var out Counters
	if r.Err != "" || json.Unmarshal([]byte(r.Text), &out) != nil {
		p.t.Fatalf("member %s counters: %+v", p.name, r)
	}
	return out
}
