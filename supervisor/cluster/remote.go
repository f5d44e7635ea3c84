package cluster

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/grpclog"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The remote layer is protoactor's, hardened from the outside (the pinned
// version, v0.0.0-20240822202345, is used unpatched):
//
//   - Only the message stream (/remote.Remoting/Receive) is served. Its
//     other methods are unimplemented and panic the member ("implement
//     me") when called; a server interceptor refuses every method but the
//     stream, before protoactor's code runs.
//   - With Config.Secret, every stream must carry it in its metadata; the
//     same interceptor refuses those that do not, so that no unknown peer
//     can make the member deserialize or deliver anything.
//   - Every message a stream delivers is checked before protoactor's
//     reader sees it, and the stream's handler runs under a recover
//     (inbound.go): no input can panic the member.
//   - gRPC's receive and send limits are raised from 4 MiB to
//     MaxMessageBytes on both sides, and the writer's batch is bounded
//     (remoteBatch) so that a batch of full-size results still fits.
//   - The endpoint writer's queue has no byte bound and its handshake no
//     timeout: outbound.go bounds the bytes waiting for each peer and
//     evicts a peer whose backlog stalls.
//   - TLS and mutual TLS come from Config.ServerTLS and ClientTLS.
//   - Remote.Start replaces gRPC's logger with one that discards
//     everything, for the whole process; restoreGRPCLogger puts one back
//     (see startHook for when).
//   - The endpoint writer retries a failed dial by sleeping 2 s between
//     attempts, blocking that peer's queue; one attempt is made
//     (MaxRetryCount 1): membership, not the dialler, decides that a
//     member is gone, and our own routing retries with backoff.
const (
	receiveMethod = "/remote.Remoting/Receive"
	secretHeader  = "mcpactor-cluster-secret"
	remoteBatch   = 16
	actorName     = "mcpactor-cluster"
)

// grpcLoggerMu serialises our writes of gRPC's process-wide logger, so
// that members started together in one process do not race each other.
var grpcLoggerMu sync.Mutex

// startRemote starts an actor system and its remote layer listening on
// cfg.BindAddress, and returns them with the address other members dial.
func startRemote(cfg Config, counts *counters, out *outbound) (sys *actor.ActorSystem, r *remote.Remote, addr string, err error) {
	host, portText, err := net.SplitHostPort(cfg.BindAddress)
	if err != nil {
		return nil, nil, "", &ConfigError{Field: "BindAddress", Reason: err.Error()}
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, nil, "", &ConfigError{Field: "BindAddress", Reason: "port " + strconv.Quote(portText)}
	}
	if out == nil { // tests of the remote layer alone
		out = newOutbound(cfg, new(counters))
	}
	hook := &startHook{inner: cfg.Logger.With("component", "protoactor").Handler()}
	hook.pending.Store(true)
	hook.fire = func() { restoreGRPCLogger(cfg.GRPCLogger) }
	logger := slog.New(hook)
	sys = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return logger }))
	opts := []remote.ConfigOption{
		remote.WithServerOptions(serverOptions(cfg, sys, counts)...),
		remote.WithDialOptions(append(dialOptions(cfg), grpc.WithContextDialer(out.dial))...),
		remote.WithEndpointWriterBatchSize(remoteBatch),
	}
	if cfg.AdvertisedAddress != "" {
		opts = append(opts, remote.WithAdvertisedHost(cfg.AdvertisedAddress))
	}
	rc := remote.Configure(host, port, opts...)
	rc.MaxRetryCount = 1
	r = remote.NewRemote(sys, rc)

	grpcLoggerMu.Lock()
	defer grpcLoggerMu.Unlock()
	// Remote.Start panics when it cannot listen.
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("cluster: member %s: remote layer on %s: %v", cfg.Name, cfg.BindAddress, p)
			}
		}()
		r.Start()
	}()
	if hook.pending.Swap(false) { // Start failed before its last log line
		hook.fire()
	}
	if err != nil {
		sys.Shutdown()
		return nil, nil, "", err
	}
	return sys, r, sys.Address(), nil
}

// serveLogLine is the message protoactor's Remote.Start logs right
// before it starts its gRPC server's goroutine (remote/server.go).
const serveLogLine = "Starting Proto.Actor server"

// startHook is the actor system's log handler. Remote.Start silences
// gRPC's logger (a process-wide variable that gRPC reads without
// synchronisation) and then starts the gRPC server on a goroutine that
// logs at once. Restoring the logger after Start returns races with that
// goroutine; restoring it while Start logs its last line, on Start's own
// goroutine and before the server's goroutine exists, does not. If a
// protoactor upgrade renames the line, startRemote still restores the
// logger after Start (racy, never lost); TestGRPCLoggerRestored notices.
type startHook struct {
	inner   slog.Handler
	pending atomic.Bool
	fire    func()
}

