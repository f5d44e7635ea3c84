package oauth

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDPoP: an authorization server that lists ES256 in
// dpop_signing_alg_values_supported gets a proof with the token request
// and issues a DPoP token; every request to the MCP server carries it
// with the DPoP scheme and a fresh proof (its own jti, the request's
// method and URL, the token's hash), which the fake servers verify
// (checkProof); a refresh proves the same key.
func TestDPoP(t *testing.T) {
	as := newFakeAS(t)
	as.set("dpop_signing_alg_values_supported", []string{"RS256", "ES256"})
	rs := newFakeRS(t, as)
	c := New(Config{UserStep: login(http.DefaultClient), Identity: "alice"})
	hc := httpClient(c, rs)
	for i := range 3 {
		status, body, err := post(t, hc, rs.url()+"?q=1#f", context.Background())
		if err != nil || status != 200 || body != "alice" {
			t.Fatalf("request %d: %d %q %v", i, status, body, err)
		}
	}
	key := tokenKey(t, c, rs)
	tok, _ := c.load(context.Background(), key)
	if tok == nil || tok.TokenType != "DPoP" || tok.DPoPKey == "" {
		t.Fatalf("token %+v", tok)
	}
	// Expire the token: the refresh must prove the key it is bound to
	// (the fake refuses another).
	expired := *tok
	expired.Expiry = time.Now().Add(-time.Second)
	c.sh.tokens.Store(key, &expired)
	if status, body, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 || body != "alice" {
		t.Fatalf("after expiry: %d %q %v", status, body, err)
	}
	if n := as.refreshCount.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if i := slices.Index(rs.schemes, "Bearer"); i >= 0 {
		t.Errorf("request %d sent Bearer: %v", i, rs.schemes)
	}
	if len(rs.jtis) != 4 {
		t.Errorf("%d distinct proofs for 4 authorized requests", len(rs.jtis))
	}
}

// TestDPoPNonce: the authorization server (RFC 9449 section 8) and the
// MCP server (section 9) each want their nonce in the proofs: each asks
// once, the request is sent again with it, and later requests carry the
// nonce from the start.
func TestDPoPNonce(t *testing.T) {
	as := newFakeAS(t)
	as.set("dpop_signing_alg_values_supported", []string{"ES256"})
	as.nonce = "as-nonce-1"
	rs := newFakeRS(t, as)
	rs.nonce = "rs-nonce-1"
	c := New(Config{UserStep: login(http.DefaultClient)})
	hc := httpClient(c, rs)
	for i := range 3 {
		if status, _, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 {
			t.Fatalf("request %d: %d %v", i, status, err)
		}
	}
	if n := as.nonceAsked.Load(); n != 1 {
		t.Errorf("the authorization server asked for its nonce %d times, want 1", n)
	}
	if n := rs.nonceAsked.Load(); n != 1 {
		t.Errorf("the MCP server asked for its nonce %d times, want 1", n)
	}
	// A new nonce: asked once more, and the request succeeds.
	rs.mu.Lock()
	rs.nonce = "rs-nonce-2"
	rs.mu.Unlock()
	if status, _, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 {
		t.Fatalf("after a new nonce: %d %v", status, err)
	}
	if n := rs.nonceAsked.Load(); n != 2 {
		t.Errorf("the MCP server asked for its nonce %d times, want 2", n)
	}
}

// TestDPoPNonceOnce: a server that asks for a nonce again whatever the
// proof gets one retry per request, and its 401 back.
func TestDPoPNonceOnce(t *testing.T) {
	as := newFakeAS(t)
	as.set("dpop_signing_alg_values_supported", []string{"ES256"})
	rs := newFakeRS(t, as)
	c := New(Config{UserStep: login(http.DefaultClient)})
	hc := httpClient(c, rs)
	if status, _, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 {
		t.Fatalf("first request: %d %v", status, err)
	}
	rs.nonceAlways.Store(true)
	status, _, err := post(t, hc, rs.url(), context.Background())
	if err != nil || status != http.StatusUnauthorized {
		t.Fatalf("%d %v, want the 401", status, err)
	}
	n := rs.nonceAsked.Load()
	if n != 2 {
		t.Errorf("%d requests, want 2 (one nonce retry)", n)
	}
}

