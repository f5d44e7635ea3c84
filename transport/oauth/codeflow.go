package oauth

import (
	"container/list"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// The authorization code flow with PKCE
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-flow-steps):
// the authorization request carries the PKCE challenge (S256), state and
// resource (RFC 8707); the answer's state and iss (RFC 9207) are checked
// before its code goes to the token endpoint, with the verifier and the
// same resource.

// pending is an authorization request on its way: what its answer is
// checked against and exchanged with.
type pending struct {
	st       *serverState
	d        *discovery
	ci       *ClientInfo
	key      Key
	scopes   []string
	state    string
	verifier string
	redirect string
	url      string
	created  time.Time
	// flight is the key of the authorization this request stands for:
	// while it waits for Complete, the same authorization returns the
	// same URL rather than starting another.
	flight string
	elem   *list.Element // in pendingSet.order
	timer  *time.Timer   // forgets it when its time is up
}

func (c *Client) codeFlow(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, scopes []string, flight string) (*Token, error) {
	if !supportsS256(d) {
		return nil, ErrNoPKCE
	}
	if d.meta.AuthorizationEndpoint == "" {
		return nil, errors.New("oauth: the authorization server has no authorization endpoint")
	}
	if p := c.sh.pending.waiting(flight); p != nil && c.cfg.UserStep == nil {
		return nil, p.required()
	}
	p := &pending{st: st, d: d, ci: ci, key: key, scopes: scopes, state: newState(), verifier: newVerifier(),
		redirect: c.cfg.RedirectURL, created: time.Now(), flight: flight}
	conf := oauth2.Config{ClientID: ci.ClientID, Endpoint: oauth2.Endpoint{AuthURL: d.meta.AuthorizationEndpoint}, RedirectURL: p.redirect, Scopes: scopes}
	p.url = conf.AuthCodeURL(p.state, oauth2.S256ChallengeOption(p.verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if c.cfg.UserStep == nil {
		c.sh.pending.add(p)
		return nil, p.required()
	}
	q, err := contain(c.sh, "UserStep", func() (url.Values, error) {
		return c.cfg.UserStep.Authorize(ctx, &AuthorizationRequest{URL: p.url, RedirectURL: p.redirect, State: p.state,
			Identity: key.Identity, Server: st.url, Issuer: d.issuer})
	})
	if err != nil {
		return nil, err
	}
	return c.exchange(ctx, p, q)
}

func (p *pending) required() *AuthorizationRequiredError {
	return &AuthorizationRequiredError{Server: p.st.url, Identity: p.key.Identity, Issuer: p.d.issuer, URL: p.url, State: p.state}
}

// exchange checks an authorization response and trades its code for a
// token.
func (c *Client) exchange(ctx context.Context, p *pending, q url.Values) (*Token, error) {
	if q.Get("state") != p.state {
		return nil, ErrStateMismatch
	}
	// RFC 9207 section 2.4, as the 2026-07-28 revision tabulates it
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#authorization-response-validation):
	// a present iss must be the issuer, compared as strings; an absent
	// one is refused only from a server that advertised it. This comes
	// before the error: a mix-up's error is not acted on either.
	if iss, ok := q["iss"]; ok {
		if len(iss) != 1 || iss[0] != p.d.issuer {
			return nil, &IssuerMismatchError{Where: "authorization response", Want: p.d.issuer, Got: strings.Join(iss, ",")}
		}
	} else if p.d.meta.AuthorizationResponseIssParameterSupported {
		return nil, &IssuerMismatchError{Where: "authorization response", Want: p.d.issuer}
	}
	if e := q.Get("error"); e != "" {
		return nil, &AuthorizationError{Code: e, Description: q.Get("error_description")}
	}
	code := q.Get("code")
	if code == "" {
		return nil, errors.New("oauth: the authorization response has no code")
	}
	params := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {p.redirect},
		"code_verifier": {p.verifier},
		"resource":      {p.d.resource},
	}
	dk, err := c.proofKey(p.d, p.key, nil)
	if err != nil {
		return nil, err
	}
	t, err := c.tokenRequest(ctx, p.st, p.d.meta.TokenEndpoint, p.d.issuer, p.ci, params, dk)
	if err != nil {
		return nil, err
	}
	return toToken(t, p.scopes, dk)
}

// Complete finishes an authorization that failed a request with an
// *AuthorizationRequiredError: query is the query of the redirect the
// user's browser brought back (code, state, iss), and identity is whom the
// caller knows that browser's user to be (its own login session). An
// authorization started for another identity is refused with
// ErrWrongIdentity and stays pending: otherwise a person could send
// someone else the URL of their own request and be given that someone's
// token (RFC 6749 section 10.12 binds the state to the user agent). The
// token is stored for the identity; the request may be made again.
func (c *Client) Complete(ctx context.Context, identity string, query url.Values) error {
	p, err := c.sh.pending.take(query.Get("state"), identity)
	if err != nil {
		return err
	}
	t, err := c.exchange(ctx, p, query)
	if err != nil {
		return err
	}
	return c.save(ctx, p.key, t)
}

var errNotLoggedIn = errors.New("not logged in")

// CallbackHandler serves the redirect URL of a program without a
// UserStep: it completes the authorization (Complete) and answers 200, or
// 400 with the reason. Mount it at the redirect URL's path. identity
// tells whom a request's browser belongs to, from the program's own login
// session (false: not logged in, answered 401); nil means the Client's
// own identity (Config.Identity, As), for a program that serves one
// person.
func (c *Client) CallbackHandler(identity func(*http.Request) (string, bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := c.identity, true
		if identity != nil {
			var err error
			id, err = contain(c.sh, "CallbackHandler's identity func", func() (string, error) {
				id, ok := identity(r)
				if !ok {
					return "", errNotLoggedIn
				}
				return id, nil
			})
			if err != nil && err != errNotLoggedIn {
				http.Error(w, "the identity of this request could not be told", http.StatusInternalServerError)
				return
			}
			ok = err == nil
		}
		if !ok {
			http.Error(w, "not logged in", http.StatusUnauthorized)
			return
		}
		if err := c.Complete(r.Context(), id, r.URL.Query()); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("Authorization complete: you can close this window.\n"))
	})
}
