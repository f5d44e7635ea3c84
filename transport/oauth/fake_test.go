package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"

	"github.com/mcpactor/mcpactor/internal/redirect"
)

// fakeAS is an authorization server for the tests: metadata, a
// registration endpoint, an authorization endpoint that answers at once
// for the user named by the login query parameter, and a token endpoint
// for every grant the package uses. Its tokens say whom they are for.
type fakeAS struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	meta      map[string]any
	challenge map[string]string // code -> code_challenge
	users     map[string]string // code -> user
	scopes    map[string]string // code -> scope asked
	tokens    map[string]grant  // access token -> grant
	refreshes map[string]grant  // refresh token -> grant
	authorize []url.Values      // authorization requests
	tokenReqs []url.Values      // token requests
	n         int
	lifetime  int // expires_in of new tokens
	rotate    bool
	publicKey crypto.PublicKey // for private_key_jwt
	clientID  string
	secret    string

	// DPoP (dpop_test.go): a token request with a valid proof gets a
	// DPoP token bound to the proof's key (jkt); with nonce set, a proof
	// without it is answered use_dpop_nonce.
	nonce      string
	jkt        map[string]string // access or refresh token -> key thumbprint
	nonceAsked atomic.Int64
	// assertionKey verifies the assertions of the JWT bearer grant
	// (jwtbearer_test.go); assertions lists those received.
	assertionKey crypto.PublicKey
	assertions   []string
	// prefix starts the client_id of registrations; default "dyn-".
	prefix string
	// noRefresh: token answers carry no refresh token.
	noRefresh bool

	refreshCount atomic.Int64
	registered   atomic.Int64
}

type grant struct {
	user, scope, resource string
}

func newFakeAS(t *testing.T) *fakeAS {
	a := &fakeAS{t: t, challenge: map[string]string{}, users: map[string]string{}, scopes: map[string]string{},
		tokens: map[string]grant{}, refreshes: map[string]grant{}, lifetime: 3600, rotate: true, jkt: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorizeEndpoint)
	mux.HandleFunc("POST /token", a.token)
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	u := a.srv.URL
	a.meta = map[string]any{
		"issuer":                                u,
		"authorization_endpoint":                u + "/authorize",
		"token_endpoint":                        u + "/token",
		"registration_endpoint":                 u + "/register",
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "private_key_jwt"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
	}
	return a
}

func (a *fakeAS) set(k string, v any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if v == nil {
		delete(a.meta, k)
	} else {
		a.meta[k] = v
	}
}