// TestDPoPChoice: DPoP is used when the authorization server lists ES256
// (the default), never with DPoPNever, and with DPoPAlways even when it
// is not listed (a server that ignores the proof answers Bearer, which
// is then used as one).
func TestDPoPChoice(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		algs   []string
		scheme string
	}{
		{DPoPAuto, []string{"ES256"}, "DPoP"},
		{DPoPAuto, nil, "Bearer"},
		{DPoPAuto, []string{"RS256"}, "Bearer"}, // an algorithm we do not sign with
		{DPoPNever, []string{"ES256"}, "Bearer"},
		{DPoPAlways, nil, "DPoP"},
	} {
		t.Run(tc.mode+"/"+strings.Join(tc.algs, ","), func(t *testing.T) {
			as := newFakeAS(t)
			if tc.algs != nil {
				as.set("dpop_signing_alg_values_supported", tc.algs)
			}
			rs := newFakeRS(t, as)
			c := New(Config{UserStep: login(http.DefaultClient), DPoP: tc.mode})
			if status, _, err := post(t, httpClient(c, rs), rs.url(), context.Background()); err != nil || status != 200 {
				t.Fatalf("%d %v", status, err)
			}
			rs.mu.Lock()
			defer rs.mu.Unlock()
			if last := rs.schemes[len(rs.schemes)-1]; last != tc.scheme {
				t.Errorf("scheme %q, want %q", last, tc.scheme)
			}
		})
	}
}

// TestDPoPKeyKept: a DPoP token and its key survive a FileStore round
// trip (a restart): the token is used with proofs of its own key.
func TestDPoPKeyKept(t *testing.T) {
	as := newFakeAS(t)
	as.set("dpop_signing_alg_values_supported", []string{"ES256"})
	rs := newFakeRS(t, as)
	store := &FileStore{Dir: t.TempDir()}
	c := New(Config{UserStep: login(http.DefaultClient), Store: store, ClientID: "pre"})
	if status, _, err := post(t, httpClient(c, rs), rs.url(), context.Background()); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	// A new process: no key in memory, the token from the file.
	c2 := New(Config{Store: store, ClientID: "pre"})
	hc := httpClient(c2, rs)
	for i := range 2 {
		if status, _, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 {
			t.Fatalf("request %d: %d %v", i, status, err)
		}
	}
	if n := len(as.authorize); n != 1 {
		t.Errorf("%d authorizations, want 1 (the stored token reused)", n)
	}
}

// TestDPoPSecrets: a DPoP token's key stays out of its formatting, and
// out of the client's log.
func TestDPoPSecrets(t *testing.T) {
	as := newFakeAS(t)
	as.set("dpop_signing_alg_values_supported", []string{"ES256"})
	rs := newFakeRS(t, as)
	var log strings.Builder
	c := New(Config{UserStep: login(http.DefaultClient), Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if status, _, err := post(t, httpClient(c, rs), rs.url(), context.Background()); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	tok, _ := c.load(context.Background(), tokenKey(t, c, rs))
	for _, s := range []string{fmt.Sprint(tok), fmt.Sprintf("%+v", *tok), fmt.Sprintf("%#v", tok), log.String()} {
		if strings.Contains(s, tok.DPoPKey) || strings.Contains(s, tok.AccessToken) {
			t.Errorf("a secret in %q", s)
		}
	}
}

// tokenKey is the Store key of the token c holds for rs (one identity).
func tokenKey(t *testing.T, c *Client, rs *fakeRS) Key {
	t.Helper()
	var key Key
	n := 0
	c.sh.tokens.Range(func(k, _ any) bool {
		key = k.(Key)
		n++
		return true
	})
	if n != 1 || key.Resource != rs.url() {
		t.Fatalf("%d tokens held; key %+v", n, key)
	}
	return key
}
