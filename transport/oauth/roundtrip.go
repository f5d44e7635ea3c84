package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
)

// RoundTripper returns the transport of the requests to the MCP server at
// serverURL: base, with the token of the identity each request acts for
// (a bearer token, or a DPoP token with a fresh proof), and the 401 and
// 403 answers acted on. It makes Client a
// transport.Authorizer (ServerConfig.Auth).
//
// A request is sent without a token until the server's first 401 has
// been acted on: only then is its authorization server known. A request
// to another origin (a redirect) passes through untouched: a token goes to
// its own server only.
func (c *Client) RoundTripper(serverURL string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	st, err := c.server(serverURL, base)
	if err != nil {
		return failing{err}
	}
	return &roundTripper{c: c, st: st, base: base}
}

type failing struct{ err error }

func (f failing) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, f.err
}

type roundTripper struct {
	c    *Client
	st   *serverState
	base http.RoundTripper
}

// RoundTrip sends req with the current token and acts on the answer:
//
//   - 401 with a DPoP use_dpop_nonce challenge and a nonce: the request
//     again, once, with the nonce in its proof (RFC 9449 section 9);
//   - 401 to a request with a token: the token is refreshed (or a token
//     another request got meanwhile is taken) and the request sent again;
//   - 401 otherwise, or still: authorization (discovery, registration,
//     the configured grant), then the request again; discovery runs
//     again when a token was refused, in case the server moved to
//     another authorization server;
//   - 403 with error="insufficient_scope": step-up authorization, then
//     the request again.
//
// Authorizations are bounded by Config.MaxAuthorizations per request; the
// last answer is then returned as it came. A request whose body cannot be
// sent twice (no GetBody) is not sent again. A request that needs the
// user, with no UserStep configured, fails at once with an
// *AuthorizationRequiredError.
func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if !sameOrigin(req.URL, t.st.su) {
		return t.base.RoundTrip(req)
	}
	c, ctx := t.c, req.Context()
	identity := c.identityOf(ctx)
	// Where the server is decides where it may steer this client
	// (fetch_guard.go).
	ctx = t.st.notePeer(ctx)
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	authorizations, refreshed, nonced := 0, false, false
	for attempt := 0; ; attempt++ {
		tok, _ := c.current(ctx, t.st, identity)
		var dk *dpopKey
		if tok != nil {
			var ok bool
			if dk, ok = c.bound(tok); !ok {
				tok = nil // a DPoP token without its key: as good as none
			}
		}
		r := req.Clone(ctx)
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		switch {
		case dk != nil:
			// RFC 9449 section 7: the DPoP scheme, and a fresh proof
			// of this request, bound to the token (ath).
			proof, err := dk.proof(r.Method, r.URL, tok.AccessToken, c.nonceOf(r.URL))
			if err != nil {
				if r.Body != nil {
					r.Body.Close()
				}
				return nil, err
			}
			r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
			r.Header.Set("DPoP", proof)
		case tok != nil:
			r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if dk != nil {
			c.noteNonce(r.URL, resp.Header)
		}
		var ch Challenge
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			ch, _ = ParseChallenge(resp.Header)
		case http.StatusForbidden:
			var ok bool
			ch, ok = ParseChallenge(resp.Header)
			if !ok || ch.Error != "insufficient_scope" || tok == nil {
				return resp, nil
			}
		default:
			return resp, nil
		}
		if !replayable {
			return resp, nil
		}
		if resp.StatusCode == http.StatusUnauthorized && dk != nil && rsNonceChallenge(resp) {
			// RFC 9449 section 9: the server wants its nonce in the
			// proof; noteNonce kept it. Once per request: the token is
			// not what is refused, so nothing else would help.
			if nonced {
				return resp, nil
			}
			nonced = true
			discard(resp)
			continue
		}
		if resp.StatusCode == http.StatusUnauthorized && tok != nil && !refreshed {
			refreshed = true
			if c.recover(ctx, t.st, identity, tok) {
				discard(resp)
				continue
			}
		}
		if authorizations >= c.cfg.MaxAuthorizations {
			return resp, nil
		}
		authorizations++
		// A token refused (and not refreshed) may be the old
		// authorization server's: discovery runs again (migration.go).
		again := resp.StatusCode == http.StatusUnauthorized && tok != nil
		err = c.authorize(ctx, t.st, identity, ch, tok, resp.StatusCode == http.StatusForbidden, again)
		if errors.Is(err, errNothingNew) {
			return resp, nil
		}
		discard(resp)
		if err != nil {
			return nil, err
		}
	}
}

// recover acts on a 401 to a request that carried sent: it reports
// whether there is now another token to try, one that a concurrent
// request got or a refresh of sent.
func (c *Client) recover(ctx context.Context, st *serverState, identity string, sent *Token) bool {
	d := st.discovered()
	if d == nil {
		return false
	}
	ci := c.knownClient(d)
	if ci == nil {
		return false
	}
	key := keyFor(d, ci, identity)
	_, err := c.refresh(ctx, st, d, ci, key, sent)
	if err != nil {
		c.sh.log.Debug("oauth: refresh after 401 failed", "server", st.shown, "err", err)
		return false
	}
	return true
}

// discard ends an answer that will not be returned, so that its
// connection can be reused.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
