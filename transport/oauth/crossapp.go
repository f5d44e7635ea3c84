package oauth

import (
	"context"
	"errors"
	"net/url"
	"strings"
)

// Enterprise-managed authorization (the MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization, SEP-990; the
// conformance suite's cross-app access): the user signed in to the
// application at the enterprise identity provider, which issued an ID
// token. The client exchanges it at the identity provider for an Identity
// Assertion JWT Authorization Grant (ID-JAG; RFC 8693 token exchange),
// then presents that grant to the MCP server's authorization server as a
// JWT bearer grant (RFC 7523 section 2.1). No browser is involved.

const (
	tokenTypeIDToken = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG   = "urn:ietf:params:oauth:token-type:id-jag"
)

func (c *Client) crossApp(ctx context.Context, st *serverState, d *discovery, ci *ClientInfo, key Key, scopes []string) (*Token, error) {
	identity := key.Identity
	x := c.cfg.CrossApp
	if x == nil || x.IDToken == nil || x.IDPTokenEndpoint == "" {
		return nil, errors.New("oauth: cross-app access needs CrossApp.IDPTokenEndpoint and CrossApp.IDToken")
	}
	idToken, err := contain(c.sh, "CrossApp.IDToken", func() (string, error) { return x.IDToken(ctx, identity) })
	if err != nil {
		return nil, err
	}
	// The exchange: the audience is the authorization server that will
	// take the grant, the resource the MCP server it is for.
	params := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
		"audience":             {d.issuer},
		"resource":             {d.resource},
	}
	if len(scopes) > 0 {
		params.Set("scope", strings.Join(scopes, " "))
	}
	idp := &ClientInfo{ClientID: x.IDPClientID, ClientSecret: x.IDPClientSecret, AuthMethod: AuthNone}
	if x.IDPClientSecret != "" {
		idp.AuthMethod = AuthSecretBasic
	}
	jag, err := c.tokenRequest(ctx, st, x.IDPTokenEndpoint, "", idp, params, nil)
	if err != nil {
		return nil, err
	}
	if it, _ := jag.Extra("issued_token_type").(string); it != "" && it != tokenTypeIDJAG {
		return nil, errors.New("oauth: the identity provider issued " + it + ", not an ID-JAG")
	}
	if err := checkAudience("the identity provider's ID-JAG", jag.AccessToken, d); err != nil {
		return nil, err
	}
	grant := url.Values{
		"grant_type": {grantJWTBearer},
		"assertion":  {jag.AccessToken},
		"resource":   {d.resource},
	}
	if len(scopes) > 0 {
		grant.Set("scope", strings.Join(scopes, " "))
	}
	dk, err := c.proofKey(d, key, nil)
	if err != nil {
		return nil, err
	}
	t, err := c.tokenRequest(ctx, st, d.meta.TokenEndpoint, d.issuer, ci, grant, dk)
	if err != nil {
		return nil, err
	}
	return toToken(t, scopes, dk)
}
