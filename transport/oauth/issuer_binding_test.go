package oauth

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestPreRegisteredIssuerPinned: a pre-registered secret with no Issuer
// is pinned to the first authorization server it is used with. When the
// server then names another one (a migration, or a compromised server),
// the secret is not sent there, nor is a registration made behind the
// user's back: the request fails with an *IssuerMismatchError naming
// both issuers. Another Client sharing the Store sees the pin; a Client
// whose Issuer names the new server moves on purpose.
func TestPreRegisteredIssuerPinned(t *testing.T) {
	as1 := newFakeAS(t)
	as2 := newFakeAS(t)
	for _, as := range []*fakeAS{as1, as2} {
		as.clientID, as.secret = "svc", "s3cret"
	}
	rs := newFakeRS(t, as1)
	store := new(MemoryStore)
	cfg := Config{ClientID: "svc", ClientSecret: "s3cret", Grant: GrantClientCredentials, Store: store}
	c := New(cfg)
	hc := httpClient(c, rs)
	if status, body, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 || body != "client:svc" {
		t.Fatalf("first request: %d %q %v", status, body, err)
	}
	rs.mu.Lock()
	rs.prm["authorization_servers"] = []string{as2.srv.URL}
	rs.as = as2
	rs.mu.Unlock()

	_, _, err := post(t, hc, rs.url(), context.Background())
	var im *IssuerMismatchError
	if !errors.Is(err, ErrIssuerMismatch) || !errors.As(err, &im) || im.Want != as1.srv.URL || im.Got != as2.srv.URL {
		t.Fatalf("after the move: %v, want an IssuerMismatchError from %s to %s", err, as1.srv.URL, as2.srv.URL)
	}
	if msg := err.Error(); !strings.Contains(msg, as1.srv.URL) || !strings.Contains(msg, as2.srv.URL) || strings.Contains(msg, "s3cret") {
		t.Errorf("error text %q: want both issuers, no secret", msg)
	}
	// A second process: the pin is in the Store.
	other := New(cfg)
	if _, _, err := post(t, httpClient(other, rs), rs.url(), context.Background()); !errors.Is(err, ErrIssuerMismatch) {
		t.Errorf("a Client sharing the Store: %v, want ErrIssuerMismatch", err)
	}
	as2.mu.Lock()
	sent := len(as2.tokenReqs)
	as2.mu.Unlock()
	if sent != 0 || as2.registered.Load() != 0 {
		t.Errorf("the new server got %d token requests and %d registrations, want none", sent, as2.registered.Load())
	}
	// The user moves the client on purpose.
	cfg.Issuer = as2.srv.URL
	moved := New(cfg)
	if status, body, err := post(t, httpClient(moved, rs), rs.url(), context.Background()); err != nil || status != 200 || body != "client:svc" {
		t.Errorf("with Issuer set to the new server: %d %q %v", status, body, err)
	}
}

// TestPreRegisteredIssuerChosen: with several authorization servers
// listed, the pinned one is chosen, whatever the order.
func TestPreRegisteredIssuerChosen(t *testing.T) {
	as1 := newFakeAS(t)
	as2 := newFakeAS(t)
	as1.clientID, as1.secret = "svc", "s3cret"
	rs := newFakeRS(t, as1)
	store := new(MemoryStore)
	if ok, err := store.CompareAndSwap(context.Background(), bindingKey("svc"), nil, &Token{AccessToken: as1.srv.URL, TokenType: bindingType}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	rs.prm["authorization_servers"] = []string{as2.srv.URL, as1.srv.URL}
	c := New(Config{ClientID: "svc", ClientSecret: "s3cret", Grant: GrantClientCredentials, Store: store})
	if status, body, err := post(t, httpClient(c, rs), rs.url(), context.Background()); err != nil || status != 200 || body != "client:svc" {
		t.Fatalf("%d %q %v", status, body, err)
	}
	as2.mu.Lock()
	defer as2.mu.Unlock()
	if len(as2.tokenReqs) != 0 {
		t.Errorf("%d token requests to the server listed first, want none", len(as2.tokenReqs))
	}
}
