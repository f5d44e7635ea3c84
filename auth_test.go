package mcpactor_test

// Authorization over HTTP: a failing authorizer, a static bearer token
// and OAuth (transport/oauth, docs/oauth.md) in front of a fake server of
// the test kit (transport/mcptest) behind a bearer-token check, with a
// small authorization server beside it. The fake records the headers each
// tools/call carried, so that the tests assert whose token went with which
// call.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redirect"
	"github.com/mcpactor/mcpactor/transport/mcptest"
	"github.com/mcpactor/mcpactor/transport/oauth"
)

// refusingAuth is an Authorizer whose authorization server refuses: every
// request fails in the authorizer, before the MCP server is asked.
type refusingAuth struct{}

func (refusingAuth) RoundTripper(string, http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("oauth: token endpoint refused the grant")
	})
}

// passingAuth adds nothing and passes every request on.
type passingAuth struct{}

func (passingAuth) RoundTripper(_ string, base http.RoundTripper) http.RoundTripper { return base }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAuthorizationFailureIsNotUnreachable checks that an Authorizer's own
// failure is reported as an authorization failure, not as the server being
// unreachable, while a network failure that passes through an Authorizer
// is still ErrHTTP.
func TestAuthorizationFailureIsNotUnreachable(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	url := closedURL(t) + "/mcp"
	_, err := rt.Connect(waitCtx(t), "refused", mcpactor.ServerConfig{URL: url, Auth: refusingAuth{}, ConnectTimeout: 5 * time.Second})
	if !errors.Is(err, mcpactor.ErrAuthorization) || errors.Is(err, mcpactor.ErrHTTP) ||
		!strings.Contains(err.Error(), "authorization failed") || !strings.Contains(err.Error(), "token endpoint refused") {
		t.Errorf("Connect with a refusing authorizer: %v, want ErrAuthorization (not ErrHTTP) with the authorizer's reason", err)
	}
	_, err = rt.Connect(waitCtx(t), "down", mcpactor.ServerConfig{URL: url, Auth: passingAuth{}, ConnectTimeout: 5 * time.Second})
	if !errors.Is(err, mcpactor.ErrHTTP) || errors.Is(err, mcpactor.ErrAuthorization) {
		t.Errorf("Connect through a passing authorizer to a closed port: %v, want ErrHTTP", err)
	}
}

// protectedServer is the test server behind a bearer check.
type protectedServer struct {
	fake *mcptest.Server
	mcp  *mcptest.HTTPServer
	as   *httptest.Server
	// static, if set, is the one token accepted (no authorization server).
	static string

	mu        sync.Mutex
	n         int
	tokens    map[string]string // access token -> user
	refreshes map[string]string // refresh token -> user
	refreshed int               // refresh requests
}