func (h *startHook) Enabled(ctx context.Context, l slog.Level) bool {
	return h.pending.Load() || h.inner.Enabled(ctx, l)
}

func (h *startHook) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == serveLogLine && h.pending.Swap(false) {
		h.fire()
	}
	if !h.inner.Enabled(ctx, r.Level) {
		return nil
	}
	return h.inner.Handle(ctx, r)
}

func (h *startHook) WithAttrs(a []slog.Attr) slog.Handler {
	return &startHook{inner: h.inner.WithAttrs(a), fire: h.fire}
}

func (h *startHook) WithGroup(name string) slog.Handler {
	return &startHook{inner: h.inner.WithGroup(name), fire: h.fire}
}

// restoreGRPCLogger undoes Remote.Start's silencing of gRPC: it installs
// the user's logger, or gRPC's own default as gRPC builds it from the
// environment (errors to stderr unless GRPC_GO_LOG_SEVERITY_LEVEL says
// otherwise).
func restoreGRPCLogger(l grpclog.LoggerV2) {
	if l == nil {
		l = defaultGRPCLogger()
	}
	grpclog.SetLoggerV2(l)
}

func defaultGRPCLogger() grpclog.LoggerV2 {
	var info, warning io.Writer = io.Discard, io.Discard
	switch strings.ToLower(os.Getenv("GRPC_GO_LOG_SEVERITY_LEVEL")) {
	case "warning":
		warning = os.Stderr
	case "info":
		info = os.Stderr
	}
	v, _ := strconv.Atoi(os.Getenv("GRPC_GO_LOG_VERBOSITY_LEVEL"))
	return grpclog.NewLoggerV2WithVerbosity(info, warning, os.Stderr, v)
}

// serverOptions are the remote server's gRPC options.
func serverOptions(cfg Config, sys *actor.ActorSystem, counts *counters) []grpc.ServerOption {
	if counts == nil {
		counts = new(counters)
	}
	g := &guard{secret: secretDigest(cfg.Secret), member: cfg.Name, sys: sys, counts: counts, log: cfg.Logger}
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.UnaryInterceptor(g.unary),
		grpc.StreamInterceptor(g.stream),
	}
	if cfg.ServerTLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.ServerTLS)))
	}
	return opts
}

// dialOptions are the options the endpoint writers dial other members
// with.
func dialOptions(cfg Config) []grpc.DialOption {
	opts := []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
	}
	if cfg.ClientTLS != nil {
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(cfg.ClientTLS)))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if cfg.Secret != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(secretCredentials{secret: cfg.Secret}))
	}
	return opts
}

// secretDigest is what the guard compares: digests of equal length, so
// that the comparison's time says nothing about the secret. nil: no
// secret is required.
func secretDigest(secret string) []byte {
	if secret == "" {
		return nil
	}
	d := sha256.Sum256([]byte(secret))
	return d[:]
}

// guard is the remote server's gatekeeper (see the comment at the top).
type guard struct {
	secret []byte
	member string
	sys    *actor.ActorSystem // whose address a batch may target
	counts *counters
	log    *slog.Logger
}

func (g *guard) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	return nil, status.Errorf(codes.Unimplemented, "cluster: member %s refuses %s", g.member, info.FullMethod)
}

func (g *guard) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if info.FullMethod != receiveMethod {
		return status.Errorf(codes.Unimplemented, "cluster: member %s refuses %s", g.member, info.FullMethod)
	}
	if err := g.check(ss.Context()); err != nil {
		return err
	}
	return g.serveContained(srv, ss, handler)
}

// check verifies the stream's secret, if one is required.
func (g *guard) check(ctx context.Context) error {
	if g.secret == nil {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(secretHeader)
	if len(vals) != 1 {
		return status.Errorf(codes.Unauthenticated, "cluster: member %s: %s: no cluster secret", g.member, receiveMethod)
	}
	got := sha256.Sum256([]byte(vals[0]))
	if subtle.ConstantTimeCompare(got[:], g.secret) != 1 {
		return status.Errorf(codes.Unauthenticated, "cluster: member %s: %s: wrong cluster secret", g.member, receiveMethod)
	}
	return nil
}

// secretCredentials sends the cluster secret with each stream. It does
// not require transport security: Config.Secret documents that without
// TLS the secret crosses the network in clear text.
type secretCredentials struct{ secret string }

func (s secretCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{secretHeader: s.secret}, nil
}

func (secretCredentials) RequireTransportSecurity() bool { return false }
