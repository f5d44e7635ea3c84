package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseChallenge(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want Challenge
		ok   bool
	}{
		{[]string{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="files:read"`},
			Challenge{Scheme: "Bearer", ResourceMetadata: "https://x/.well-known/oauth-protected-resource", Scope: "files:read"}, true},
		{[]string{`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/m", error_description="need \"b\""`},
			Challenge{Scheme: "Bearer", ResourceMetadata: "https://x/m", Scope: "a b", Error: "insufficient_scope", ErrorDescription: `need "b"`}, true},
		{[]string{`Basic realm="x", Bearer scope=read`}, Challenge{Scheme: "Bearer", Scope: "read"}, true},
		{[]string{`Basic dXNlcjpwYXNz==`, `bearer Error=invalid_token,resource_metadata=https://x/m`}, Challenge{Scheme: "bearer", Error: "invalid_token", ResourceMetadata: "https://x/m"}, true},
		{[]string{`Basic realm="x"`}, Challenge{}, false},
		{nil, Challenge{}, false},
		{[]string{`Bearer`}, Challenge{Scheme: "Bearer"}, true},
		// RFC 9449 section 7.1: a server taking DPoP tokens may offer
		// only a DPoP challenge, with the same parameters.
		{[]string{`DPoP algs="ES256", resource_metadata="https://x/m"`}, Challenge{Scheme: "DPoP", ResourceMetadata: "https://x/m"}, true},
		{[]string{`DPoP error="use_dpop_nonce", error_description="nonce"`, `Bearer scope=x`}, Challenge{Scheme: "DPoP", Error: "use_dpop_nonce", ErrorDescription: "nonce"}, true},
	} {
		h := http.Header{}
		for _, v := range tc.in {
			h.Add("WWW-Authenticate", v)
		}
		got, ok := ParseChallenge(h)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseChallenge(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseChallenge(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://x/m", scope="a b", error="insufficient_scope"`)
	f.Add(`Basic abc==, Bearer scope=x`)
	f.Fuzz(func(t *testing.T, s string) {
		h := http.Header{"Www-Authenticate": {s}}
		ParseChallenge(h) // never panics, never loops
	})
}

func TestWellKnownURLs(t *testing.T) {
	u, _ := url.Parse("https://example.com/public/mcp/")
	if got, want := wellKnownResourceURLs(u), []string{"https://example.com/.well-known/oauth-protected-resource/public/mcp", "https://example.com/.well-known/oauth-protected-resource"}; !slices.Equal(got, want) {
		t.Errorf("resource URLs %q", got)
	}
	u, _ = url.Parse("https://auth.example.com/tenant1")
	if got, want := wellKnownServerURLs(u), []string{
		"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-configuration"}; !slices.Equal(got, want) {
		t.Errorf("server URLs %q", got)
	}
	u, _ = url.Parse("https://auth.example.com")
	if got, want := wellKnownServerURLs(u), []string{"https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"}; !slices.Equal(got, want) {
		t.Errorf("server URLs %q", got)
	}
}

func TestResourceMatches(t *testing.T) {
	su, _ := url.Parse("https://MCP.example.com/api/mcp")
	for res, want := range map[string]bool{
		"https://mcp.example.com/api/mcp":     true,
		"https://mcp.example.com":             true,
		"https://mcp.example.com:443/api":     true,
		"https://mcp.example.com/ap":          false,
		"https://mcp.example.com/api/mcp2":    false,
		"http://mcp.example.com/api/mcp":      false,
		"https://evil.example.com/api/mcp":    false,
		"https://mcp.example.com/api/mcp#x":   false,
		"":                                    false,
		"https://mcp.example.com/api/mcp/sub": false,
	} {
		if got := resourceMatches(res, su); got != want {
			t.Errorf("resourceMatches(%q) = %v", res, got)
		}
	}
}

// TestSecretsRedacted: a token, a client identity, a Config and a Client
// format and log (text and JSON) without their secrets, and
// a token endpoint's error keeps its code but not its body.
func TestSecretsRedacted(t *testing.T) {
	tok := Token{AccessToken: "secret-access", RefreshToken: "secret-refresh", Scope: "a"}
	ci := ClientInfo{ClientID: "id", ClientSecret: "secret-client"}
	cfg := Config{ClientID: "id", ClientSecret: "secret-config", CrossApp: &CrossApp{IDPClientSecret: "secret-idp"}}
	cl := New(cfg)
	var b strings.Builder
	for _, h := range []slog.Handler{slog.NewTextHandler(&b, nil), slog.NewJSONHandler(&b, nil)} {
		slog.New(h).Info("x", "token", tok, "ptr", &tok, "client", ci, "config", cfg, "oauth", cl)
	}
	for _, s := range []string{fmt.Sprint(tok), fmt.Sprintf("%v %+v %#v %s", tok, tok, tok, &tok), b.String(),
		fmt.Sprintf("%v %+v %#v", ci, ci, ci), fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg), fmt.Sprintf("%v %+v %#v", cl, cl, cl)} {
		if strings.Contains(s, "secret-") {
			t.Errorf("a secret in %q", s)
		}
	}
	as := newFakeAS(t)
	c := New(Config{})
	st, _ := c.server("http://127.0.0.1/mcp", http.DefaultTransport)
	_, err := c.tokenRequest(context.Background(), st, as.srv.URL+"/token", as.srv.URL, &ClientInfo{ClientID: "x", AuthMethod: AuthNone},
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"secret-rt"}, "resource": {"r"}}, nil)
	var te *TokenError
	if !errors.As(err, &te) || te.Code != "invalid_grant" || strings.Contains(err.Error(), "secret-") {
		t.Errorf("error %v", err)
	}
}

// TestFileStore: files are the user's alone, a CompareAndSwap holds
// across stores sharing the directory (as processes do), and Lock
// excludes the other holders until unlocked.
func TestFileStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	a, b := &FileStore{Dir: dir}, &FileStore{Dir: dir}
	ctx := context.Background()
	key := Key{Issuer: "https://as", ClientID: "c", Identity: "u", Resource: "https://rs/mcp"}
	t1 := &Token{AccessToken: "a1", RefreshToken: "r1", Expiry: time.Now().Add(time.Hour).Round(0)}
	if ok, err := a.CompareAndSwap(ctx, key, nil, t1); !ok || err != nil {
		t.Fatalf("first store: %v %v", ok, err)
	}
	got, err := b.Load(ctx, key)
	if err != nil || !same(got, t1) || !got.Expiry.Equal(t1.Expiry) {
		t.Fatalf("Load from another store: %v %v", got, err)
	}
	if other, _ := b.Load(ctx, Key{Issuer: "https://as", ClientID: "c", Identity: "v", Resource: "https://rs/mcp"}); other != nil {
		t.Fatalf("another identity's Load found a token")
	}
	if runtime.GOOS != "windows" {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, _ := e.Info(); strings.HasPrefix(e.Name(), "token-") && info.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %v", e.Name(), info.Mode().Perm())
			}
		}
		if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
			t.Errorf("the directory has mode %v", info.Mode().Perm())
		}
	}
	// Two refreshes of r1 race: one wins, the other is told.
	var wins atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			ok, err := s.CompareAndSwap(ctx, key, t1, &Token{AccessToken: fmt.Sprint("a2-", i), RefreshToken: fmt.Sprint("r2-", i)})
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d swaps of the same token won, want 1", wins.Load())
	}
	unlock, err := a.Lock(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := b.Lock(short, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second Lock while held: %v", err)
	}
	unlock()
	unlock2, err := b.Lock(ctx, key)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock2()
	if ok, err := a.CompareAndSwap(ctx, key, mustLoad(t, a, key), nil); !ok || err != nil {
		t.Errorf("delete: %v %v", ok, err)
	}
	if got, _ := a.Load(ctx, key); got != nil {
		t.Errorf("deleted token still there")
	}
	// Registrations.
	ci := &ClientInfo{ClientID: "dyn", ClientSecret: "s", AuthMethod: AuthSecretBasic}
	if err := a.StoreClient(ctx, "https://as", "p", ci); err != nil {
		t.Fatal(err)
	}
	if got, err := b.LoadClient(ctx, "https://as", "p"); err != nil || got == nil || *got != *ci {
		t.Errorf("LoadClient: %v %v", got, err)
	}
	if got, _ := b.LoadClient(ctx, "https://other", "p"); got != nil {
		t.Errorf("another issuer's registration found")
	}
}

