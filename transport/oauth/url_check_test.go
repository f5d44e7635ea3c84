package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://as.example/.well-known/oauth-protected-resource": true,
		"https://as.example:8443/token?x=1":                       true,
		"http://localhost:3000/prm":                               true,
		"http://127.0.0.1/prm":                                    true,
		"http://127.8.9.10/prm":                                   true,
		"http://[::1]:9/prm":                                      true,
		"http://as.example/prm":                                   false,
		"http://10.0.0.1/prm":                                     false,
		"https://user:pw@as.example/token":                        false,
		"https://as.example/token#frag":                           false,
		"https://as.example/token#":                               false,
		"ftp://as.example/token":                                  false,
		"/relative/path":                                          false,
		"https:///nohost":                                         false,
		"http://localhost.evil.example/prm":                       false,
	} {
		err := checkURL("token endpoint", raw, true)
		var re *URLRefusedError
		if (err == nil) != ok || err != nil && (!errors.Is(err, ErrInsecureEndpoint) || !errors.As(err, &re)) {
			t.Errorf("%s: %v", raw, err)
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("%s: the error shows the password: %v", raw, err)
		}
	}
}

// hostRecorder is a RoundTripper that records the hosts asked for and
// serves them from a local handler.
type hostRecorder struct {
	mu    sync.Mutex
	hosts []string
	next  http.RoundTripper
}

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.hosts = append(h.hosts, r.URL.Host)
	h.mu.Unlock()
	return h.next.RoundTrip(r)
}

// A challenge that points the client at metadata on a plain-HTTP remote
// host, or metadata that names such an authorization server, is refused
// before anything is fetched from there.
func TestDiscoveryRefusesUnsafeURLs(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ResourceMetadata{Resource: srv.URL + "/mcp", AuthorizationServers: []string{"http://as.example"}})
	}))
	defer srv.Close()
	rec := &hostRecorder{next: http.DefaultTransport}
	hc := &http.Client{Transport: rec}
	c := &Client{}
	for _, tc := range []struct {
		name string
		ch   Challenge
		want string
	}{
		{"resource_metadata over http", Challenge{ResourceMetadata: "http://evil.example/prm"}, "protected resource metadata"},
		{"resource_metadata with userinfo", Challenge{ResourceMetadata: "https://u:p@evil.example/prm"}, "userinfo"},
		{"issuer over http", Challenge{ResourceMetadata: srv.URL + "/prm"}, "authorization server"},
	} {
		_, err := c.discover(context.Background(), hc, srv.URL+"/mcp", tc.ch)
		var re *URLRefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a URLRefusedError about the %s", tc.name, err, tc.want)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, h := range rec.hosts {
		if strings.Contains(h, "example") {
			t.Errorf("fetched from %s", h)
		}
	}
	if len(rec.hosts) != 1 {
		t.Errorf("requests to %v, want one (the loopback metadata)", rec.hosts)
	}
}
