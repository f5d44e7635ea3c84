package oauth

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// errNothingNew ends a step-up that would ask for nothing the token does
// not already hold: the server refuses a token with every scope it
// challenged (or challenged none), and asking the user again would not
// change that.
var errNothingNew = errors.New("oauth: the token already holds every scope challenged")

// authorize obtains a token for identity after the server answered a
// request that carried sent (nil: none) with ch: 401, or 403 with
// insufficient_scope (stepUp). Requests of one identity that need the
// same authorization at the same time share one. rediscover runs
// discovery again (a refused token: the server may have moved).
func (c *Client) authorize(ctx context.Context, st *serverState, identity string, ch Challenge, sent *Token, stepUp, rediscover bool) error {
	d, err := c.discovery(ctx, st, ch, rediscover)
	if err != nil {
		return err
	}
	// Before a registration, for a grant whose assertion may go to one
	// authorization server alone (assertion_binding.go).
	if err := c.assertionIssuer(d); err != nil {
		return err
	}
	ci, err := c.clientFor(ctx, st, d)
	if err != nil {
		return err
	}
	key := keyFor(d, ci, identity)
	var held []string
	if sent != nil {
		held = fieldsOf(sent.Scope)
	}
	if stepUp && containsAll(held, ch.Scopes()) {
		return errNothingNew
	}
	scopes := c.chooseScopes(d, ch, held, stepUp)
	flight := "auth\x00" + flightKey(key) + "\x00" + strings.Join(scopes, " ")
	_, err = c.do(ctx, flight, func(ctx context.Context) (any, error) {
		if !stepUp {
			// Another request, or another process sharing the Store,
			// may hold a token this one did not send.
			cur, err := c.sh.store.Load(ctx, key)
			if err == nil && cur != nil && !same(cur, sent) {
				if !cur.expiresWithin(0, time.Now()) {
					c.sh.tokens.Store(key, cur)
					return cur, nil
				}
				// Stored before, expired since (a restart): a refresh
				// spares the user.
				if t, err := c.refresh(ctx, st, d, ci, key, cur); err == nil {
					return t, nil
				}
			}
		}
		t, err := c.grant(ctx, st, d, ci, key, scopes, flight)
		if err != nil {
			return nil, err
		}
		c.sh.log.Debug("oauth: authorized", "server", st.shown, "identity", identity, "grant", c.cfg.Grant, "scope", t.Scope)
		return t, c.save(ctx, key, t)
	})
	return err
}

func (c *Client) grant(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, scopes []string, flight string) (*Token, error) {
	if err := c.assertionIssuer(d); err != nil {
		return nil, err
	}
	switch c.cfg.Grant {
	case GrantClientCredentials:
		return c.clientCredentials(ctx, st, d, ci, key, scopes)
	case GrantCrossApp:
		return c.crossApp(ctx, st, d, ci, key, scopes)
	case GrantJWTBearer:
		return c.jwtBearer(ctx, st, d, ci, key, scopes)
	}
	return c.codeFlow(ctx, st, d, ci, key, scopes, flight)
}

// chooseScopes is the scope of an authorization
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#scope-selection-strategy):
// the challenge's scope, else the resource metadata's scopes_supported,
// else none (the parameter is left out); for a step-up, the union of the
// scopes held and the scopes challenged, so that nothing granted before is
// lost
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#step-up-authorization-flow).
// Config.Scopes are added, and offline_access when the authorization
// server lists it, for a refresh token
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#refresh-tokens).
func (c *Client) chooseScopes(d *discovery, ch Challenge, held []string, stepUp bool) []string {
	var s []string
	switch {
	case stepUp:
		s = union(held, ch.Scopes())
	case ch.Scope != "":
		s = ch.Scopes()
	case d.prm != nil:
		s = d.prm.ScopesSupported
	}
	s = union(s, c.cfg.Scopes)
	if c.cfg.Grant == GrantAuthorizationCode && d.meta.offers("offline_access") {
		s = union(s, []string{"offline_access"})
	}
	return s
}

func fieldsOf(scope string) []string { return strings.Fields(scope) }

// union returns a's scopes, then b's not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, s := range want {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}
