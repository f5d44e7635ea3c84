package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server-steered fetches. An MCP server decides where this client sends
// requests during authorization: its challenge names the resource
// metadata URL, the metadata names the authorization server, that
// server's metadata names the endpoints, and any of them may redirect. A
// server on the internet must not be able to use this client to reach
// what only the client can reach: its own loopback interface, the
// private network it sits in, link-local addresses (the cloud metadata
// service at 169.254.169.254 among them). So:
//
//   - plain http:// is allowed only to a loopback host, and only when the
//     MCP server itself is on a loopback host (checkURL);
//   - a redirect target passes the same check as the URL it replaces,
//     and only metadata GETs are redirected at all (redirectPolicy);
//   - when the MCP server is not on a loopback, private or link-local
//     address, no fetch it steers connects to one: every address a name
//     resolves to is checked, and the connection is made to the address
//     checked, so a DNS answer that changes between check and connect
//     (rebinding) gains nothing (fetchTransport).
//
// Where the MCP server is is the address this client's connection to it
// reached (its peer address, noted on every request), else its host when
// that is a literal address or localhost. Behind an HTTP proxy the peer
// is the proxy, and the proxy resolves the names: only literal addresses
// and localhost can be refused then, and nothing when the proxy is on a
// private network (the server counts as on it).

// ErrPrivateAddress matches every *AddressRefusedError.
var ErrPrivateAddress = errors.New("oauth: a server not on a private network steered a fetch to a loopback, private or link-local address")

// AddressRefusedError refuses a connection that an MCP server on the
// internet steered to a loopback, private or link-local address.
type AddressRefusedError struct {
	Host string // as the URL named it
	Addr string // the address it resolved to
}

func (e *AddressRefusedError) Error() string {
	s := "oauth: refused to connect to " + strconv.Quote(e.Host)
	if e.Addr != "" && e.Addr != e.Host {
		s += " (" + e.Addr + ")"
	}
	return s + ": the MCP server is not on a private network, and what it names may not reach a loopback, private or link-local address"
}

// Is makes errors.Is(err, ErrPrivateAddress) true.
func (e *AddressRefusedError) Is(target error) bool { return target == ErrPrivateAddress }

// cgnat is the shared address space of RFC 6598, private in practice;
// thisNetwork (0.0.0.0/8) reaches the local host on Linux.
// benchmarking (RFC 2544) and ietfProtocol (RFC 6890) are special-purpose
// IPv4 ranges no public server lives in. nat64 (RFC 6052) and sixToFour
// (RFC 3056) embed an IPv4 address that a NAT64 gateway or 6to4 relay
// reaches: 64:ff9b::a9fe:a9fe is the metadata service on a NAT64 network.
var (
	cgnat        = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork  = netip.MustParsePrefix("0.0.0.0/8")
	benchmarking = netip.MustParsePrefix("198.18.0.0/15")
	ietfProtocol = netip.MustParsePrefix("192.0.0.0/24")
	nat64        = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour    = netip.MustParsePrefix("2002::/16")
)

// internalAddr reports whether a is a loopback, private, link-local or
// unspecified address, or an IPv6 address that embeds one: one a server
// on the internet has no business making this client connect to.
func internalAddr(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return internalAddr(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(a):
			return internalAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified() || cgnat.Contains(a) || thisNetwork.Contains(a) ||
		benchmarking.Contains(a) || ietfProtocol.Contains(a)
}

// localhost reports whether host names the local host whatever resolves
// it: "localhost" in any case, with a trailing dot, and its subdomains
// (RFC 6761 reserves them all for loopback).
func localhost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// internalHost reports whether host is localhost or a literal internal
// address, and whether it is a literal or localhost at all.
func internalHost(host string) (internal, literal bool) {
	if localhost(host) {
		return true, true
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false, false
	}
	return internalAddr(a), true
}

// notePeer returns ctx with a trace that notes, in st, the address the
// connection of a request to the MCP server reached.
func (st *serverState) notePeer(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
		if ci.Conn == nil {
			return
		}
		if ap, err := netip.ParseAddrPort(ci.Conn.RemoteAddr().String()); err == nil {
			st.peer.Store(&ap)
		}
	}})
}

// onInternal reports whether the MCP server is on a loopback, private or
// link-local address: the one its connection reached, else its host's
// when that is a literal or localhost. Unknown is public.
func (st *serverState) onInternal() bool {
	if p := st.peer.Load(); p != nil {
		return internalAddr(p.Addr())
	}
	internal, _ := internalHost(st.su.Hostname())
	return internal
}

