package cluster

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// protoactor's endpoint reader trusts what it reads: a MessageBatch's
// target and sender indices index its PID tables unchecked, its type id
// indexes the type names unchecked, its serializer id indexes the
// serializers unchecked, and the proto serializer calls New on the type
// it looked up by name without checking that it found one. Each of those
// panics the reader's goroutine, which gRPC does not recover: one message
// would end the member. So every message a stream delivers is checked
// before protoactor sees it (checkedStream), and the stream is closed at
// the first one that fails; the handler is run under a recover too, as a
// last line, so that whatever the checks miss closes one stream, not the
// process.

// wireTypeName is the one message type members exchange (wire.go).
var wireTypeName = string(proto.MessageName(&wrapperspb.BytesValue{}))

// protoSerializerID is the id of protoactor's protobuf serializer, the
// first registered; members send nothing else.
const protoSerializerID = 0

// errMalformed is the cause of a stream closed for a malformed message.
var errMalformed = errors.New("malformed message")

// checkRemoteMessage reports why msg must not reach protoactor's reader,
// or nil. local is this member's address: a batch may only target
// processes here, never be relayed.
func checkRemoteMessage(msg *remote.RemoteMessage, local string) error {
	switch t := msg.GetMessageType().(type) {
	case *remote.RemoteMessage_MessageBatch:
		return checkBatch(t.MessageBatch, local)
	case *remote.RemoteMessage_ConnectRequest:
		c := t.ConnectRequest
		switch ct := c.GetConnectionType().(type) {
		case *remote.ConnectRequest_ServerConnection:
			if ct.ServerConnection == nil {
				return fmt.Errorf("%w: connect request without its server connection", errMalformed)
			}
		case *remote.ConnectRequest_ClientConnection:
			if ct.ClientConnection == nil {
				return fmt.Errorf("%w: connect request without its client connection", errMalformed)
			}
		}
		return nil
	case nil:
		return fmt.Errorf("%w: no message", errMalformed)
	default:
		// Connect responses and disconnect requests are meant for the
		// dialling side; the reader logs and skips them.
		return nil
	}
}

// checkBatch checks every envelope of b against the tables it indexes.
func checkBatch(b *remote.MessageBatch, local string) error {
	if b == nil {
		return fmt.Errorf("%w: empty batch", errMalformed)
	}
	for i, pid := range b.Targets {
		if pid == nil || pid.Address != local {
			return fmt.Errorf("%w: target %d is not on this member", errMalformed, i)
		}
	}
	for i, pid := range b.Senders {
		if pid == nil {
			return fmt.Errorf("%w: sender %d is empty", errMalformed, i)
		}
	}
	for i, tn := range b.TypeNames {
		if tn != wireTypeName {
			return fmt.Errorf("%w: type %d is not a message members exchange", errMalformed, i)
		}
	}
	for i, env := range b.Envelopes {
		switch {
		case env == nil:
			return fmt.Errorf("%w: envelope %d is empty", errMalformed, i)
		case env.Target < 0 || int(env.Target) >= len(b.Targets):
			return fmt.Errorf("%w: envelope %d: target index %d of %d targets", errMalformed, i, env.Target, len(b.Targets))
		case env.Sender < 0 || int(env.Sender) > len(b.Senders):
			return fmt.Errorf("%w: envelope %d: sender index %d of %d senders", errMalformed, i, env.Sender, len(b.Senders))
		case env.TypeId < 0 || int(env.TypeId) >= len(b.TypeNames):
			return fmt.Errorf("%w: envelope %d: type id %d of %d types", errMalformed, i, env.TypeId, len(b.TypeNames))
		case env.SerializerId != protoSerializerID:
			return fmt.Errorf("%w: envelope %d: serializer id %d", errMalformed, i, env.SerializerId)
		}
	}
	return nil
}

// checkedStream is a remote stream whose every received message is
// checked (checkRemoteMessage) before the handler sees it. A message
// that fails ends the stream: RecvMsg returns an InvalidArgument status,
// which protoactor's reader returns, so gRPC closes the stream with it.
type checkedStream struct {
	grpc.ServerStream
	g *guard
}

func (s *checkedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	msg, ok := m.(*remote.RemoteMessage)
	if !ok {
		return nil
	}
	if err := checkRemoteMessage(msg, s.g.localAddress()); err != nil {
		s.g.counts.malformed.Add(1)
		s.g.log.Warn("cluster remote stream closed: malformed message", "member", s.g.member, "peer", peerOf(s), "error", err.Error())
		return status.Errorf(codes.InvalidArgument, "cluster: member %s: %v", s.g.member, err)
	}
	return nil
}

// serveContained runs a stream's handler, recovering a panic: the stream
// is closed with an Internal status, the panic counted and logged with
// its stack.
func (g *guard) serveContained(srv any, ss grpc.ServerStream, handler grpc.StreamHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			g.counts.streamPanics.Add(1)
			g.log.Error("cluster remote stream closed: panic recovered", "member", g.member, "peer", peerOf(ss),
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = status.Errorf(codes.Internal, "cluster: member %s: stream closed after an internal error", g.member)
		}
	}()
	return handler(srv, &checkedStream{ServerStream: ss, g: g})
}

// localAddress is the address of this member's processes (the actor
// system's; set before the gRPC server starts serving).
func (g *guard) localAddress() string {
	if g.sys == nil {
		return ""
	}
	return g.sys.Address()
}

func peerOf(ss grpc.ServerStream) string {
	if p, ok := peer.FromContext(ss.Context()); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}
