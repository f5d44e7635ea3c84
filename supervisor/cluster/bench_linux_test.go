//go:build linux

package cluster

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The hop's cost, three ways, between the same processes (the test process
// and one member child):
//
//   - BenchmarkCallLocal: a tools/call on a server this process owns (the
//     runtime alone, what one machine costs);
//   - BenchmarkCallCluster: the same call to a server the member child
//     owns, through the cluster;
//   - BenchmarkGRPCUnary: a hand-written gRPC unary round trip of the
//     same payload to the member child (the floor of any hop).
//
// The hop costs CallCluster - CallLocal; the goal is at most 1.3 times
// GRPCUnary. Run with: go test -run '^$' -bench . ./supervisor/cluster/

const benchArgs = `{"message":"hello"}`

func BenchmarkCallLocal(b *testing.B) {
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Stop(context.Background())
	path, args, env := testserver.Command(testserver.Options{})
	c, err := rt.Connect(context.Background(), "local", mcpactor.ServerConfig{Command: path, Args: args, Env: envMap(env)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.CallTool(ctx, "echo", map[string]any{"message": "hello"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkCallCluster(b *testing.B) {
	c := newBenchCluster(b)
	ctx := context.Background()
	if _, err := c.driver.CallTool(ctx, "alpha", "echo", map[string]any{"message": "warm"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.driver.CallTool(ctx, "alpha", "echo", map[string]any{"message": "hello"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkGRPCUnary(b *testing.B) {
	c := newBenchCluster(b)
	addr := c.benchGRPC
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			out := new([]byte)
			in := []byte(benchArgs)
			if err := conn.Invoke(ctx, "/bench.Echo/Echo", &in, out); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// envMap turns "K=V" entries into the map ServerConfig.Env expects.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// benchCluster is one member child (owning everything) and the driver.
type benchCluster struct {
	driver    *Member
	benchGRPC string
}

func newBenchCluster(b *testing.B) *benchCluster {
	b.Helper()
	e, err := newEtcd()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.stop(false)
		os.RemoveAll(e.dir)
	})
	spec := memberSpec{Name: "m1", Endpoint: e.endpoint(), Prefix: "/bench/", TTL: 3 * time.Second, Run: "bench", BenchGRPC: true}
	p := startMember(b, spec)
	driverSpec := spec
	driverSpec.Name, driverSpec.CallOnly, driverSpec.BenchGRPC = "driver", true, false
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	d, err := Start(ctx, driverSpec.config())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Stop(context.Background()) })
	return &benchCluster{driver: d, benchGRPC: p.ready.Text}
}

// serveBenchGRPC serves /bench.Echo/Echo (the request bytes back) on a
// free loopback port and returns its address.
func serveBenchGRPC() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}))
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "bench.Echo",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Echo", Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			in := new([]byte)
			if err := dec(in); err != nil {
				return nil, err
			}
			return in, nil
		}}},
	}, struct{}{})
	go s.Serve(l)
	return l.Addr().String(), nil
}

// rawCodec sends *[]byte as is.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "raw" }