// fetchTransport carries the requests the MCP server steers (metadata,
// registration, token requests). For a server on an internal address
// they go through base, as the server's own requests do; for any other,
// through guarded, whose dials are checked, or, when base is a
// RoundTripper of the caller's that cannot be guarded at dial time,
// through base after the names are resolved and checked.
type fetchTransport struct {
	st      *serverState
	sh      *shared
	base    http.RoundTripper
	guarded *http.Transport // nil: base is not an *http.Transport

	proxies sync.Map // host:port of the proxies guarded's Proxy named -> true
}

// newFetchTransport guards base: a clone of it when it is an
// *http.Transport, else of http.DefaultTransport when base is the
// runtime's (own is false), else nothing (own: a Config.HTTPClient
// transport of another kind, checked before it is used).
func newFetchTransport(st *serverState, sh *shared, base http.RoundTripper, own bool) *fetchTransport {
	f := &fetchTransport{st: st, sh: sh, base: base}
	t, ok := base.(*http.Transport)
	switch {
	case ok:
	case own:
		return f
	default:
		if t, ok = http.DefaultTransport.(*http.Transport); !ok {
			t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, TLSHandshakeTimeout: 10 * time.Second}
		}
	}
	g := t.Clone()
	// Fetches are few (discovery, a token now and then): no pool of
	// idle connections per server to keep.
	g.DisableKeepAlives = true
	if p := g.Proxy; p != nil {
		g.Proxy = func(r *http.Request) (*url.URL, error) {
			u, err := p(r)
			if u != nil {
				f.proxies.Store(proxyAddr(u), true)
			}
			return u, err
		}
	}
	// A proxy is dialed as the transport would; a target through
	// dialer, whose own net.Dialer checks in Control the address the
	// socket connects to.
	proxyDial, targetDial := g.DialContext, g.DialContext
	if g.DialContext == nil {
		proxyDial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		targetDial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: controlDial}).DialContext
	}
	g.DialContext = f.dialer(proxyDial, targetDial)
	g.DialTLSContext = nil // a custom TLS dial would bypass the check: TLS is the transport's own
	f.guarded = g
	return f
}

// proxyAddr is the address the transport dials for proxy u.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func (f *fetchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if f.st.onInternal() {
		return f.base.RoundTrip(req)
	}
	host := req.URL.Hostname()
	if internal, _ := internalHost(host); internal {
		closeBody(req)
		return nil, &AddressRefusedError{Host: host}
	}
	if f.guarded != nil {
		return f.guarded.RoundTrip(req)
	}
	if _, err := f.resolve(req.Context(), host); err != nil {
		closeBody(req)
		return nil, err
	}
	return f.base.RoundTrip(req)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// resolve returns the addresses of host, or an *AddressRefusedError when
// any of them is internal.
func (f *fetchTransport) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lookup := f.sh.lookup
		if lookup == nil {
			lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			}
		}
		if addrs, err = lookup(ctx, host); err != nil {
			return nil, err
		}
	}
	for _, a := range addrs {
		if internalAddr(a) {
			return nil, &AddressRefusedError{Host: host, Addr: a.Unmap().String()}
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("oauth: %s has no address", host)
	}
	return addrs, nil
}

// dialer checks, at dial time, the addresses a name resolves to, and
// connects to those checked addresses only (inner gets a literal), so
// that the name is not resolved again behind the check. A dial to a
// proxy the transport's Proxy named is the user's configuration, not the
// server's: it is not checked.
func (f *fetchTransport) dialer(proxyDial, targetDial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if _, ok := f.proxies.Load(addr); ok {
			return proxyDial(ctx, network, addr)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		addrs, err := f.resolve(ctx, host)
		if err != nil {
			return nil, err
		}
		dial := targetDial
		if f.sh.dial != nil {
			dial = f.sh.dial
		}
		var last error
		for _, a := range addrs {
			conn, err := dial(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			last = err
		}
		return nil, last
	}
}

type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// controlDial refuses, in a net.Dialer's Control, a connection to an
// internal address: the last check, on the address the socket is about
// to connect to.
func controlDial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if internalAddr(ap.Addr()) {
		return &AddressRefusedError{Host: ap.Addr().String()}
	}
	return nil
}

// redirectPolicy lets a metadata GET follow at most 5 redirects, each to
// a URL checkURL accepts for this server; nothing else is redirected: a
// token or registration request redirected would carry a code, a secret
// or a refresh token to wherever the redirect points.
func redirectPolicy(serverLoopback bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.Method != http.MethodGet || len(via) >= 5 {
			return http.ErrUseLastResponse
		}
		return checkURL("redirect target", req.URL.String(), serverLoopback)
	}
}
