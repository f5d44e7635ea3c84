package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/errkind"
)

// TestAssertionIssuerRequired: the JWT bearer grant sends the workload's
// assertion only to Config.Issuer. Without it the request fails with a
// configuration error; with it, a server naming another authorization
// server (one of its own) gets nothing: the assertion is not even read,
// and no registration is made there.
func TestAssertionIssuerRequired(t *testing.T) {
	as := newFakeAS(t)
	evil := newFakeAS(t)
	rs := newFakeRS(t, evil)
	rs.prm["authorization_servers"] = []string{evil.srv.URL}
	wl := newWorkload(t, as)
	var reads atomic.Int64
	src := &AssertionSource{Func: func(context.Context, string) (string, error) {
		reads.Add(1)
		return wl.jwt(t, as.srv.URL, time.Hour), nil
	}}
	c := New(Config{Grant: GrantJWTBearer, Assertion: src})
	_, _, err := post(t, httpClient(c, rs), rs.url(), context.Background())
	if !errors.Is(err, ErrIssuerRequired) || !errors.Is(err, errkind.ErrConfig) {
		t.Errorf("no Issuer: %v, want ErrIssuerRequired and ErrConfig", err)
	}
	c = New(Config{Grant: GrantJWTBearer, Assertion: src, Issuer: as.srv.URL})
	_, _, err = post(t, httpClient(c, rs), rs.url(), context.Background())
	var im *IssuerMismatchError
	if !errors.As(err, &im) || im.Want != as.srv.URL || im.Got != evil.srv.URL {
		t.Errorf("a server naming another authorization server: %v, want an IssuerMismatchError", err)
	}
	evil.mu.Lock()
	sent := len(evil.tokenReqs)
	evil.mu.Unlock()
	if reads.Load() != 0 || sent != 0 || evil.registered.Load() != 0 {
		t.Errorf("assertion read %d times; %d token requests and %d registrations at the server's own authorization server; want none",
			reads.Load(), sent, evil.registered.Load())
	}
}

// TestCrossAppAudience: the cross-app grant needs Config.Issuer before
// the ID token is asked for; the identity provider's ID-JAG goes to the
// authorization server only if its aud names it.
func TestCrossAppAudience(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	wl := newWorkload(t, as)
	var audience atomic.Value
	audience.Store("unset")
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": wl.jwt(t, audience.Load().(string), time.Hour),
			"issued_token_type": tokenTypeIDJAG, "token_type": "N_A"})
	}))
	defer idp.Close()
	var idTokens atomic.Int64
	cfg := Config{Grant: GrantCrossApp, CrossApp: &CrossApp{IDPTokenEndpoint: idp.URL + "/token", IDPClientID: "app",
		IDToken: func(context.Context, string) (string, error) { idTokens.Add(1); return "id-token", nil }}}
	_, _, err := post(t, httpClient(New(cfg), rs), rs.url(), context.Background())
	if !errors.Is(err, ErrIssuerRequired) || idTokens.Load() != 0 {
		t.Errorf("no Issuer: %v, ID token asked %d times; want ErrIssuerRequired, never", err, idTokens.Load())
	}
	cfg.Issuer = as.srv.URL
	audience.Store("https://elsewhere.example")
	_, _, err = post(t, httpClient(New(cfg), rs), rs.url(), context.Background())
	if !errors.Is(err, ErrAssertionAudience) {
		t.Errorf("an ID-JAG for another audience: %v, want ErrAssertionAudience", err)
	}
	as.mu.Lock()
	sent := len(as.assertions)
	as.mu.Unlock()
	if sent != 0 {
		t.Errorf("%d ID-JAGs sent, want none", sent)
	}
	audience.Store(as.srv.URL)
	if status, body, err := post(t, httpClient(New(cfg), rs), rs.url(), context.Background()); err != nil || status != 200 || body != "workload:pod-7" {
		t.Errorf("an ID-JAG for the authorization server: %d %q %v", status, body, err)
	}
}
