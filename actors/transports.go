package actors

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// spawnTransport starts the transport actor of generation gen, of the kind
// chosen for the server (stdio, stream, http, sse), as a child of the client
// actor.
func (a *clientActor) spawnTransport(ctx actor.Context, gen uint64, kind string) *transport.Conn {
	cfg := &a.h.cfg
	root, self := ctx.ActorSystem().Root, ctx.Self()
	switch kind {
	case typeHTTP, typeSSE:
		hc := cfg.HTTP
		hc.Server, hc.Generation, hc.Counters, hc.Limits = a.h.name, gen, a.h.stats, cfg.Limits
		hc.Client, hc.Logger = a.env.HTTPClient, a.env.Logger
		if kind == typeSSE {
			return transport.SpawnLegacySSE(ctx, root, self, hc)
		}
		return transport.SpawnHTTP(ctx, root, self, hc)
	default:
		sc := cfg.Stdio
		sc.Server, sc.Generation, sc.Counters, sc.Limits = a.h.name, gen, a.h.stats, cfg.Limits
		sc.StderrLine, sc.Logger = a.stderrLine(), a.env.Logger
		return transport.SpawnStdio(ctx, root, self, sc)
	}
}

// basePeer describes the server for telemetry before any handshake, with
// its Masker (a host a ${VAR} supplied is masked too).
func basePeer(name string, cfg *Spec, mask *redact.Masker) telemetry.Peer {
	if cfg.TelemetryName != "" {
		name = cfg.TelemetryName
	}
	p := telemetry.StdioPeer(name)
	switch cfg.TransportType() {
	case typeHTTP, typeSSE:
		p = telemetry.HTTPPeer(name, cfg.HTTP.URL)
		p.ServerAddress = mask.Text(p.ServerAddress)
	}
	p.Mask = mask
	return p
}

// legacyHint reports whether an http server's answer to initialize says it
// speaks only the legacy HTTP+SSE transport of 2024-11-05: a 400, 404 or
// 405 whose body is not a JSON-RPC error of the stateless protocol (those
// servers answer 404 with -32601 and 400 with -32020, -32021 or -32022)
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).
func legacyHint(err error) bool {
	se := callerr.HTTPStatus(err)
	if se == nil {
		return false
	}
	switch se.Status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		return false
	}
	if se.RPC == nil {
		return true
	}
	switch se.RPC.Code {
	case -32601:
		return se.Status != http.StatusNotFound
	case -32020, -32021, -32022:
		return se.Status != http.StatusBadRequest
	}
	return true
}

// transportMemo remembers, per runtime, what connecting found out about a
// server: the HTTP endpoints that speak only legacy HTTP+SSE (keyed by
// URL), and each server's protocol (keyed by serverKey), so that a server is
// probed once, not at every connection. It is a cache shared by the
// clients of a runtime, not protocol state; the manager persists it with
// its tool cache.
type transportMemo struct {
	legacy    sync.Map // URL -> true
	protocols sync.Map // server key -> protocolOf
	// learning holds, per server key, the verdict of the connection
	// probing that server, while it probes (learn).
	learning sync.Map
}

// learn lets one connection at a time probe the server key while no
// protocol is remembered for it: the others wait, once, for that probe's
// verdict, and take it instead of probing. A backend that brings up a
// session per user to one server probes it once rather than once per
// session, a round trip and a refused request each (server/discover
// against a server of the session protocol), or a probe timeout each
// against a server that does not answer it.
//
// found is the verdict this connection waited for: protocolSession when
// the server answered without the stateless protocol or not in time
// (initialize is then tried, and a stateless-only error probes again, as
// after a remembered session protocol), protocolStateless, or
// protocolUnknown when this connection is the one to probe, or that probe
// failed (its connection alone may be at fault: the others then probe
// for themselves, at once, rather than take turns). The prober calls
// probed with its verdict as soon as it has one (later calls do nothing),
// and done when its handshake is over: until then a connection that
// comes late takes the verdict too, as the memo may not have it yet. A
// waiting connection gives up after twice the probe's timeout, should
// the prober never say.
func (m *transportMemo) learn(ctx context.Context, key string, limit time.Duration) (found protocolOf, probed func(protocolOf), done func()) {
	if m == nil || key == "" || m.protocol(key) != protocolUnknown {
		return protocolUnknown, func(protocolOf) {}, func() {}
	}
	v := &probeVerdict{over: make(chan struct{})}
	if was, busy := m.learning.LoadOrStore(key, v); busy {
		prober := was.(*probeVerdict)
		t := time.NewTimer(2 * limit)
		defer t.Stop()
		select {
		case <-prober.over:
			return prober.found, func(protocolOf) {}, func() {}
		case <-t.C:
		case <-ctx.Done():
		}
		return protocolUnknown, func(protocolOf) {}, func() {}
	}
	probed = func(p protocolOf) {
		v.once.Do(func() {
			v.found = p
			close(v.over)
		})
	}
	return protocolUnknown, probed, func() {
		probed(protocolUnknown) // the probe failed: the others probe for themselves
		m.learning.Delete(key)
	}
}

// probeVerdict is what a connection probing a server found (learn): found is
// written once, before over is closed.
type probeVerdict struct {
	once  sync.Once
	over  chan struct{}
	found protocolOf
}

func (m *transportMemo) protocol(key string) protocolOf {
	if m == nil || key == "" {
		return protocolUnknown
	}
	v, _ := m.protocols.Load(key)
	e, _ := v.(protocolOf)
	return e
}

func (m *transportMemo) setProtocol(key string, e protocolOf) {
	if m != nil && key != "" {
		m.protocols.Store(key, e)
	}
}

// RememberEra tells the runtime which protocol (stateless or session) the
// server cfg spoke when last connected (from a cache that outlives the
// runtime, such as the manager's tool cache), so that its next connection
// skips the server/discover probe: a silent session-protocol server would
// otherwise cost a probe timeout at every start. What the runtime learned
// itself is kept; a wrong hint costs one re-probe (see negotiator).
func (e Env) RememberEra(cfg Spec, stateless bool) {
	p := protocolSession
	if stateless {
		p = protocolStateless
	}
	if key := serverKey(&cfg); e.memo != nil && key != "" {
		e.memo.protocols.LoadOrStore(key, p)
	}
}

// serverKey names a server for the memo: how it is reached.
func serverKey(cfg *Spec) string {
	switch cfg.TransportType() {
	case typeHTTP, typeSSE:
		return "url\x00" + cfg.HTTP.URL
	case typeStream:
		return "" // a program's own stream: nothing to remember it by
	}
	return "cmd\x00" + cfg.Stdio.Command + "\x00" + strings.Join(cfg.Stdio.Args, "\x00")
}

func (m *transportMemo) isLegacy(url string) bool {
	if m == nil {
		return false
	}
	_, ok := m.legacy.Load(url)
	return ok
}

func (m *transportMemo) setLegacy(url string, legacy bool) {
	if m == nil {
		return
	}
	if legacy {
		m.legacy.Store(url, true)
	} else {
		m.legacy.Delete(url)
	}
}
