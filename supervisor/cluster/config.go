package cluster

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"time"

	"google.golang.org/grpc/grpclog"

	"github.com/mcpactor/mcpactor"
)

// Defaults of Config's tuning fields.
const (
	// DefaultLeaseTTL is the member lease's time to live. A lost member's
	// servers answer again elsewhere within about this long plus a second.
	DefaultLeaseTTL = 3 * time.Second
	// MinLeaseTTL is the shortest lease accepted: etcd counts TTLs in
	// whole seconds, and the renewal and fencing margins need room.
	MinLeaseTTL = time.Second
	// DefaultPrefix is the etcd key prefix when Etcd.Prefix is empty.
	DefaultPrefix = "/mcpactor/cluster/"
	// DefaultCallTimeout bounds a cluster call whose context has no
	// deadline: placement, the hop and the owner's own call.
	DefaultCallTimeout = 60 * time.Second
	// DefaultMaxServeTimeout caps how long a request from another member
	// may run on this one: the caller's remaining deadline, which it
	// sends, is capped to it.
	DefaultMaxServeTimeout = 10 * time.Minute
	// DefaultMaxTenantActivations bounds the tenants' sessions a member
	// owns at once (each may be a server process).
	DefaultMaxTenantActivations = 1000
	// DefaultMaxOutboundBytes bounds the bytes waiting to be written to
	// one other member: four full-size (16 MiB) messages.
	DefaultMaxOutboundBytes = 64 << 20
	// DefaultOutboundStallTimeout is how long bytes waiting for another
	// member may make no progress before its connection is evicted.
	DefaultOutboundStallTimeout = 10 * time.Second
	// MaxMessageBytes is the gRPC receive and send limit of the remote
	// layer: above the runtime's 16 MiB frame cap, so that one full-size
	// result fits, times the writer's batch (remoteBatch) with room.
	MaxMessageBytes = 256 << 20
)

