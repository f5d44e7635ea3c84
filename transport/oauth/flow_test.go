package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCodeFlow: a first request is answered 401; the client discovers the
// servers, registers, runs the code flow with PKCE, state and resource,
// and sends the request again with the token; later requests carry it.
func TestCodeFlow(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	rs.need = []string{"mcp:read"}
	as.set("scopes_supported", []string{"mcp:read", "offline_access"})
	c := New(Config{UserStep: login(http.DefaultClient), Identity: "alice"})
	hc := httpClient(c, rs)
	for i := range 3 {
		status, body, err := post(t, hc, rs.url(), context.Background())
		if err != nil || status != 200 || body != "alice" {
			t.Fatalf("request %d: %d %q %v", i, status, body, err)
		}
	}
	if n := len(as.authorize); n != 1 {
		t.Fatalf("%d authorization requests, want 1", n)
	}
	q := as.authorize[0]
	if q.Get("resource") != rs.url() || q.Get("state") == "" || q.Get("scope") != "mcp:read offline_access" {
		t.Errorf("authorization request %v", q)
	}
	if as.registered.Load() != 1 {
		t.Errorf("%d registrations, want 1", as.registered.Load())
	}
	if n := rs.n401.Load(); n != 1 {
		t.Errorf("%d answers 401, want 1", n)
	}
}

// TestTwoIdentities: one Client, one server, two identities, both ways of
// naming them (a context value on a shared transport, a connection per
// identity): each request carries its own identity's token, never the
// other's.
func TestTwoIdentities(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c := New(Config{UserStep: login(http.DefaultClient)})
	shared := httpClient(c, rs)
	perBob := &http.Client{Transport: c.As("bob").RoundTripper(rs.url(), http.DefaultTransport)}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			who, hc, ctx := "alice", shared, WithIdentity(context.Background(), "alice")
			switch i % 3 {
			case 1:
				who, ctx = "bob", WithIdentity(context.Background(), "bob")
			case 2:
				who, hc, ctx = "bob", perBob, context.Background()
			}
			status, body, err := post(t, hc, rs.url(), ctx)
			if err != nil || status != 200 || body != who {
				t.Errorf("request %d for %s: %d %q %v", i, who, status, body, err)
			}
		})
	}
	wg.Wait()
	users := map[string]bool{}
	for _, q := range as.authorize {
		users[q.Get("login")] = true
	}
	if len(as.authorize) != 2 || !users["alice"] || !users["bob"] {
		t.Errorf("authorizations for %v (%d), want one each for alice and bob", users, len(as.authorize))
	}
}

// TestConcurrentRefresh: 100 requests meet an expired token at once, and
// the authorization server sees exactly one refresh: when the client knows
// the token has expired, and when only the server's 401 says so.
func TestConcurrentRefresh(t *testing.T) {
	for _, known := range []bool{true, false} {
		name := "server-rejected"
		if known {
			name = "known-expired"
		}
		t.Run(name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			c := New(Config{UserStep: login(http.DefaultClient), Identity: "carol"})
			hc := httpClient(c, rs)
			if status, _, err := post(t, hc, rs.url(), context.Background()); status != 200 {
				t.Fatalf("first request: %d %v", status, err)
			}
			as.revokeAll() // the access token is dead; its refresh token lives
			if known {
				expireAll(t, c)
			}
			var wg sync.WaitGroup
			for i := range 100 {
				wg.Go(func() {
					status, body, err := post(t, hc, rs.url(), context.Background())
					if status != 200 || body != "carol" {
						t.Errorf("request %d: %d %q %v", i, status, body, err)
					}
				})
			}
			wg.Wait()
			if n := as.refreshCount.Load(); n != 1 {
				t.Errorf("%d refresh requests, want 1", n)
			}
			if len(as.authorize) != 1 {
				t.Errorf("%d authorizations, want only the first", len(as.authorize))
			}
		})
	}
}

// expireAll backdates every token c holds.
func expireAll(t *testing.T, c *Client) {
	c.sh.tokens.Range(func(k, v any) bool {
		old := v.(*Token)
		nt := *old
		nt.Expiry = time.Now().Add(-time.Minute)
		if ok, err := c.sh.store.CompareAndSwap(context.Background(), k.(Key), old, &nt); !ok || err != nil {
			t.Fatalf("backdating: %v %v", ok, err)
		}
		c.sh.tokens.Store(k, &nt)
		return true
	})
}

// TestStepUp: a 403 insufficient_scope makes the client ask for the
// union of what it holds and what the server challenged.
func TestStepUp(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	rs.need, rs.step = []string{"mcp:read"}, []string{"mcp:write"}
	c := New(Config{UserStep: login(http.DefaultClient), Identity: "dan"})
	hc := httpClient(c, rs)
	if status, _, _ := post(t, hc, rs.url(), context.Background()); status != 200 {
		t.Fatalf("first request: %d", status)
	}
	if status, _, _ := post(t, hc, rs.url()+"?admin", context.Background()); status != 200 {
		t.Fatalf("admin request: %d", status)
	}
	if n := len(as.authorize); n != 2 {
		t.Fatalf("%d authorizations, want 2", n)
	}
	if got := as.authorize[1].Get("scope"); got != "mcp:read mcp:write" {
		t.Errorf("step-up scope %q, want the union", got)
	}
}