func (a *fakeAS) metadata(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	b, _ := json.Marshal(a.meta)
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func (a *fakeAS) register(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	json.NewDecoder(r.Body).Decode(&req)
	if req["application_type"] == nil {
		a.t.Errorf("registration without application_type: %v", req)
	}
	n := a.registered.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	prefix := a.prefix
	if prefix == "" {
		prefix = "dyn-"
	}
	json.NewEncoder(w).Encode(map[string]any{"client_id": fmt.Sprintf("%s%d", prefix, n), "token_endpoint_auth_method": "none"})
}

// authorizeEndpoint answers for the user in login, as if they consented.
func (a *fakeAS) authorizeEndpoint(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	a.authorize = append(a.authorize, q)
	a.n++
	code := fmt.Sprintf("code-%d", a.n)
	a.challenge[code] = q.Get("code_challenge")
	a.users[code] = q.Get("login")
	a.scopes[code] = q.Get("scope")
	a.mu.Unlock()
	if q.Get("code_challenge_method") != "S256" {
		a.t.Errorf("code_challenge_method = %q", q.Get("code_challenge_method"))
	}
	if q.Get("resource") == "" {
		a.t.Errorf("authorization request without resource")
	}
	red, _ := url.Parse(q.Get("redirect_uri"))
	rq := red.Query()
	rq.Set("code", code)
	rq.Set("state", q.Get("state"))
	rq.Set("iss", a.srv.URL)
	red.RawQuery = rq.Encode()
	http.Redirect(w, r, red.String(), http.StatusFound)
}

func (a *fakeAS) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
	a.mu.Lock()
	a.tokenReqs = append(a.tokenReqs, f)
	a.mu.Unlock()
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": "refused", "debug": "secret-body-text"})
	}
	if f.Get("resource") == "" {
		a.t.Errorf("token request (%s) without resource", f.Get("grant_type"))
	}
	var jkt string
	if proof := r.Header.Get("DPoP"); proof != "" {
		var claims jwt.MapClaims
		var err error
		jkt, claims, err = checkProof(proof, "POST", a.srv.URL+"/token", "")
		if err != nil {
			a.t.Errorf("token request proof: %v", err)
			fail("invalid_dpop_proof")
			return
		}
		if a.nonce != "" && claims["nonce"] != a.nonce {
			a.nonceAsked.Add(1)
			w.Header().Set("DPoP-Nonce", a.nonce)
			fail("use_dpop_nonce")
			return
		}
	}
	var g grant
	switch f.Get("grant_type") {
	case "authorization_code":
		code := f.Get("code")
		a.mu.Lock()
		want, user, scope := a.challenge[code], a.users[code], a.scopes[code]
		delete(a.challenge, code)
		a.mu.Unlock()
		if want == "" || oauth2.S256ChallengeFromVerifier(f.Get("code_verifier")) != want {
			fail("invalid_grant")
			return
		}
		g = grant{user: user, scope: scope, resource: f.Get("resource")}
	case "refresh_token":
		a.refreshCount.Add(1)
		a.mu.Lock()
		old, ok := a.refreshes[f.Get("refresh_token")]
		if ok && a.rotate {
			delete(a.refreshes, f.Get("refresh_token"))
		}
		a.mu.Unlock()
		if !ok {
			fail("invalid_grant")
			return
		}
		a.mu.Lock()
		bound := a.jkt[f.Get("refresh_token")]
		a.mu.Unlock()
		if bound != jkt {
			a.t.Errorf("refresh with key %q of a token bound to %q", jkt, bound)
			fail("invalid_dpop_proof")
			return
		}
		g = old
	case "client_credentials":
		if !a.clientAuthenticated(r) {
			fail("invalid_client")
			return
		}
		g = grant{user: "client:" + a.clientID, scope: f.Get("scope"), resource: f.Get("resource")}
	case grantJWTBearer:
		a.mu.Lock()
		a.assertions = append(a.assertions, f.Get("assertion"))
		a.mu.Unlock()
		var claims jwt.RegisteredClaims
		_, err := jwt.ParseWithClaims(f.Get("assertion"), &claims, func(*jwt.Token) (any, error) { return a.assertionKey, nil },
			jwt.WithAudience(a.srv.URL), jwt.WithExpirationRequired())
		if err != nil {
			fail("invalid_grant")
			return
		}
		g = grant{user: "workload:" + claims.Subject, scope: f.Get("scope"), resource: f.Get("resource")}
	default:
		fail("unsupported_grant_type")
		return
	}
	a.mu.Lock()
	a.n++
	at, rt := fmt.Sprintf("at-%s-%d", g.user, a.n), fmt.Sprintf("rt-%s-%d", g.user, a.n)
	a.tokens[at] = g
	a.refreshes[rt] = g
	typ := "Bearer"
	if jkt != "" {
		a.jkt[at], a.jkt[rt], typ = jkt, jkt, "DPoP"
	}
	life, noRefresh := a.lifetime, a.noRefresh
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	answer := map[string]any{"access_token": at, "token_type": typ, "expires_in": life, "refresh_token": rt, "scope": g.scope}
	if noRefresh {
		delete(answer, "refresh_token")
	}
	json.NewEncoder(w).Encode(answer)
}

