package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestInternalAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "fd00::1": true, "0.0.0.0": true, "::": true, "100.64.0.1": true,
		"::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true,
		"64:ff9b::a9fe:a9fe": true, "2002:7f00:1::1": true, "198.18.0.1": true, "192.0.0.8": true,
		"64:ff9b::808:808": false, "2002:808:808::1": false,
		"203.0.113.7": false, "8.8.8.8": false, "2001:db8::1": false, "172.32.0.1": false,
	} {
		if got := internalAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("internalAddr(%s) = %v, want %v", s, got, want)
		}
	}
	for h, want := range map[string]bool{"localhost": true, "LOCALHOST": true, "localhost.": true, "api.localhost": true,
		"notlocalhost": false, "localhost.example.com": false} {
		if got, _ := internalHost(h); got != want {
			t.Errorf("internalHost(%q) = %v, want %v", h, got, want)
		}
	}
	if err := controlDial("tcp", "169.254.169.254:80", nil); !errors.Is(err, ErrPrivateAddress) {
		t.Errorf("controlDial to the metadata service: %v", err)
	}
	if err := controlDial("tcp", "203.0.113.7:443", nil); err != nil {
		t.Errorf("controlDial to a public address: %v", err)
	}
}

// publicConn is a connection to a test server that says it reached a
// public address: how a server on the internet looks to the client.
type publicConn struct{ net.Conn }

func (publicConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP("203.0.113.7"), Port: 443}
}

// steeringServer is an MCP server "on the internet" (mcp.example.com,
// reached at a public address as far as the client can tell), served by
// a TLS test server on loopback. Its 401 names the resource metadata URL
// in prm; every request it gets is noted with its Host.
type steeringServer struct {
	srv  *httptest.Server
	base *http.Transport
	port string
	prm  atomic.Value // the resource_metadata of the 401

	mu   sync.Mutex
	seen []string // host + path of each request
}

