package oauth

import (
	"context"
	"errors"
	"net/url"
	"time"
)

// Tokens are read from the Store once and kept in memory (shared.tokens)
// as the current token of their key; the Store is read again only when a
// token stops working (it expires, or the server answers 401), because
// another process sharing the Store may have refreshed it.

// keyFor is the Store key of identity's token for the discovered server.
func keyFor(d *discovery, ci *ClientInfo, identity string) Key {
	return Key{Issuer: d.issuer, ClientID: ci.ClientID, Identity: identity, Resource: d.resource}
}

// load returns key's current token: the one in memory, else the Store's.
func (c *Client) load(ctx context.Context, key Key) (*Token, error) {
	if v, ok := c.sh.tokens.Load(key); ok {
		return v.(*Token), nil
	}
	t, err := c.sh.store.Load(ctx, key)
	if err != nil || t == nil {
		return nil, err
	}
	c.sh.tokens.Store(key, t)
	return t, nil
}

// save stores a new token for key, whatever is stored: it comes from an
// authorization, which replaces any earlier token.
func (c *Client) save(ctx context.Context, key Key, t *Token) error {
	for range 5 {
		cur, err := c.sh.store.Load(ctx, key)
		if err != nil {
			return err
		}
		ok, err := c.sh.store.CompareAndSwap(ctx, key, cur, t)
		if err != nil {
			return err
		}
		if ok {
			c.sh.tokens.Store(key, t)
			return nil
		}
	}
	return errors.New("oauth: the token store kept changing; token not saved")
}

// current returns the token a request for identity carries, nil when
// none is known yet (the server has not been discovered, or the identity
// has no token). A token about to expire is refreshed first; if that
// fails, a token not yet expired is still used.
func (c *Client) current(ctx context.Context, st *serverState, identity string) (*Token, Key) {
	d := st.discovered()
	if d == nil {
		return nil, Key{}
	}
	ci := c.knownClient(d)
	if ci == nil {
		return nil, Key{}
	}
	key := keyFor(d, ci, identity)
	t, err := c.load(ctx, key)
	if err != nil || t == nil {
		if err != nil {
			c.sh.log.Warn("oauth: token store", "err", err)
		}
		return nil, key
	}
	now := time.Now()
	if !t.expiresWithin(c.cfg.RefreshBefore, now) {
		return t, key
	}
	if nt, err := c.refresh(ctx, st, d, ci, key, t); err == nil {
		return nt, key
	} else if !errors.Is(err, ErrNoRefreshToken) {
		c.sh.log.Debug("oauth: refresh before expiry failed", "server", st.shown, "err", err)
	} else if c.unattended() {
		// No refresh token, and no user needed: the grant again.
		nt, err := c.renew(ctx, st, d, ci, key, t)
		if err == nil {
			return nt, key
		}
		c.sh.log.Debug("oauth: renewal before expiry failed", "server", st.shown, "err", err)
	}
	if t.expiresWithin(0, now) {
		return nil, key
	}
	return t, key
}

// refresh replaces old, the token of key, with a fresh one (RFC 6749
// section 6), once however many requests ask at the same time: one
// refresh per key is in flight in this process, and a Store shared with
// other processes (Locker) is locked around it. Inside, the Store is read
// again: a token other than old is someone else's refresh, taken as it
// is. The new token is saved with CompareAndSwap, so a rotated refresh
// token is never overwritten by an older one.
func (c *Client) refresh(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, old *Token) (*Token, error) {
	if v, ok := c.sh.tokens.Load(key); ok && !same(v.(*Token), old) {
		return v.(*Token), nil // refreshed while this request was out
	}
	v, err := c.do(ctx, "refresh\x00"+flightKey(key), func(ctx context.Context) (any, error) {
		if l, ok := c.sh.store.locker(); ok {
			unlock, err := l.Lock(ctx, key)
			if err != nil {
				return nil, err
			}
			defer unlock()
		}
		cur, err := c.sh.store.Load(ctx, key)
		if err != nil {
			return nil, err
		}
		if cur != nil && !same(cur, old) && !cur.expiresWithin(0, time.Now()) {
			c.sh.tokens.Store(key, cur)
			return cur, nil
		}
		if cur == nil {
			cur = old
		}
		if cur.RefreshToken == "" {
			return nil, ErrNoRefreshToken
		}
		params := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cur.RefreshToken}, "resource": {d.resource}}
		// The new token is bound to the key the old one was (RFC 9449
		// section 5): a refresh token of a public client is bound too.
		dk, err := c.proofKey(d, key, cur)
		if err != nil {
			return nil, err
		}
		ot, err := c.tokenRequest(ctx, st, d.meta.TokenEndpoint, d.issuer, ci, params, dk)
		if err != nil {
			var te *TokenError
			if errors.As(err, &te) && te.Code == "invalid_grant" {
				// The refresh token is dead: forget the token, so that
				// the next request authorizes anew.
				c.sh.store.CompareAndSwap(ctx, key, cur, nil)
				c.sh.tokens.CompareAndDelete(key, old)
			}
			return nil, err
		}
		nt, err := toToken(ot, fieldsOf(cur.Scope), dk)
		if err != nil {
			return nil, err
		}
		ok, err := c.sh.store.CompareAndSwap(ctx, key, cur, nt)
		if err != nil {
			return nil, err
		}
		if !ok {
			// Another refresh won: its token is the one to use.
			if won, err := c.sh.store.Load(ctx, key); err == nil && won != nil {
				nt = won
			}
		}
		c.sh.tokens.Store(key, nt)
		c.sh.log.Debug("oauth: token refreshed", "server", st.shown, "identity", key.Identity)
		return nt, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Token), nil
}

// unattended reports whether the configured grant needs no user, so that
// a token about to expire can be replaced without one: the client's own
// credentials, or a workload's assertion.
func (c *Client) unattended() bool {
	return c.cfg.Grant == GrantClientCredentials || c.cfg.Grant == GrantJWTBearer
}

// renew replaces old, a token of key about to expire with no refresh
// token, by the configured grant, once however many requests ask.
func (c *Client) renew(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, old *Token) (*Token, error) {
	v, err := c.do(ctx, "renew\x00"+flightKey(key), func(ctx context.Context) (any, error) {
		if v, ok := c.sh.tokens.Load(key); ok && !same(v.(*Token), old) {
			return v.(*Token), nil // renewed while this request waited
		}
		t, err := c.grant(ctx, st, d, ci, key, fieldsOf(old.Scope), "")
		if err != nil {
			return nil, err
		}
		c.sh.log.Debug("oauth: token renewed", "server", st.shown, "identity", key.Identity, "grant", c.cfg.Grant)
		return t, c.save(ctx, key, t)
	})
	if err != nil {
		return nil, err
	}
	return v.(*Token), nil
}

func flightKey(k Key) string {
	return k.Issuer + "\x00" + k.ClientID + "\x00" + k.Identity + "\x00" + k.Resource
}
