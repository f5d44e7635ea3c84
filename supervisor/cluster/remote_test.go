package cluster

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/grpclog"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (f fakeStream) Context() context.Context { return f.ctx }

func TestGuard(t *testing.T) {
	g := &guard{secret: secretDigest("s3cret"), member: "m1", counts: new(counters), log: slog.New(slog.DiscardHandler)}
	served := 0
	handler := func(any, grpc.ServerStream) error { served++; return nil }
	withSecret := func(s string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs(secretHeader, s))
	}
	cases := []struct {
		method string
		ctx    context.Context
		code   codes.Code
	}{
		{receiveMethod, withSecret("s3cret"), codes.OK},
		{receiveMethod, withSecret("wrong"), codes.Unauthenticated},
		{receiveMethod, context.Background(), codes.Unauthenticated},
		{"/remote.Remoting/ListProcesses", withSecret("s3cret"), codes.Unimplemented},
	}
	for _, c := range cases {
		err := g.stream(nil, fakeStream{ctx: c.ctx}, &grpc.StreamServerInfo{FullMethod: c.method}, handler)
		if status.Code(err) != c.code {
			t.Errorf("%s: %v, want %v", c.method, err, c.code)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
	if served != 1 {
		t.Errorf("served %d streams, want 1", served)
	}
	if _, err := g.unary(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/remote.Remoting/ListProcesses"}, nil); status.Code(err) != codes.Unimplemented {
		t.Errorf("unary: %v", err)
	}
	open := &guard{member: "m1", counts: new(counters), log: slog.New(slog.DiscardHandler)}
	if err := open.stream(nil, fakeStream{ctx: context.Background()}, &grpc.StreamServerInfo{FullMethod: receiveMethod}, handler); err != nil {
		t.Errorf("no secret configured: %v", err)
	}
}

// recordingLogger is a gRPC logger that counts what reaches it.
type recordingLogger struct {
	grpclog.LoggerV2
	errors chan string
}

func (r recordingLogger) Errorln(args ...any) {
	select {
	case r.errors <- "x":
	default:
	}
}

// TestGRPCLoggerRestored: after the remote layer starts (which silences
// gRPC's logger), gRPC logs go to the logger the config names.
func TestGRPCLoggerRestored(t *testing.T) {
	rec := recordingLogger{LoggerV2: grpclog.NewLoggerV2(discardW{}, discardW{}, discardW{}), errors: make(chan string, 1)}
	t.Cleanup(func() { // after the remote layer's stop (cleanups run last first)
		time.Sleep(50 * time.Millisecond)
		restoreGRPCLogger(nil)
	})
	_, addr := startTestRemote(t, Config{Etcd: EtcdConfig{Endpoints: []string{"unused"}}, Servers: testConfigServers(), GRPCLogger: rec})
	if addr == "" {
		t.Error("no address")
	}
	grpclog.Errorln("probe")
	select {
	case <-rec.errors:
	default:
		t.Error("gRPC's logger was not restored after the remote layer started")
	}
}

// startTestRemote starts the remote layer alone (no etcd) for c, and
// stops it when the test ends; it returns c normalized and the layer's
// address.
func startTestRemote(t *testing.T, c Config) (Config, string) {
	t.Helper()
	cfg, err := c.normalize()
	if err != nil {
		t.Fatal(err)
	}
	sys, r, addr, err := startRemote(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Shutdown(false)
		sys.Shutdown()
	})
	return cfg, addr
}

type discardW struct{}

func (discardW) Write(p []byte) (int, error) { return len(p), nil }
