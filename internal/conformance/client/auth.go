package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/mcpactor/mcpactor/internal/redirect"
	"github.com/mcpactor/mcpactor/transport/oauth"
)

// The auth/* scenarios: the suite's fake MCP server answers 401 until the
// client has gone through its fake authorization server. What a scenario
// gives the client beyond the URL (pre-registered credentials, a private
// key, an identity provider's ID token, a workload's JWT) comes as JSON
// in MCP_CONFORMANCE_CONTEXT.

// cimdURL is the client ID metadata document URL the suite expects of a
// client when its authorization server takes one (auth/basic-cimd).
const cimdURL = "https://conformance-test.local/client-metadata.json"

// scenarioContext is MCP_CONFORMANCE_CONTEXT.
type scenarioContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	// ValidJWT is the workload's identity token of auth/wif-jwt-bearer
	// (the context's other JWTs are for negative tests the scenario
	// does not ask of a client).
	ValidJWT string `json:"valid_jwt"`
}

// authFor returns the Authorizer of an auth/* scenario, nil for the
// others.
func authFor(scenario string) (*oauth.Client, error) {
	if !strings.HasPrefix(scenario, "auth/") {
		return nil, nil
	}
	var sc scenarioContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	cfg := oauth.Config{
		ClientID:          sc.ClientID,
		ClientSecret:      sc.ClientSecret,
		ClientMetadataURL: cimdURL,
		ClientName:        "mcpactor-conformance",
		SigningAlgorithm:  sc.SigningAlgorithm,
		UserStep:          oauth.UserStepFunc(followRedirect),
	}
	if sc.PrivateKeyPEM != "" {
		key, err := oauth.ParsePrivateKey([]byte(sc.PrivateKeyPEM))
		if err != nil {
			return nil, err
		}
		cfg.PrivateKey = key
	}
	switch {
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		cfg.Grant = oauth.GrantClientCredentials
	case sc.ValidJWT != "":
		// Workload identity federation: the platform's JWT is the
		// assertion of a JWT bearer grant.
		cfg.Grant = oauth.GrantJWTBearer
		cfg.Assertion = &oauth.AssertionSource{Func: func(context.Context, string) (string, error) {
			return sc.ValidJWT, nil
		}}
	case sc.IDPIDToken != "":
		cfg.Grant = oauth.GrantCrossApp
		cfg.CrossApp = &oauth.CrossApp{
			IDPTokenEndpoint: sc.IDPTokenEndpoint,
			IDPClientID:      sc.IDPClientID,
			IDToken: func(context.Context, string) (string, error) {
				return sc.IDPIDToken, nil
			},
		}
	}
	return oauth.New(cfg), nil
}

// followRedirect is the user's browser of the scenarios: the suite's
// authorization endpoint answers at once with a redirect carrying the
// code, which is read without being followed (nothing listens at the
// redirect URL).
func followRedirect(ctx context.Context, r *oauth.AuthorizationRequest) (url.Values, error) {
	loc, err := redirect.Follow(ctx, nil, r.URL)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(loc.String(), r.RedirectURL) {
		return nil, errors.New("authorization endpoint redirected elsewhere than the redirect URL")
	}
	return loc.Query(), nil
}