func mustLoad(t *testing.T, s Store, key Key) *Token {
	t.Helper()
	tok, err := s.Load(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestFileStoreRestart: a second Client over the same files uses the
// tokens and registration the first obtained, without the user.
func TestFileStoreRestart(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	store := &FileStore{Dir: t.TempDir()}
	first := New(Config{Store: store, UserStep: login(http.DefaultClient), Identity: "gina"})
	if status, body, err := post(t, httpClient(first, rs), rs.url(), context.Background()); status != 200 || body != "gina" {
		t.Fatalf("first: %d %q %v", status, body, err)
	}
	second := New(Config{Store: store, Identity: "gina"}) // no UserStep: it must not need one
	if status, body, err := post(t, httpClient(second, rs), rs.url(), context.Background()); status != 200 || body != "gina" {
		t.Fatalf("second: %d %q %v", status, body, err)
	}
	if as.registered.Load() != 1 || len(as.authorize) != 1 {
		t.Errorf("%d registrations, %d authorizations; want 1 and 1", as.registered.Load(), len(as.authorize))
	}
	// A third start finds the token expired: a refresh, still no user.
	expireAll(t, second)
	third := New(Config{Store: store, Identity: "gina"})
	if status, body, err := post(t, httpClient(third, rs), rs.url(), context.Background()); status != 200 || body != "gina" {
		t.Fatalf("third: %d %q %v", status, body, err)
	}
	if as.refreshCount.Load() != 1 || len(as.authorize) != 1 {
		t.Errorf("%d refreshes, %d authorizations; want 1 and 1", as.refreshCount.Load(), len(as.authorize))
	}
}

// TestClientCredentials: with a secret (Basic) and with a private key
// (private_key_jwt), the client acts for itself.
func TestClientCredentials(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	parsed, err := ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{
		"secret": {ClientID: "svc", ClientSecret: "s3cret"},
		"jwt":    {ClientID: "svc", PrivateKey: parsed},
	} {
		t.Run(name, func(t *testing.T) {
			as := newFakeAS(t)
			as.clientID, as.secret, as.publicKey = "svc", "s3cret", key.Public()
			rs := newFakeRS(t, as)
			cfg.Grant = GrantClientCredentials
			c := New(cfg)
			if status, body, err := post(t, httpClient(c, rs), rs.url(), context.Background()); status != 200 || body != "client:svc" {
				t.Fatalf("%d %q %v", status, body, err)
			}
			if len(as.authorize) != 0 || as.registered.Load() != 0 {
				t.Errorf("the user or a registration was involved")
			}
		})
	}
}

// TestLegacyFallback: a server without resource metadata (2025-03-26)
// has its authorization server at its origin, with the default endpoints
// when that has no metadata either. Root metadata naming an issuer with a
// path on the same origin is used with that issuer; one naming another
// origin is refused.
func TestLegacyFallback(t *testing.T) {
	for name, tc := range map[string]struct {
		issuer     func(origin string) string // the root metadata's issuer; nil: no metadata
		wantIssuer func(origin string) string
		wantErr    error
	}{
		"no metadata":  {wantIssuer: func(o string) string { return o }},
		"same origin":  {issuer: func(o string) string { return o + "/oauth" }, wantErr: ErrIssuerMismatch},
		"other origin": {issuer: func(string) string { return "https://elsewhere.example" }, wantErr: ErrIssuerMismatch},
	} {
		t.Run(name, func(t *testing.T) {
			srv := legacyServer(t, tc.issuer)
			origin := srv.URL
			c := New(Config{UserStep: UserStepFunc(func(ctx context.Context, r *AuthorizationRequest) (url.Values, error) {
				if !strings.HasPrefix(r.URL, origin+"/authorize?") || r.Issuer != tc.wantIssuer(origin) {
					t.Errorf("authorization request %s at %s", r.URL, r.Issuer)
				}
				return login(http.DefaultClient).Authorize(ctx, r)
			})})
			hc := &http.Client{Transport: c.RoundTripper(origin+"/mcp", http.DefaultTransport)}
			req, _ := http.NewRequest(http.MethodPost, origin+"/mcp", strings.NewReader("{}"))
			resp, err := hc.Do(req)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%v %v", resp, err)
			}
			resp.Body.Close()
		})
	}
}

// legacyServer is a 2025-03-26 server: no resource metadata, its own
// authorization server at /authorize, /token and /register, and root
// authorization server metadata naming issuer(origin) unless issuer is nil.
func legacyServer(t *testing.T, issuer func(origin string) string) *httptest.Server {
	var tokens sync.Map
	var origin string
	mux := http.NewServeMux()
	if issuer != nil {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"issuer":                           issuer(origin),
				"authorization_endpoint":           origin + "/authorize",
				"token_endpoint":                   origin + "/token",
				"registration_endpoint":            origin + "/register",
				"code_challenge_methods_supported": []string{"S256"},
			})
		})
	}
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		red, _ := url.Parse(q.Get("redirect_uri"))
		red.RawQuery = url.Values{"code": {"c"}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, red.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		tokens.Store("legacy-token", true)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"access_token":"legacy-token","token_type":"bearer"}`))
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"client_id":"legacy-client"}`))
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, ok := tokens.Load(tok); !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	origin = srv.URL
	return srv
}