// TestStepUpLimit: a server that never accepts the token costs at most
// MaxAuthorizations authorizations, and its 403 comes back.
func TestStepUpLimit(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	rs.need = []string{"mcp:read"}
	rs.step = []string{"mcp:admin"}
	// The authorization server never grants mcp:admin.
	c := New(Config{UserStep: UserStepFunc(func(ctx context.Context, r *AuthorizationRequest) (url.Values, error) {
		r.URL = strings.Replace(r.URL, "mcp%3Aadmin", "mcp%3Anothing", 1)
		return login(http.DefaultClient).Authorize(ctx, r)
	}), Identity: "erin"})
	hc := httpClient(c, rs)
	status, _, _ := post(t, hc, rs.url()+"?admin", context.Background())
	if status != http.StatusForbidden {
		t.Fatalf("status %d, want 403", status)
	}
	// The first for mcp:read, then two step-ups that never get mcp:admin.
	if n := len(as.authorize); n != DefaultMaxAuthorizations {
		t.Errorf("%d authorizations, want %d", n, DefaultMaxAuthorizations)
	}
}

// TestAuthorizationRequired: without a UserStep, a request that needs the
// user fails at once with the URL; Complete with the redirect's query
// stores the token, and the request then succeeds.
func TestAuthorizationRequired(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c := New(Config{Identity: "frank"})
	hc := httpClient(c, rs)
	_, _, err := post(t, hc, rs.url(), context.Background())
	var are *AuthorizationRequiredError
	if !errors.As(err, &are) || !errors.Is(err, ErrAuthorizationRequired) {
		t.Fatalf("error %v, want an AuthorizationRequiredError", err)
	}
	if are.Identity != "frank" || !strings.HasPrefix(are.URL, as.srv.URL+"/authorize?") {
		t.Fatalf("error %+v", are)
	}
	// Asked again before the user answered: the same URL.
	first := are.URL
	_, _, err2 := post(t, hc, rs.url(), context.Background())
	if !errors.As(err2, &are) || are.URL != first {
		t.Errorf("second error %v, want the same URL", err2)
	}
	q, err := login(http.DefaultClient).Authorize(context.Background(), &AuthorizationRequest{URL: are.URL, Identity: "frank"})
	if err != nil {
		t.Fatal(err)
	}
	// Someone else's browser bringing frank's answer back is refused,
	// and the authorization stays pending for frank.
	if err := c.Complete(context.Background(), "mallory", q); !errors.Is(err, ErrWrongIdentity) {
		t.Fatalf("Complete as another identity: %v, want ErrWrongIdentity", err)
	}
	if strings.Contains(are.Error(), are.State) {
		t.Errorf("the error text shows the state: %v", are)
	}
	cb := httptest.NewServer(c.CallbackHandler(func(r *http.Request) (string, bool) {
		id := r.Header.Get("X-Test-User")
		return id, id != ""
	}))
	defer cb.Close()
	for _, tc := range []struct {
		user string
		want int
	}{{"", http.StatusUnauthorized}, {"mallory", http.StatusBadRequest}, {"frank", http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodGet, cb.URL+"/callback?"+q.Encode(), nil)
		req.Header.Set("X-Test-User", tc.user)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("callback as %q: %d, want %d", tc.user, resp.StatusCode, tc.want)
		}
	}
	if status, body, err := post(t, hc, rs.url(), context.Background()); status != 200 || body != "frank" {
		t.Fatalf("after Complete: %d %q %v", status, body, err)
	}
	if err := c.Complete(context.Background(), "frank", q); !errors.Is(err, ErrStateMismatch) {
		t.Errorf("second Complete: %v, want ErrStateMismatch", err)
	}
}

// TestResourceMismatch: metadata naming another resource is refused
// before any authorization request.
func TestResourceMismatch(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	rs.prm["resource"] = "https://evil.example/mcp"
	c := New(Config{UserStep: login(http.DefaultClient)})
	_, _, err := post(t, httpClient(c, rs), rs.url(), context.Background())
	if !errors.Is(err, ErrResourceMismatch) {
		t.Fatalf("error %v, want ErrResourceMismatch", err)
	}
	if len(as.authorize) != 0 {
		t.Errorf("%d authorization requests, want none", len(as.authorize))
	}
}

// TestIssuerMismatch: authorization server metadata naming another issuer
// is never used.
func TestIssuerMismatch(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	as.set("issuer", "https://honest.example")
	c := New(Config{UserStep: login(http.DefaultClient)})
	_, _, err := post(t, httpClient(c, rs), rs.url(), context.Background())
	if !errors.Is(err, ErrIssuerMismatch) {
		t.Fatalf("error %v, want ErrIssuerMismatch", err)
	}
}

// TestNoPKCE: a server whose metadata does not offer S256 is refused.
func TestNoPKCE(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	as.set("code_challenge_methods_supported", nil)
	c := New(Config{UserStep: login(http.DefaultClient)})
	_, _, err := post(t, httpClient(c, rs), rs.url(), context.Background())
	if !errors.Is(err, ErrNoPKCE) {
		t.Fatalf("error %v, want ErrNoPKCE", err)
	}
}
