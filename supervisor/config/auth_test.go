package config

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/mcpactor/mcpactor/transport/oauth"
)

// TestAuthOAuthFields: an "oauth" entry's client settings are read (with
// ${VAR}), and Resolve gives the connection the server's OAuth client,
// the same one at every connect.
func TestAuthOAuthFields(t *testing.T) {
	doc := `{"mcpServers": {"s": {"url": "https://h/mcp", "auth": {
		"type": "oauth", "credentialId": "${WHO}", "clientId": "${CID}", "clientSecret": "${SECRET}",
		"clientMetadataUrl": "https://app.example/client.json", "issuer": "https://as.example",
		"redirectPort": 4567, "scopes": ["a", "${MORE}"], "grant": "authorization_code", "tokenStore": "memory"}}}}`
	f, err := parse([]byte(doc), lookupFrom(map[string]string{"CID": "cid-1", "SECRET": "shh", "WHO": "alice", "MORE": "b"}))
	if err != nil {
		t.Fatal(err)
	}
	a := f.Servers["s"].Auth
	want := Auth{Type: "oauth", ClientID: "cid-1", ClientSecret: "shh",
		ClientMetadataURL: "https://app.example/client.json", Issuer: "https://as.example",
		RedirectPort: 4567, Scopes: "a b", Grant: "authorization_code", TokenStore: "memory"}
	if a == nil || *a != want {
		t.Fatalf("auth = %+v", a)
	}
	if id := f.Servers["s"].Identity; id != "alice" {
		t.Errorf("auth.credentialId gave the identity %q, want alice", id)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings %q", f.Warnings)
	}
	cfg, err := f.Servers["s"].Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, ok := cfg.Auth.(*oauth.Client)
	if !ok {
		t.Fatalf("Auth = %T, want *oauth.Client", cfg.Auth)
	}
	again, _ := f.Servers["s"].Resolve(context.Background())
	if again.Auth != c {
		t.Errorf("a second connect got another client")
	}

	bad := `{"mcpServers": {"s": {"url": "https://h/mcp", "auth": {"type": "oauth", "grant": "password", "redirectPort": 70000, "scopes": 3}}}}`
	_, err = parse([]byte(bad), lookupFrom(nil))
	for _, w := range []string{`"auth.grant" must be`, `"auth.redirectPort" must be a port number`, `"auth.scopes" must be`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want %s", err, w)
		}
	}
}

// TestAuthPrivateKeyFile: a key file that cannot be read fails the
// connect with an error naming the field.
func TestAuthPrivateKeyFile(t *testing.T) {
	doc := `{"mcpServers": {"s": {"url": "https://h/mcp", "auth": {"type": "oauth", "clientId": "c",
		"grant": "client_credentials", "privateKeyFile": "` + filepath.ToSlash(filepath.Join(t.TempDir(), "missing.pem")) + `"}}}}`
	f, err := parse([]byte(doc), lookupFrom(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Servers["s"].Resolve(context.Background()); err == nil || !strings.Contains(err.Error(), "auth.privateKeyFile") {
		t.Errorf("Resolve: %v", err)
	}
}

// TestCommandHeaderRerunOn401: a header computed by a !command is computed
// again when the server answers 401, and the request sent once more.
func TestCommandHeaderRerunOn401(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the command is a POSIX shell script")
	}
	dir := t.TempDir()
	counter := filepath.Join(dir, "n")
	// Each run prints a new token: tok-1, tok-2...
	script := `n=$(cat ` + counter + ` 2>/dev/null || echo 0); n=$((n+1)); echo $n > ` + counter + `; echo "Bearer tok-$n"`
	var accepted atomic.Value
	accepted.Store("Bearer tok-1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != accepted.Load().(string) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	s := commandServer(t, nil, map[string]string{"Authorization": "!" + script})
	s.URL = srv.URL
	cfg, err := s.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Headers["Authorization"] != "Bearer tok-1" || cfg.Auth == nil {
		t.Fatalf("header %q, auth %T", cfg.Headers["Authorization"], cfg.Auth)
	}
	hc := &http.Client{Transport: cfg.Auth.RoundTripper(srv.URL, nil)}
	status := func() int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		req.Header.Set("Authorization", cfg.Headers["Authorization"])
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := status(); s != 200 {
		t.Fatalf("status %d with the first token", s)
	}
	accepted.Store("Bearer tok-2") // the first token expired
	if s := status(); s != 200 {
		t.Fatalf("status %d after the token changed, want the command run again", s)
	}
	if b, _ := os.ReadFile(counter); strings.TrimSpace(string(b)) != "2" {
		t.Errorf("the command ran %s times, want 2", b)
	}
}

// TestAuthClientsForgotten: the OAuth client made for an Auth goes once
// the Auth is unreachable (a reload replaces every Entry), secrets and
// tokens with it.
func TestAuthClientsForgotten(t *testing.T) {
	key := func() weak.Pointer[Auth] {
		a := &Auth{Type: "oauth", TokenStore: "memory"}
		if _, err := a.Client(""); err != nil {
			t.Fatal(err)
		}
		return weak.Make(a)
	}()
	if _, ok := oauthClients.Load(oauthKey{auth: key}); !ok {
		t.Fatal("no client kept for the Auth")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if _, ok := oauthClients.Load(oauthKey{auth: key}); !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the client of an unreachable Auth is still kept")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