// Config configures a Member. Etcd.Endpoints and Servers are required;
// every other zero value selects the documented default.
type Config struct {
	// Name identifies the member in etcd, in errors and in logs. Empty
	// picks a random one. Two live members must not share a name.
	Name string
	// Etcd is the authority on membership and ownership.
	Etcd EtcdConfig
	// LeaseTTL is the member lease's time to live (default
	// DefaultLeaseTTL, at least MinLeaseTTL, whole seconds). A member that
	// cannot renew its lease stops its servers LeaseTTL/3 before the lease
	// can expire; the others take over once it has.
	LeaseTTL time.Duration
	// BindAddress is the host:port the remote layer listens on (default
	// "127.0.0.1:0": loopback and a free port). AdvertisedAddress, when
	// set, is the address other members dial instead of the bound one.
	BindAddress       string
	AdvertisedAddress string
	// Servers are the MCP servers of the cluster by name. Every member
	// must have the same set: any member may be asked to own any server.
	Servers map[string]mcpactor.ServerConfig
	// ServerFor, if set, derives the configuration of one identity's
	// session from the server's (for example a per-user token or
	// environment). It runs on the owner, before the server starts.
	ServerFor func(id Identity, base mcpactor.ServerConfig) (mcpactor.ServerConfig, error)
	// Secret, when set, is required of every remote connection: members
	// send it with each stream and refuse streams without it. All members
	// must share it. It never appears in errors or logs. Without TLS it
	// crosses the network in clear text.
	Secret string
	// ServerTLS, when set, serves the remote layer over TLS (set ClientCAs
	// and ClientAuth tls.RequireAndVerifyClientCert for mutual TLS);
	// ClientTLS dials the other members with TLS. Both nil: plain TCP,
	// for loopback and trusted networks.
	ServerTLS *tls.Config
	ClientTLS *tls.Config
	// InsecureAllowUnauthenticated lets a member listen on an address
	// other than loopback with neither Secret nor mutual TLS. Anyone who
	// can reach that address can then run any tool on any identity's
	// session (every tenant's) and read the results, so Start refuses
	// such a member unless this is set: only for a network where every
	// process that can connect is trusted. Start logs a warning when it
	// is used.
	InsecureAllowUnauthenticated bool
	// GRPCLogger is installed as gRPC's logger once the remote layer has
	// started, because protoactor's remote replaces it with one that
	// discards everything and gRPC offers no way to read the current one.
	// nil reinstalls gRPC's own default (errors to stderr, tuned by
	// GRPC_GO_LOG_SEVERITY_LEVEL and GRPC_GO_LOG_VERBOSITY_LEVEL).
	GRPCLogger grpclog.LoggerV2
	// CallOnly makes a member that calls every server but owns none: it is
	// never picked to activate an identity (a gateway, a test driver).
	CallOnly bool
	// Runtime configures this member's mcpactor runtime.
	Runtime mcpactor.Options
	// Supervision tunes the manager (mcpactor.Manager) that runs the
	// servers this member owns. Each server's restart policy and
	// keepalive are its ServerConfig's Restart and Keepalive.
	Supervision Supervision
	// CallTimeout bounds calls whose context has no deadline (default
	// DefaultCallTimeout).
	CallTimeout time.Duration
	// MaxServeTimeout caps the time a request from another member may
	// run here (default DefaultMaxServeTimeout): the remaining deadline a
	// peer sends is capped to it, so that no peer holds a worker and a
	// server's call for longer.
	MaxServeTimeout time.Duration
	// MaxTenantActivations bounds the tenants' sessions (identities with
	// a tenant) this member owns at once (default
	// DefaultMaxTenantActivations): past it, a new tenant's activation is
	// refused with ErrTooManyActivations, so that callers naming ever new
	// tenants cannot start server processes without bound. The shared
	// sessions (no tenant) are bounded by Servers.
	MaxTenantActivations int
	// MaxOutboundBytes bounds, per other member, the bytes of the messages
	// handed to the remote layer and not yet written to that member's
	// connection (default DefaultMaxOutboundBytes): past it, a request to
	// that member fails with *BackloggedError and a reply to it is
	// dropped, both counted (Counters.Backlogged). A message is always
	// sent when nothing waits, whatever its size.
	MaxOutboundBytes int64
	// OutboundStallTimeout is how long bytes waiting for another member
	// may make no progress (its handshake not answered, or it does not
	// read) before the member's connection to it is closed and what waits
	// for it dropped (default DefaultOutboundStallTimeout; counted in
	// Counters.StalledPeers). Its calls in flight end with
	// *MemberLostError.
	OutboundStallTimeout time.Duration
	// Logger receives membership and ownership events. nil discards them.
	Logger *slog.Logger
}

// Supervision tunes the member's manager of the servers it owns
// (docs/cluster.md, "Supervision of owned servers"). The zero value
// selects the manager's defaults.
type Supervision struct {
	// FailFast makes calls to an owned server that is restarting fail at
	// once with an ErrServerUnavailable *mcpactor.Error; by default they wait
	// for the restart (bounded by their context and the connect timeout).
	FailFast bool
	// BreakerBackoff and BreakerRetry are the circuit breaker of an owned
	// server whose restarts failed too often: it rests BreakerBackoff
	// (default 5 s, jittered) before one trial connection, and each failed
	// trial doubles the rest up to BreakerRetry (default 5 minutes), as
	// mcpactor.ManageOptions says; its calls meanwhile fail at once with
	// an ErrServerUnavailable *mcpactor.Error.
	BreakerBackoff time.Duration
	BreakerRetry   time.Duration
	// RestartWait bounds a call's wait for an owned server that is
	// restarting (default its connect timeout), as
	// mcpactor.ManageOptions.RestartWait does.
	RestartWait time.Duration
	// MaxConnecting bounds the handshakes in flight on this member
	// (default 8): a bring-up of many identities queues the rest.
	MaxConnecting int
}

// EtcdConfig says where etcd is and how to talk to it.
type EtcdConfig struct {
	// Endpoints are etcd's client URLs ("http://127.0.0.1:2379").
	Endpoints []string
	// Prefix is the key prefix of this cluster (default DefaultPrefix).
	// Clusters sharing an etcd must use different prefixes.
	Prefix string
	// TLS, when set, is used to dial etcd.
	TLS *tls.Config
	// Username and Password, when set, authenticate to etcd.
	Username, Password string
	// DialTimeout bounds the first connection (default 5 s).
	DialTimeout time.Duration
}