// TestIssParameter: an authorization response whose iss is not the
// issuer is refused before its code is used (RFC 9207), and so is one
// without iss from a server that promised it.
func TestIssParameter(t *testing.T) {
	for name, tamper := range map[string]func(url.Values){
		"wrong":  func(q url.Values) { q.Set("iss", "https://attacker.example") },
		"absent": func(q url.Values) { q.Del("iss") },
	} {
		t.Run(name, func(t *testing.T) {
			as := newFakeAS(t)
			as.set("authorization_response_iss_parameter_supported", true)
			rs := newFakeRS(t, as)
			c := New(Config{UserStep: UserStepFunc(func(ctx context.Context, r *AuthorizationRequest) (url.Values, error) {
				q, err := login(http.DefaultClient).Authorize(ctx, r)
				if err == nil {
					tamper(q)
				}
				return q, err
			})})
			_, _, err := post(t, httpClient(c, rs), rs.url(), context.Background())
			if !errors.Is(err, ErrIssuerMismatch) {
				t.Fatalf("error %v, want ErrIssuerMismatch", err)
			}
			for _, q := range as.tokenReqs {
				if q.Get("grant_type") == "authorization_code" {
					t.Errorf("the code went to the token endpoint")
				}
			}
		})
	}
}

// TestRefreshHeader: a 401 fetches the header once more and sends the
// request again, once; requests that failed with the same value share
// the fetch.
func TestRefreshHeader(t *testing.T) {
	var current atomic.Value
	current.Store("v1")
	var seen401 atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+current.Load().(string) {
			seen401.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var fetches atomic.Int64
	h := &RefreshHeader{Name: "Authorization", Value: "Bearer v1", Fetch: func(context.Context) (string, error) {
		fetches.Add(1)
		return "Bearer " + current.Load().(string), nil
	}}
	hc := &http.Client{Transport: h.RoundTripper(srv.URL, nil)}
	do := func() int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		resp, err := hc.Do(req)
		if err != nil {
			t.Error(err) // do runs on other goroutines too: no Fatal
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if do() != 200 || fetches.Load() != 0 {
		t.Fatalf("with a good value: fetched %d times", fetches.Load())
	}
	current.Store("v2") // the token the command prints changes
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if s := do(); s != 200 {
				t.Errorf("status %d after the value changed", s)
			}
		})
	}
	wg.Wait()
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
	h.Fetch = func(context.Context) (string, error) { return "Bearer stale", nil }
	current.Store("v3")
	if s := do(); s != http.StatusUnauthorized {
		t.Errorf("status %d when the fetched value is refused too, want 401", s)
	}
}

