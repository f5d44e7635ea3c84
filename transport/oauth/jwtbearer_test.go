package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// workload is a platform issuing workload JWTs for an authorization
// server.
type workload struct {
	key *ecdsa.PrivateKey
	n   atomic.Int64
}

func newWorkload(t *testing.T, as *fakeAS) *workload {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	as.assertionKey = &key.PublicKey
	as.set("grant_types_supported", []string{grantJWTBearer})
	return &workload{key: key}
}

// jwt issues a JWT for audience that expires in life.
func (w *workload) jwt(t *testing.T, audience string, life time.Duration) string {
	w.n.Add(1)
	now := time.Now()
	s, err := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.RegisteredClaims{
		Issuer: "https://platform.example", Subject: "pod-7", Audience: jwt.ClaimStrings{audience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(life)), ID: rand.Text(),
	}).SignedString(w.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJWTBearer: the JWT bearer grant (RFC 7523 section 2.1) with the
// workload's assertion, from each kind of source; no user, no secret.
func TestJWTBearer(t *testing.T) {
	for _, kind := range []string{"file", "command", "func"} {
		t.Run(kind, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			wl := newWorkload(t, as)
			a := wl.jwt(t, as.srv.URL, time.Hour)
			var src AssertionSource
			switch kind {
			case "file":
				src.File = filepath.Join(t.TempDir(), "token")
				os.WriteFile(src.File, []byte(a+"\n"), 0o600)
			case "command":
				src.Command = []string{"printf", "%s", a}
			case "func":
				src.Func = func(context.Context, string) (string, error) { return a, nil }
			}
			c := New(Config{ClientID: "wl", Grant: GrantJWTBearer, Assertion: &src, Issuer: as.srv.URL})
			hc := httpClient(c, rs)
			for i := range 2 {
				status, body, err := post(t, hc, rs.url(), context.Background())
				if err != nil || status != 200 || body != "workload:pod-7" {
					t.Fatalf("request %d: %d %q %v", i, status, body, err)
				}
			}
			as.mu.Lock()
			defer as.mu.Unlock()
			if len(as.tokenReqs) != 1 {
				t.Fatalf("%d token requests, want 1", len(as.tokenReqs))
			}
			f := as.tokenReqs[0]
			if f.Get("grant_type") != grantJWTBearer || f.Get("assertion") != a || f.Get("client_id") != "wl" || f.Get("resource") != rs.url() {
				t.Errorf("token request %v", f)
			}
		})
	}
}

// TestJWTBearerRenewal: a token about to expire, with no refresh token,
// is replaced before it expires; the assertion is read again only when
// the one held is about to expire.
func TestJWTBearerRenewal(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	wl := newWorkload(t, as)
	as.lifetime = 30 // within RefreshBefore (one minute): renewed at each request
	life := atomic.Int64{}
	life.Store(int64(time.Hour))
	reads := atomic.Int64{}
	c := New(Config{ClientID: "wl", Grant: GrantJWTBearer, Issuer: as.srv.URL, Assertion: &AssertionSource{Func: func(context.Context, string) (string, error) {
		reads.Add(1)
		return wl.jwt(t, as.srv.URL, time.Duration(life.Load())), nil
	}}})
	as.noRefresh = true // as RFC 6749 section 4.4.3 advises for a grant without a user
	hc := httpClient(c, rs)
	for i := range 2 {
		if status, _, err := post(t, hc, rs.url(), context.Background()); err != nil || status != 200 {
			t.Fatalf("request %d: %d %v", i, status, err)
		}
	}
	// The first request: 401, the grant, the request again, whose token
	// (30 s left) is renewed first; the second request renews again.
	as.mu.Lock()
	var grants []string
	for _, f := range as.tokenReqs {
		grants = append(grants, f.Get("grant_type"))
	}
	as.mu.Unlock()
	if len(grants) != 3 || slices.ContainsFunc(grants, func(g string) bool { return g != grantJWTBearer }) || rs.n401.Load() != 1 {
		t.Errorf("token requests %v and %d answers 401, want 3 JWT bearer grants and 1", grants, rs.n401.Load())
	}
	if reads.Load() != 1 {
		t.Errorf("the assertion was read %d times, want 1 (still good for an hour)", reads.Load())
	}
	// An assertion about to expire is read again.
	c.sh.assertions.Store("", heldAssertion{value: "old", exp: time.Now().Add(time.Second)})
	if _, err := c.assertion(context.Background(), ""); err != nil || reads.Load() != 2 {
		t.Errorf("reads %d, err %v; want a new read", reads.Load(), err)
	}
}

// TestJWTBearerRefused: an expired assertion is not sent, nor one whose
// aud names another server; an assertion the server refuses fails the
// request with its error, once, and nothing secret is in the error.
func TestJWTBearerRefused(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	wl := newWorkload(t, as)
	expired := wl.jwt(t, as.srv.URL, -time.Minute)
	c := New(Config{ClientID: "wl", Grant: GrantJWTBearer, Issuer: as.srv.URL, Assertion: &AssertionSource{Func: func(context.Context, string) (string, error) { return expired, nil }}})
	_, _, err := post(t, httpClient(c, rs), rs.url(), context.Background())
	if err == nil || !strings.Contains(err.Error(), "expired") || strings.Contains(err.Error(), expired) {
		t.Errorf("expired assertion: %v", err)
	}
	wrong := wl.jwt(t, "https://elsewhere.example", time.Hour)
	c = New(Config{ClientID: "wl", Grant: GrantJWTBearer, Issuer: as.srv.URL, Assertion: &AssertionSource{Func: func(context.Context, string) (string, error) { return wrong, nil }}})
	_, _, err = post(t, httpClient(c, rs), rs.url(), context.Background())
	var ae *AudienceError
	if !errors.Is(err, ErrAssertionAudience) || !errors.As(err, &ae) || !slices.Equal(ae.Audience, []string{"https://elsewhere.example"}) || strings.Contains(err.Error(), wrong) {
		t.Errorf("assertion for another audience: %v", err)
	}
	forged := newWorkload(t, newFakeAS(t)).jwt(t, as.srv.URL, time.Hour) // signed by a key the server does not know
	c = New(Config{ClientID: "wl", Grant: GrantJWTBearer, Issuer: as.srv.URL, Assertion: &AssertionSource{Func: func(context.Context, string) (string, error) { return forged, nil }}})
	_, _, err = post(t, httpClient(c, rs), rs.url(), context.Background())
	var te *TokenError
	if !errors.As(err, &te) || te.Code != "invalid_grant" || strings.Contains(err.Error(), forged) {
		t.Errorf("refused assertion: %v", err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.assertions) != 1 {
		t.Errorf("%d assertions sent, want 1 (the expired one and the one for elsewhere never, the refused one once)", len(as.assertions))
	}
	c = New(Config{Grant: GrantJWTBearer, Assertion: &AssertionSource{Command: []string{"false"}}})
	if _, err := c.assertion(context.Background(), ""); err == nil {
		t.Error("a failing command gave an assertion")
	}
	if s := fmt.Sprint(c.cfg.Assertion); !strings.Contains(s, "false") {
		t.Errorf("source formats as %q", s)
	}
}