// normalize returns the config with defaults filled in, or a
// *ConfigError.
func (c Config) normalize() (Config, error) {
	if len(c.Etcd.Endpoints) == 0 {
		return c, &ConfigError{Field: "Etcd.Endpoints", Reason: "no etcd endpoint"}
	}
	if len(c.Servers) == 0 {
		return c, &ConfigError{Field: "Servers", Reason: "no server"}
	}
	for name := range c.Servers {
		if name == "" || strings.ContainsAny(name, "/\x00") {
			return c, &ConfigError{Field: "Servers", Reason: fmt.Sprintf("server name %q is empty or holds '/'", name)}
		}
	}
	if c.Etcd.Prefix == "" {
		c.Etcd.Prefix = DefaultPrefix
	}
	if !strings.HasSuffix(c.Etcd.Prefix, "/") {
		c.Etcd.Prefix += "/"
	}
	if c.Etcd.DialTimeout <= 0 {
		c.Etcd.DialTimeout = 5 * time.Second
	}
	switch {
	case c.LeaseTTL == 0:
		c.LeaseTTL = DefaultLeaseTTL
	case c.LeaseTTL < MinLeaseTTL:
		return c, &ConfigError{Field: "LeaseTTL", Reason: fmt.Sprintf("%v is below the minimum %v", c.LeaseTTL, MinLeaseTTL)}
	}
	c.LeaseTTL = c.LeaseTTL.Round(time.Second)
	if c.BindAddress == "" {
		c.BindAddress = "127.0.0.1:0"
	}
	if err := c.checkAuthenticated(); err != nil {
		return c, err
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.MaxServeTimeout <= 0 {
		c.MaxServeTimeout = DefaultMaxServeTimeout
	}
	if c.MaxTenantActivations <= 0 {
		c.MaxTenantActivations = DefaultMaxTenantActivations
	}
	if c.MaxOutboundBytes <= 0 {
		c.MaxOutboundBytes = DefaultMaxOutboundBytes
	}
	if c.OutboundStallTimeout <= 0 {
		c.OutboundStallTimeout = DefaultOutboundStallTimeout
	}
	if c.Name == "" {
		c.Name = randomName()
	}
	if strings.ContainsAny(c.Name, "/\x00") {
		return c, &ConfigError{Field: "Name", Reason: fmt.Sprintf("member name %q holds '/'", c.Name)}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// checkAuthenticated refuses a remote layer that anyone on the network
// could use: a listen address other than loopback needs Secret or mutual
// TLS, unless InsecureAllowUnauthenticated says the network is trusted.
func (c Config) checkAuthenticated() error {
	if c.Secret != "" || c.mutualTLS() || c.InsecureAllowUnauthenticated {
		return nil
	}
	host, _, err := net.SplitHostPort(c.BindAddress)
	if err != nil || isLoopback(host) {
		return nil // a malformed address is startRemote's to report
	}
	return &ConfigError{Field: "BindAddress", Reason: fmt.Sprintf("%s is not a loopback address, and the member has neither Secret nor "+
		"mutual TLS (ServerTLS with ClientAuth tls.RequireAndVerifyClientCert): anyone who can reach it could run tools on every session; "+
		"set one (or InsecureAllowUnauthenticated, for a network where every process is trusted)", c.BindAddress)}
}

// mutualTLS reports whether the remote layer requires and verifies
// client certificates.
func (c Config) mutualTLS() bool {
	return c.ServerTLS != nil && c.ServerTLS.ClientAuth == tls.RequireAndVerifyClientCert
}

// isLoopback reports whether host (of a listen address) is loopback
// only: "localhost" or a loopback IP. An empty host, an unspecified one
// (0.0.0.0, ::) and any other name listen beyond the machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// ConfigError reports a Config that cannot start a member.
type ConfigError struct {
	Field, Reason string
}

func (e *ConfigError) Error() string {
	return "cluster: config " + e.Field + ": " + e.Reason
}
