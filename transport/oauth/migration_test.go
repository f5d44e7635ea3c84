package oauth

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestMigration (SEP-2352): the server's resource metadata, at the same
// URL, names a new authorization server, and the server refuses the old
// one's tokens. The client discovers the new server, registers with it,
// authorizes there, never presents the old registration to it, and
// forgets the old server's token for the resource.
func TestMigration(t *testing.T) {
	as1 := newFakeAS(t)
	as1.prefix = "as1-"
	as2 := newFakeAS(t)
	rs := newFakeRS(t, as1)
	store := new(MemoryStore)
	c := New(Config{UserStep: login(http.DefaultClient), Identity: "alice", Store: store})
	hc := httpClient(c, rs)
	if status, body, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 || body != "alice" {
		t.Fatalf("first request: %d %q %v", status, body, err)
	}
	oldKey := tokenKey(t, c, rs)
	// The move: new metadata, and the old tokens refused (the fake
	// checks tokens with its current authorization server).
	rs.mu.Lock()
	rs.prm["authorization_servers"] = []string{as2.srv.URL}
	rs.as = as2
	rs.mu.Unlock()
	if status, body, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 || body != "alice" {
		t.Fatalf("after the move: %d %q %v", status, body, err)
	}
	if as2.registered.Load() != 1 || len(as2.authorize) != 1 {
		t.Errorf("%d registrations and %d authorizations at the new server, want 1 and 1", as2.registered.Load(), len(as2.authorize))
	}
	for _, q := range append(as2.authorize, as2.tokenReqs...) {
		if strings.HasPrefix(q.Get("client_id"), "as1-") {
			t.Errorf("the old registration was presented to the new server: %v", q)
		}
	}
	if tok, _ := store.Load(context.Background(), oldKey); tok != nil {
		t.Error("the old server's token is still stored")
	}
	if _, ok := c.sh.tokens.Load(oldKey); ok {
		t.Error("the old server's token is still held")
	}
	if _, ok := c.sh.clients.Load(as1.srv.URL + "\x00" + c.profile()); ok {
		t.Error("the old server's registration is still held")
	}
	// And it stays there.
	if status, _, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 {
		t.Fatalf("third request: %d %v", status, err)
	}
	if len(as2.authorize) != 1 || len(as1.authorize) != 1 {
		t.Errorf("authorizations: %d at the old server, %d at the new, want 1 each", len(as1.authorize), len(as2.authorize))
	}
}

// TestRefusedTokenSameServer: a refused token that cannot be refreshed
// sends discovery again; the same authorization server found, nothing is
// forgotten but the token, and no registration is made again.
func TestRefusedTokenSameServer(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c := New(Config{UserStep: login(http.DefaultClient)})
	hc := httpClient(c, rs)
	if status, _, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	as.revokeAll()
	as.mu.Lock()
	clear(as.refreshes)
	as.mu.Unlock()
	status, _, err := post(t, hc, rs.url(), context.Background())
	if err != nil || status != 200 {
		t.Fatalf("after revocation: %d %v", status, err)
	}
	if as.registered.Load() != 1 || len(as.authorize) != 2 {
		t.Errorf("%d registrations, %d authorizations; want 1 and 2", as.registered.Load(), len(as.authorize))
	}
}