func newProtectedServer(t *testing.T, static string) *protectedServer {
	p := &protectedServer{static: static, tokens: map[string]string{}, refreshes: map[string]string{},
		fake: &mcptest.Server{Tools: []mcptest.Tool{kitEcho}, Faults: mcptest.Faults{HTTPJSONAnswers: true}}}
	as := http.NewServeMux()
	as.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		u := p.as.URL
		json.NewEncoder(w).Encode(map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize",
			"token_endpoint": u + "/token", "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"}})
	})
	as.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		red, _ := url.Parse(q.Get("redirect_uri"))
		red.RawQuery = url.Values{"code": {q.Get("login")}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, red.String(), http.StatusFound)
	})
	as.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		user := r.PostFormValue("code")
		if r.PostFormValue("grant_type") == "refresh_token" {
			p.refreshed++
			rt := r.PostFormValue("refresh_token")
			user = p.refreshes[rt]
			delete(p.refreshes, rt) // rotated: each refresh token works once
		}
		p.n++
		tok, rt := fmt.Sprintf("tok-%d", p.n), fmt.Sprintf("refresh-%d", p.n)
		p.tokens[tok], p.refreshes[rt] = user, user
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if user == "" {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": "invalid_grant"})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt})
	})
	p.as = httptest.NewServer(as)
	p.mcp = p.fake.StartHTTPWith(func(next http.Handler) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
			json.NewEncoder(w).Encode(map[string]any{"resource": p.mcp.URL, "authorization_servers": []string{p.as.URL}})
		})
		mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p.user(r.Header.Get("Authorization")) == "" {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+strings.TrimSuffix(p.mcp.URL, "/mcp")+`/.well-known/oauth-protected-resource/mcp"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		}))
		return mux
	})
	t.Cleanup(func() {
		p.mcp.Close()
		p.as.Close()
	})
	return p
}

func (p *protectedServer) url() string { return p.mcp.URL }

// user is whose the Authorization header's bearer token is; "" for none.
func (p *protectedServer) user(authorization string) string {
	tok, _ := strings.CutPrefix(authorization, "Bearer ")
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.static != "" {
		if tok != "" && tok == p.static {
			return "static"
		}
		return ""
	}
	return p.tokens[tok]
}

// carriedBy is the user whose token the last echo of message carried, as
// the fake server received it.
func (p *protectedServer) carriedBy(message string) string {
	who := ""
	for _, c := range p.fake.Calls() {
		var a struct{ Message string }
		if json.Unmarshal(c.Arguments, &a) == nil && a.Message == message {
			who = p.user(c.Header.Get("Authorization"))
		}
	}
	return who
}

// browser plays the user's browser: the authorization server answers at
// once for the user named in login.
func browser(ctx context.Context, r *oauth.AuthorizationRequest) (url.Values, error) {
	loc, err := redirect.Follow(ctx, nil, r.URL+"&login="+url.QueryEscape(r.Identity))
	if err != nil {
		return nil, err
	}
	return loc.Query(), nil
}

// TestHTTPStaticBearer: a server configured with a static bearer header
// and no OAuth works as it always has.
func TestHTTPStaticBearer(t *testing.T) {
	p := newProtectedServer(t, "static-secret")
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := rt.Connect(ctx, "static", mcpactor.ServerConfig{URL: p.url(), Headers: map[string]string{"Authorization": "Bearer static-secret"}})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := c.CallTool(ctx, "echo", map[string]any{"message": "hello"}); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got := p.carriedBy("hello"); got != "static" {
		t.Errorf("the call carried %q's token", got)
	}
	// Without the header: the server's 401 reaches the caller.
	_, err = rt.Connect(ctx, "nokey", mcpactor.ServerConfig{URL: p.url()})
	var se *mcpactor.Error
	if !(errors.As(err, &se) && callerr.HTTPStatus(se) == se) || se.Status != http.StatusUnauthorized {
		t.Errorf("Connect without the header: %v, want HTTP 401", err)
	}
}

// TestOAuthTwoIdentities: two identities on one server, one OAuth client.
// Each call carries the token of the identity it acts for, whether the
// identity is the connection's (Client.As) or the call's own
// (oauth.WithIdentity on a shared connection).
func TestOAuthTwoIdentities(t *testing.T) {
	p := newProtectedServer(t, "")
	client := oauth.New(oauth.Config{ClientID: "root-test", UserStep: oauth.UserStepFunc(browser)})
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	alice, err := rt.Connect(ctx, "as-alice", mcpactor.ServerConfig{URL: p.url(), Auth: client.As("alice")})
	if err != nil {
		t.Fatalf("Connect as alice: %v", err)
	}
	bob, err := rt.Connect(ctx, "as-bob", mcpactor.ServerConfig{URL: p.url(), Auth: client.As("bob")})
	if err != nil {
		t.Fatalf("Connect as bob: %v", err)
	}
	shared, err := rt.Connect(ctx, "shared", mcpactor.ServerConfig{URL: p.url(), Auth: client.As("service")})
	if err != nil {
		t.Fatalf("Connect the shared connection: %v", err)
	}
	calls := []struct {
		c    *mcpactor.Client
		ctx  context.Context
		who  string
		what string
	}{
		{alice, ctx, "alice", "alice-1"},
		{bob, ctx, "bob", "bob-1"},
		{shared, oauth.WithIdentity(ctx, "alice"), "alice", "alice-2"},
		{shared, oauth.WithIdentity(ctx, "bob"), "bob", "bob-2"},
		{shared, ctx, "service", "service-1"},
		{alice, oauth.WithIdentity(ctx, "bob"), "bob", "bob-3"},
	}
	var wg sync.WaitGroup
	for _, c := range calls {
		wg.Go(func() {
			if _, err := c.c.CallTool(c.ctx, "echo", map[string]any{"message": c.what}); err != nil {
				t.Errorf("call %s: %v", c.what, err)
			}
		})
	}
	wg.Wait()
	for _, c := range calls {
		if got := p.carriedBy(c.what); got != c.who {
			t.Errorf("call %s carried %q's token, want %q's", c.what, got, c.who)
		}
	}
}

// TestOAuthConcurrentRefresh: 100 calls at once meet an access token the
// server no longer takes; the authorization server sees one refresh, and
// every call succeeds with its result.
func TestOAuthConcurrentRefresh(t *testing.T) {
	p := newProtectedServer(t, "")
	client := oauth.New(oauth.Config{ClientID: "root-test", Identity: "dave", UserStep: oauth.UserStepFunc(browser)})
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := rt.Connect(ctx, "refreshing", mcpactor.ServerConfig{URL: p.url(), Auth: client})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	p.mu.Lock()
	clear(p.tokens) // every access token expires; the refresh tokens live
	p.mu.Unlock()
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			msg := fmt.Sprintf("dave-%d", i)
			if _, err := c.CallTool(ctx, "echo", map[string]any{"message": msg}); err != nil {
				t.Errorf("call %d: %v", i, err)
			} else if got := p.carriedBy(msg); got != "dave" {
				t.Errorf("call %d carried %q's token", i, got)
			}
		})
	}
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refreshed != 1 {
		t.Errorf("%d refresh requests, want 1", p.refreshed)
	}
}

// TestOAuthAuthorizationRequired: with no UserStep, a connection that
// needs the user fails at once (the connect timeout is far away) with the
// URL to send the user to; once the redirect's query is given to
// Complete, connecting works.
func TestOAuthAuthorizationRequired(t *testing.T) {
	p := newProtectedServer(t, "")
	client := oauth.New(oauth.Config{ClientID: "root-test", Identity: "carol"})
	rt := startRuntime(t, mcpactor.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cfg := mcpactor.ServerConfig{URL: p.url(), Auth: client, ConnectTimeout: 1 << 40}
	_, err := rt.Connect(ctx, "needs-user", cfg)
	var are *oauth.AuthorizationRequiredError
	if !errors.As(err, &are) {
		t.Fatalf("Connect: %v, want an AuthorizationRequiredError", err)
	}
	q, err := browser(ctx, &oauth.AuthorizationRequest{URL: are.URL, Identity: are.Identity})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Complete(ctx, are.Identity, q); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	c, err := rt.Connect(ctx, "needs-user", cfg)
	if err != nil {
		t.Fatalf("Connect after Complete: %v", err)
	}
	if _, err := c.CallTool(ctx, "echo", map[string]any{"message": "carol-1"}); err != nil || p.carriedBy("carol-1") != "carol" {
		t.Fatalf("CallTool: %v (carried by %q)", err, p.carriedBy("carol-1"))
	}
}
