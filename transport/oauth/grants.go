package oauth

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Token requests (RFC 6749 section 3.2) go through golang.org/x/oauth2:
// its clientcredentials package sends any grant (grant_type may be set
// among the parameters), authenticates the client in the header (Basic)
// or the body, and parses the answer, form-encoded ones included. What it
// lacks, private_key_jwt, is two more parameters.

const (
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
)

// tokenRequest asks endpoint for a token with params (grant_type among
// them), authenticating as ci; audience is the authorization server's
// issuer, the audience of a private_key_jwt assertion. With dk, the
// request carries a DPoP proof of it (RFC 9449 section 5) and is sent
// once more when the server answers that it wants its nonce in the
// proof (section 8).
func (c *Client) tokenRequest(ctx context.Context, st *serverState, endpoint, audience string, ci *ClientInfo, params url.Values, dk *dpopKey) (*oauth2.Token, error) {
	hc := st.hc
	if dk != nil {
		hc = c.withProofs(hc, dk)
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	for attempt := 0; ; attempt++ {
		// A fresh copy each time: a client assertion is used once.
		p := maps.Clone(params)
		cc := clientcredentials.Config{ClientID: ci.ClientID, TokenURL: endpoint, EndpointParams: p, AuthStyle: oauth2.AuthStyleInParams}
		switch ci.AuthMethod {
		case AuthSecretBasic:
			cc.ClientSecret, cc.AuthStyle = ci.ClientSecret, oauth2.AuthStyleInHeader
		case AuthSecretPost:
			cc.ClientSecret = ci.ClientSecret
		case AuthPrivateKeyJWT:
			a, err := c.clientAssertion(ci.ClientID, audience)
			if err != nil {
				return nil, err
			}
			p.Set("client_assertion_type", assertionType)
			p.Set("client_assertion", a)
		}
		t, err := cc.Token(ctx)
		if err != nil {
			if dk != nil && attempt == 0 && asNonceChallenge(err) {
				continue
			}
			return nil, tokenError(endpoint, params.Get("grant_type"), err)
		}
		return t, nil
	}
}

// tokenError keeps the code and description of a token endpoint's error
// answer; its body, which oauth2.RetrieveError also holds, stays out.
func tokenError(endpoint, grant string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		te := &TokenError{Endpoint: endpoint, Grant: grant, Code: re.ErrorCode, Description: re.ErrorDescription}
		if re.Response != nil {
			te.Status = re.Response.StatusCode
		}
		return te
	}
	return fmt.Errorf("oauth: %s at %s: %w", grant, endpoint, err)
}

// toToken converts a token response: a bearer token (RFC 6750), or a
// DPoP token (RFC 9449 section 5) when the request carried a proof of dk,
// which the token keeps. The granted scope is the response's, else the
// scope asked for (RFC 6749 section 5.1). The expiry is expires_in's,
// else the exp of a token that is a JWT, else unknown.
func toToken(t *oauth2.Token, asked []string, dk *dpopKey) (*Token, error) {
	out := &Token{AccessToken: t.AccessToken, TokenType: "Bearer", RefreshToken: t.RefreshToken, Expiry: t.Expiry, Scope: strings.Join(asked, " ")}
	switch tt := t.TokenType; {
	case tt == "" || strings.EqualFold(tt, "bearer"):
	case strings.EqualFold(tt, "DPoP") && dk != nil:
		out.TokenType = "DPoP"
	default:
		return nil, fmt.Errorf("oauth: token type %q is not supported", tt)
	}
	if dk != nil {
		out.DPoPKey = dk.enc
	}
	if s, ok := t.Extra("scope").(string); ok && s != "" {
		out.Scope = s
	}
	if out.Expiry.IsZero() && t.ExpiresIn > 0 {
		out.Expiry = time.Now().Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	if out.Expiry.IsZero() {
		out.Expiry = unverifiedExpiry(t.AccessToken)
	}
	return out, nil
}

// clientCredentials is the client credentials grant (RFC 6749 section
// 4.4): the client acts for itself, authenticated by its secret or its
// key.
func (c *Client) clientCredentials(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, scopes []string) (*Token, error) {
	return c.grantWithoutUser(ctx, st, d, ci, key, scopes, url.Values{"grant_type": {"client_credentials"}})
}

// grantWithoutUser asks the token endpoint for a token by a grant that
// needs no user (client credentials, JWT bearer): params, with the resource
// and the scopes, DPoP-bound when the server takes it.
func (c *Client) grantWithoutUser(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, scopes []string, params url.Values) (*Token, error) {
	params.Set("resource", d.resource)
	if len(scopes) > 0 {
		params.Set("scope", strings.Join(scopes, " "))
	}
	dk, err := c.proofKey(d, key, nil)
	if err != nil {
		return nil, err
	}
	t, err := c.tokenRequest(ctx, st, d.meta.TokenEndpoint, d.issuer, ci, params, dk)
	if err != nil {
		return nil, err
	}
	return toToken(t, scopes, dk)
}
