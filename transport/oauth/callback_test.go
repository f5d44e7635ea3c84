package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// panickingStore is a Store of a user's whose Load panics.
type panickingStore struct{ MemoryStore }

func (*panickingStore) Load(context.Context, Key) (*Token, error) { panic("store bug") }

type panickingTransport struct{}

func (panickingTransport) RoundTrip(*http.Request) (*http.Response, error) { panic("transport bug") }

// TestCallbackPanics: a callback of the user's that panics (the
// UserStep, an assertion source, the cross-app ID token, a Store, the
// transport of Config.HTTPClient) fails the request that needed it with a
// *PanicError naming it, and is counted; the process lives on (before,
// singleflight re-raised the panic on a goroutine of its own, which no
// caller could recover).
func TestCallbackPanics(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      func(as *fakeAS) Config
		callback string
	}{
		{"UserStep", func(*fakeAS) Config {
			return Config{UserStep: UserStepFunc(func(context.Context, *AuthorizationRequest) (url.Values, error) { panic("user step bug") })}
		}, "oauth: UserStep panicked: user step bug"},
		{"Assertion", func(as *fakeAS) Config {
			return Config{Grant: GrantJWTBearer, Issuer: as.srv.URL, Assertion: &AssertionSource{Func: func(context.Context, string) (string, error) { panic("assertion bug") }}}
		}, "oauth: Config.Assertion.Func panicked: assertion bug"},
		{"IDToken", func(as *fakeAS) Config {
			return Config{Grant: GrantCrossApp, Issuer: as.srv.URL, CrossApp: &CrossApp{IDPTokenEndpoint: as.srv.URL + "/token",
				IDToken: func(context.Context, string) (string, error) { panic("id token bug") }}}
		}, "oauth: CrossApp.IDToken panicked: id token bug"},
		{"Store", func(*fakeAS) Config {
			return Config{Store: new(panickingStore), UserStep: login(http.DefaultClient)}
		}, "oauth: Store.Load panicked: store bug"},
		{"HTTPClient", func(*fakeAS) Config {
			return Config{HTTPClient: &http.Client{Transport: panickingTransport{}}}
		}, "oauth: a callback during discover panicked: transport bug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newFakeAS(t)
			rs := newFakeRS(t, as)
			c := New(tc.cfg(as))
			_, _, err := post(t, httpClient(c, rs), rs.url(), context.Background())
			var pe *PanicError
			if !errors.Is(err, ErrCallbackPanicked) || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.callback) {
				t.Errorf("error %v, want a PanicError %q", err, tc.callback)
			}
			if n := c.PanickedCallbacks(); n < 1 {
				t.Errorf("%d panics counted, want at least 1", n)
			}
		})
	}
}

// TestRefreshHeaderFetchPanics: a RefreshHeader whose Fetch panics
// returns the server's 401 as it came, and the process lives on.
func TestRefreshHeaderFetchPanics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	defer srv.Close()
	h := &RefreshHeader{Name: "Authorization", Value: "old", Fetch: func(context.Context) (string, error) { panic("fetch bug") }}
	hc := &http.Client{Transport: h.RoundTripper(srv.URL, http.DefaultTransport), Timeout: 10 * time.Second}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", resp.StatusCode)
	}
}

// TestCallbackHandlerIdentityPanics: the identity func of
// CallbackHandler that panics answers 500.
func TestCallbackHandlerIdentityPanics(t *testing.T) {
	c := New(Config{})
	rec := httptest.NewRecorder()
	c.CallbackHandler(func(*http.Request) (string, bool) { panic("session bug") }).ServeHTTP(rec, httptest.NewRequest("GET", "/callback?state=x", nil))
	if rec.Code != http.StatusInternalServerError || c.PanickedCallbacks() != 1 {
		t.Errorf("status %d, %d panics counted; want 500 and 1", rec.Code, c.PanickedCallbacks())
	}
}