// clientAuthenticated checks client_secret_basic or private_key_jwt.
func (a *fakeAS) clientAuthenticated(r *http.Request) bool {
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		return id == a.clientID && secret == a.secret
	}
	if r.PostForm.Get("client_assertion_type") != assertionType {
		return false
	}
	tok, err := jwt.Parse(r.PostForm.Get("client_assertion"), func(*jwt.Token) (any, error) { return a.publicKey, nil },
		jwt.WithAudience(a.srv.URL), jwt.WithIssuer(a.clientID), jwt.WithSubject(a.clientID), jwt.WithExpirationRequired())
	return err == nil && tok.Valid
}

// check returns the grant of a bearer token, if it is one of ours.
func (a *fakeAS) check(token string) (grant, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	g, ok := a.tokens[token]
	return g, ok
}

// boundTo returns the thumbprint of the key a token is bound to; "" for
// a bearer token.
func (a *fakeAS) boundTo(token string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.jkt[token]
}

// revoke makes every token the server issued invalid.
func (a *fakeAS) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.tokens)
}

// fakeRS is an MCP server protected by a fakeAS: POST /mcp answers 200
// with the user the token belongs to, 401 without a valid token, and 403
// when the token lacks a scope of need.
type fakeRS struct {
	srv  *httptest.Server
	as   *fakeAS
	need []string // scopes every request needs; the 401 names them
	// step, if set, are scopes a request to /mcp?admin needs beyond need
	step []string

	mu   sync.Mutex
	seen []string // the user of each request answered 200
	prm  map[string]any
	n401 atomic.Int64

	// DPoP (dpop_test.go): nonce, if set, is required in the proofs;
	// jtis are the proofs' jti, each to be seen once.
	nonce      string
	nonceAsked atomic.Int64
	// nonceAlways: every request is asked for a new nonce.
	nonceAlways atomic.Bool
	jtis        map[string]bool
	schemes     []string // the Authorization scheme of each request
}

