package cluster

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

const testLocal = "127.0.0.1:4000"

// validBatch is a batch as a member sends it: one BytesValue to the
// inbox of the member at local.
func validBatch(local string) *remote.MessageBatch {
	return &remote.MessageBatch{
		TypeNames: []string{wireTypeName},
		Targets:   []*actor.PID{{Address: local, Id: actorName}},
		Senders:   []*actor.PID{{Address: "127.0.0.1:5000", Id: "future$1"}},
		Envelopes: []*remote.MessageEnvelope{{MessageData: []byte{0x0a, 0x01, 'x'}}, {Sender: 1, MessageData: []byte{}}},
	}
}

// malformedBatches are the batches that panic protoactor's reader at the
// pinned version, or would make a member relay or deliver a message no
// member sends, each by the edit it makes to a valid batch.
var malformedBatches = []struct {
	name string
	edit func(b *remote.MessageBatch)
}{
	{"target index out of range", func(b *remote.MessageBatch) { b.Envelopes[0].Target = 5 }},
	{"negative target index", func(b *remote.MessageBatch) { b.Envelopes[0].Target = -1 }},
	{"no targets", func(b *remote.MessageBatch) { b.Targets = nil }},
	{"sender index out of range", func(b *remote.MessageBatch) { b.Envelopes[1].Sender = 2 }},
	{"negative sender index", func(b *remote.MessageBatch) { b.Envelopes[1].Sender = -3 }},
	{"type id out of range", func(b *remote.MessageBatch) { b.Envelopes[0].TypeId = 1 }},
	{"negative type id", func(b *remote.MessageBatch) { b.Envelopes[0].TypeId = -1 }},
	{"serializer id out of range", func(b *remote.MessageBatch) { b.Envelopes[0].SerializerId = 7 }},
	{"json serializer", func(b *remote.MessageBatch) { b.Envelopes[0].SerializerId = 1 }},
	{"unknown type name", func(b *remote.MessageBatch) { b.TypeNames[0] = "no.such.Message" }},
	{"a system message", func(b *remote.MessageBatch) { b.TypeNames[0] = "actor.Terminated" }},
	{"target on another address", func(b *remote.MessageBatch) { b.Targets[0].Address = "10.0.0.9:4000" }},
}

func TestCheckRemoteMessage(t *testing.T) {
	ok := &remote.RemoteMessage{MessageType: &remote.RemoteMessage_MessageBatch{MessageBatch: validBatch(testLocal)}}
	if err := checkRemoteMessage(ok, testLocal); err != nil {
		t.Fatalf("a valid batch: %v", err)
	}
	for _, c := range malformedBatches {
		b := validBatch(testLocal)
		c.edit(b)
		err := checkRemoteMessage(&remote.RemoteMessage{MessageType: &remote.RemoteMessage_MessageBatch{MessageBatch: b}}, testLocal)
		if !errors.Is(err, errMalformed) {
			t.Errorf("%s: %v, want errMalformed", c.name, err)
		}
	}
	for name, msg := range map[string]*remote.RemoteMessage{
		"no message":          {},
		"nil batch":           {MessageType: &remote.RemoteMessage_MessageBatch{}},
		"connect without one": {MessageType: &remote.RemoteMessage_ConnectRequest{ConnectRequest: &remote.ConnectRequest{ConnectionType: &remote.ConnectRequest_ServerConnection{}}}},
	} {
		if err := checkRemoteMessage(msg, testLocal); !errors.Is(err, errMalformed) {
			t.Errorf("%s: %v, want errMalformed", name, err)
		}
	}
}

// TestStreamPanicContained: a panic in a stream's handler closes that
// stream with an Internal status and is counted; it does not reach gRPC,
// which would let it end the process.
func TestStreamPanicContained(t *testing.T) {
	g := &guard{member: "m1", counts: new(counters), log: slog.New(slog.DiscardHandler)}
	err := g.stream(nil, fakeStream{ctx: t.Context()}, &grpc.StreamServerInfo{FullMethod: receiveMethod},
		func(any, grpc.ServerStream) error { panic("index out of range [5] with length 1") })
	if status.Code(err) != codes.Internal {
		t.Errorf("stream = %v, want Internal", err)
	}
	if n := g.counts.snapshot().StreamPanics; n != 1 {
		t.Errorf("StreamPanics = %d, want 1", n)
	}
}

func encodeBytesValue(b []byte) ([]byte, error) { return proto.Marshal(wrapperspb.Bytes(b)) }
