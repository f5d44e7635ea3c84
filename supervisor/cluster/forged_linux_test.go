//go:build linux

package cluster

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
)

// TestForgedResponseRefused: while the driver waits for m1's answer to a
// call, a peer holding the cluster secret sends the driver responses to
// that call's request id: one naming m1 without the request's token, one
// with a wrong token, and one with the right token (read from the
// driver's table, as no peer can) but naming another member. Each is
// refused and counted, the call keeps waiting, and m1's own answer
// completes it.
func TestForgedResponseRefused(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c.info(ctx, "alpha") // alpha up on m1
	type answer struct {
		text textResult
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		text, err := callText(ctx, c.driver.As(""), "alpha", "sleep", map[string]any{"ms": 1500})
		done <- answer{text, err}
	}()
	var reqID uint64
	var token []byte
	c.eventually("the call is in flight", func() bool {
		c.driver.calls.mu.Lock()
		defer c.driver.calls.mu.Unlock()
		for id, p := range c.driver.calls.calls {
			if p.method == methodCallTool {
				reqID, token = id, append([]byte(nil), p.token[:]...)
				return true
			}
		}
		return false
	})
	conn := c.dialAsPeer(c.driver.Address())
	forged := `{"content":[{"type":"text","text":"forged"}]}`
	for i, r := range []*response{
		{ID: reqID, Member: "m1", Result: []byte(forged)},
		{ID: reqID, Member: "m1", Result: []byte(forged), Token: []byte("0123456789abcdef")},
		{ID: reqID, Member: "m2", Result: []byte(forged), Token: token},
	} {
		if err := sendMessages(ctx, conn, c.driver.Address(), encodeResponse(r).GetValue()); err != nil {
			t.Fatalf("forged response %d: %v", i, err)
		}
		c.eventually("the forged response refused", func() bool { return c.driver.Counters().RefusedResponses == uint64(i+1) })
	}
	select {
	case a := <-done:
		if a.err != nil || a.text == "forged" {
			t.Errorf("the call ended with %q, %v; want m1's answer", a.text, a.err)
		}
	case <-ctx.Done():
		t.Fatal("the call never ended")
	}
	if n := c.driver.Counters().RefusedResponses; n != 3 {
		t.Errorf("RefusedResponses = %d, want 3", n)
	}
}

// sendMessages sends members' messages (each a BytesValue's bytes) to the
// inbox of the member at addr over conn, in one batch, and closes the
// stream once the member has read them.
func sendMessages(ctx context.Context, conn *grpc.ClientConn, addr string, msgs ...[]byte) error {
	b := &remote.MessageBatch{TypeNames: []string{wireTypeName}, Targets: []*actor.PID{{Address: addr, Id: actorName}}}
	for _, m := range msgs {
		data, err := encodeBytesValue(m)
		if err != nil {
			return err
		}
		b.Envelopes = append(b.Envelopes, &remote.MessageEnvelope{MessageData: data})
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stream, err := remote.NewRemotingClient(conn).Receive(sctx)
	if err != nil {
		return err
	}
	if err := stream.Send(&remote.RemoteMessage{MessageType: &remote.RemoteMessage_MessageBatch{MessageBatch: b}}); err != nil {
		return err
	}
	if err := stream.CloseSend(); err != nil {
		return err
	}
	for { // the member ends the stream once it has read everything
		if _, err := stream.Recv(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