func newSteeringServer(t *testing.T) *steeringServer {
	s := &steeringServer{}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Host+r.URL.Path)
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/mcp":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.prm.Load().(string)+`"`)
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/to-loopback":
			http.Redirect(w, r, "https://127.0.0.1:"+s.port+"/prm", http.StatusFound)
		case r.URL.Path == "/to-http":
			http.Redirect(w, r, "http://plain.example.com:"+s.port+"/prm", http.StatusFound)
		case r.URL.Path == "/prm":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(ResourceMetadata{Resource: "https://mcp.example.com:" + s.port + "/mcp", AuthorizationServers: []string{"https://ok.example.com:" + s.port}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	_, s.port, _ = net.SplitHostPort(s.srv.Listener.Addr().String())
	// Every name dials the test server; what the client is told it
	// reached is a public address.
	s.base = s.srv.Client().Transport.(*http.Transport).Clone()
	s.base.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		c, err := new(net.Dialer).DialContext(ctx, network, s.srv.Listener.Addr().String())
		if err != nil {
			return nil, err
		}
		return publicConn{c}, nil
	}
	t.Cleanup(s.base.CloseIdleConnections)
	return s
}

func (s *steeringServer) url() string { return "https://mcp.example.com:" + s.port + "/mcp" }

func (s *steeringServer) saw(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.seen {
		if strings.HasPrefix(h, host+":") {
			return true
		}
	}
	return false
}

// resolver is the names of the test: a public address, loopback, a
// name that resolves to both (one record is enough to refuse).
func resolver(_ context.Context, host string) ([]netip.Addr, error) {
	switch host {
	case "ok.example.com", "plain.example.com":
		return []netip.Addr{netip.MustParseAddr("203.0.113.9")}, nil
	case "steer.example.com":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	case "both.example.com":
		return []netip.Addr{netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("169.254.169.254")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestSteeredFetches: a server on the internet cannot make the client
// fetch from loopback, private or link-local addresses, whether it names
// them by a literal, by a name that resolves there (checked at dial
// time, with the addresses the name resolved to), or by a redirect; nor
// plain HTTP to loopback. A public name is fetched.
func TestSteeredFetches(t *testing.T) {
	s := newSteeringServer(t)
	for _, tc := range []struct {
		name, prm string
		want      error
		reached   string // a host the test server must have seen, "" none
	}{
		{"plain http to loopback", "http://127.0.0.1:" + s.port + "/prm", ErrInsecureEndpoint, ""},
		{"https to a loopback literal", "https://127.0.0.1:" + s.port + "/prm", ErrPrivateAddress, ""},
		{"a name resolving to loopback", "https://steer.example.com:" + s.port + "/prm", ErrPrivateAddress, ""},
		{"a name resolving to link-local too", "https://both.example.com:" + s.port + "/prm", ErrPrivateAddress, ""},
		{"a redirect to loopback", "https://ok.example.com:" + s.port + "/to-loopback", ErrPrivateAddress, "ok.example.com"},
		{"a redirect to plain http", "https://ok.example.com:" + s.port + "/to-http", ErrInsecureEndpoint, "ok.example.com"},
		{"a public name", "https://ok.example.com:" + s.port + "/prm", nil, "ok.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.mu.Lock()
			s.seen = nil
			s.mu.Unlock()
			s.prm.Store(tc.prm)
			c := New(Config{})
			c.sh.lookup = resolver
			hc := &http.Client{Transport: c.RoundTripper(s.url(), s.base)}
			_, _, err := post(t, hc, s.url(), context.Background())
			switch {
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("error %v, want %v", err, tc.want)
			case tc.want == nil && (errors.Is(err, ErrPrivateAddress) || errors.Is(err, ErrInsecureEndpoint)):
				t.Errorf("a public name refused: %v", err)
			}
			for _, h := range []string{"127.0.0.1", "steer.example.com", "both.example.com", "plain.example.com"} {
				if s.saw(h) {
					t.Errorf("the server steered a request to %s", h)
				}
			}
			if tc.reached != "" && !s.saw(tc.reached) {
				t.Errorf("no request reached %s", tc.reached)
			}
		})
	}
}

// TestRedirectTargetChecked: a redirect of a metadata fetch is checked as
// the URL it replaces; a server on loopback cannot redirect the client to
// plain HTTP elsewhere.
func TestRedirectTargetChecked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/prm"`)
			w.WriteHeader(http.StatusUnauthorized)
		case "/prm":
			http.Redirect(w, r, "http://elsewhere.invalid/prm", http.StatusFound)
		}
	}))
	defer srv.Close()
	rec := &hostRecorder{next: http.DefaultTransport}
	c := New(Config{})
	hc := &http.Client{Transport: c.RoundTripper(srv.URL+"/mcp", rec)}
	_, _, err := post(t, hc, srv.URL+"/mcp", context.Background())
	if !errors.Is(err, ErrInsecureEndpoint) {
		t.Errorf("error %v, want ErrInsecureEndpoint", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, h := range rec.hosts {
		if strings.Contains(h, "elsewhere") {
			t.Errorf("the redirect to %s was followed", h)
		}
	}
}

// TestResourceMismatchUsesNothing: metadata naming another resource is
// refused before anything in it is used: its authorization server is
// never asked (RFC 9728 section 3.3).
func TestResourceMismatchUsesNothing(t *testing.T) {
	var asked atomic.Int64
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Add(1) }))
	defer as.Close()
	rs := newFakeRS(t, newFakeAS(t))
	rs.prm["resource"] = "http://127.0.0.1:1/other"
	rs.prm["authorization_servers"] = []string{as.URL}
	_, _, err := post(t, httpClient(New(Config{}), rs), rs.url(), context.Background())
	if !errors.Is(err, ErrResourceMismatch) || asked.Load() != 0 {
		t.Errorf("error %v and %d requests to the metadata's authorization server; want ErrResourceMismatch and none", err, asked.Load())
	}
}