func newFakeRS(t *testing.T, as *fakeAS) *fakeRS {
	s := &fakeRS{as: as, jtis: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		b, _ := json.Marshal(s.prm)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	mux.HandleFunc("POST /mcp", s.mcp)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	s.prm = map[string]any{"resource": s.url(), "authorization_servers": []string{as.srv.URL}}
	return s
}

func (s *fakeRS) url() string { return s.srv.URL + "/mcp" }

func (s *fakeRS) mcp(w http.ResponseWriter, r *http.Request) {
	rm := `resource_metadata="` + s.srv.URL + `/.well-known/oauth-protected-resource/mcp"`
	if s.nonceAlways.Load() {
		w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
		w.Header().Set("DPoP-Nonce", fmt.Sprint("n", s.nonceAsked.Add(1)))
		http.Error(w, "nonce", http.StatusUnauthorized)
		return
	}
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	s.mu.Lock()
	s.schemes = append(s.schemes, scheme)
	as := s.as
	s.mu.Unlock()
	g, valid := as.check(tok)
	ok := scheme == "Bearer" || scheme == "DPoP"
	if bound := as.boundTo(tok); valid && (bound != "" || scheme == "DPoP") {
		// RFC 9449 section 7: a DPoP token needs the DPoP scheme and
		// a proof of its key, of this request, with its hash.
		jkt, claims, err := checkProof(r.Header.Get("DPoP"), r.Method, s.url(), tok)
		s.mu.Lock()
		jti, _ := claims["jti"].(string)
		replay := s.jtis[jti]
		s.jtis[jti] = true
		s.mu.Unlock()
		switch {
		case err != nil || jkt != bound || scheme != "DPoP" || replay:
			t := as.t
			t.Errorf("resource request: scheme %s, proof error %v, key %q of a token bound to %q, replay %v", scheme, err, jkt, bound, replay)
			valid = false
		case s.nonce != "" && claims["nonce"] != s.nonce:
			s.nonceAsked.Add(1)
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="nonce needed"`)
			w.Header().Set("DPoP-Nonce", s.nonce)
			http.Error(w, "nonce", http.StatusUnauthorized)
			return
		}
	}
	if !ok || !valid {
		s.n401.Add(1)
		h := "Bearer " + rm
		if len(s.need) > 0 {
			h += `, scope="` + strings.Join(s.need, " ") + `"`
		}
		w.Header().Set("WWW-Authenticate", h)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	need := s.need
	if r.URL.Query().Has("admin") {
		need = append(slices.Clone(need), s.step...)
	}
	have := strings.Fields(g.scope)
	if !containsAll(have, need) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.Join(need, " ")+`", `+rm)
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, g.user)
	s.mu.Unlock()
	w.Write([]byte(g.user))
}

// login is a UserStep that plays the user's browser: it asks the
// authorization URL, as the identity, and reads the redirect.
func login(hc *http.Client) UserStep {
	return UserStepFunc(func(ctx context.Context, r *AuthorizationRequest) (url.Values, error) {
		loc, err := redirect.Follow(ctx, hc, r.URL+"&login="+url.QueryEscape(r.Identity))
		if err != nil {
			return nil, err
		}
		return loc.Query(), nil
	})
}

// post sends a request to the resource server through c, acting for
// identity; it returns the status and body.
func post(t *testing.T, hc *http.Client, target string, ctx context.Context) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return 0, "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// httpClient returns an http.Client whose requests to the resource server
// go through c.
func httpClient(c *Client, rs *fakeRS) *http.Client {
	return &http.Client{Transport: c.RoundTripper(rs.url(), http.DefaultTransport), Timeout: 30 * time.Second}
}

// checkProof verifies a DPoP proof as a server does (RFC 9449 section
// 4.3): typ, alg, a public jwk in the header, the signature, htm, htu
// (no query or fragment), a recent iat, a jti, and, with a token, ath. It
// returns the key's thumbprint (RFC 7638) and the claims.
func checkProof(proof, method, target, token string) (string, jwt.MapClaims, error) {
	var jwk map[string]any
	claims := jwt.MapClaims{}
	tok, err := jwt.ParseWithClaims(proof, claims, func(t *jwt.Token) (any, error) {
		if t.Header["typ"] != "dpop+jwt" {
			return nil, fmt.Errorf("typ %v", t.Header["typ"])
		}
		var ok bool
		if jwk, ok = t.Header["jwk"].(map[string]any); !ok || jwk["kty"] != "EC" || jwk["crv"] != "P-256" || jwk["d"] != nil {
			return nil, fmt.Errorf("jwk %v", t.Header["jwk"])
		}
		x, err1 := base64.RawURLEncoding.DecodeString(jwk["x"].(string))
		y, err2 := base64.RawURLEncoding.DecodeString(jwk["y"].(string))
		if err1 != nil || err2 != nil {
			return nil, errors.New("jwk coordinates")
		}
		return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuedAt())
	if err != nil || !tok.Valid {
		return "", claims, fmt.Errorf("proof: %v", err)
	}
	if claims["htm"] != method || claims["htu"] != target {
		return "", claims, fmt.Errorf("htm %v htu %v, want %s %s", claims["htm"], claims["htu"], method, target)
	}
	iat, _ := claims["iat"].(float64)
	if d := time.Since(time.Unix(int64(iat), 0)); d > time.Minute || d < -time.Minute {
		return "", claims, fmt.Errorf("iat %v", iat)
	}
	if jti, _ := claims["jti"].(string); jti == "" {
		return "", claims, errors.New("no jti")
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		if claims["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return "", claims, fmt.Errorf("ath %v", claims["ath"])
		}
	} else if claims["ath"] != nil {
		return "", claims, errors.New("ath in a token request's proof")
	}
	canon := fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":%q,"y":%q}`, jwk["x"], jwk["y"])
	sum := sha256.Sum256([]byte(canon))
	return base64.RawURLEncoding.EncodeToString(sum[:]), claims, nil
}