// TestLoopback: the command line's user step listens on the redirect
// URL's loopback port; the "browser" (Open) follows the authorization
// server's redirect there, and the flow completes.
func TestLoopback(t *testing.T) {
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	var browsing sync.WaitGroup
	defer browsing.Wait()
	var out strings.Builder
	c := New(Config{Identity: "hana", RedirectURL: fmt.Sprintf("http://127.0.0.1:%d/callback", port),
		UserStep: &Loopback{Out: &out, Open: func(u string) error {
			browsing.Go(func() {
				resp, err := http.Get(u + "&login=hana")
				if err != nil {
					t.Errorf("browser: %v", err)
					return
				}
				resp.Body.Close()
			})
			return nil
		}}})
	if status, body, err := post(t, httpClient(c, rs), rs.url(), context.Background()); status != 200 || body != "hana" {
		t.Fatalf("%d %q %v", status, body, err)
	}
	if !strings.Contains(out.String(), as.srv.URL+"/authorize?") {
		t.Errorf("the URL was not printed: %q", out.String())
	}
}

func TestCheckEndpoints(t *testing.T) {
	for e, ok := range map[string]bool{
		"https://as.example/token": true,
		"http://127.0.0.1:8080/t":  true,
		"http://localhost/t":       true,
		"http://[::1]:9/t":         true,
		"http://as.example/token":  false,
		"ftp://as.example/token":   false,
	} {
		err := checkEndpoints(&ServerMetadata{Issuer: "https://as.example", TokenEndpoint: e}, true)
		if (err == nil) != ok || err != nil && !errors.Is(err, ErrInsecureEndpoint) {
			t.Errorf("%s: %v", e, err)
		}
	}
}

// TestSuppliedClientRedirects: a Config.HTTPClient of the caller's keeps
// the guard: a token request redirected elsewhere is not followed, so its
// secret and refresh token stay where they were sent.
func TestSuppliedClientRedirects(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	token := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/token", http.StatusTemporaryRedirect)
	}))
	defer token.Close()
	c := New(Config{HTTPClient: &http.Client{}})
	st, err := c.server("http://127.0.0.1/mcp", http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.tokenRequest(context.Background(), st, token.URL+"/token", token.URL, &ClientInfo{ClientID: "x", ClientSecret: "s", AuthMethod: AuthSecretPost},
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt"}, "resource": {"r"}}, nil)
	if err == nil {
		t.Error("a redirected token request succeeded")
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect was followed %d times", n)
	}
}
