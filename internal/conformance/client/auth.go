package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

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
func authFor(scenario, serverURL string) (*oauth.Client, error) {
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
		// assertion of a JWT bearer grant, for the authorization server
		// its aud names (the one an operator configures as Issuer).
		cfg.Grant = oauth.GrantJWTBearer
		var claims jwt.RegisteredClaims
		if _, _, err := jwt.NewParser().ParseUnverified(sc.ValidJWT, &claims); err != nil || len(claims.Audience) == 0 {
			return nil, fmt.Errorf("valid_jwt: no audience (%v)", err)
		}
		cfg.Issuer = claims.Audience[0]
		cfg.Assertion = &oauth.AssertionSource{Func: func(context.Context, string) (string, error) {
			return sc.ValidJWT, nil
		}}
	case sc.IDPIDToken != "":
		cfg.Grant = oauth.GrantCrossApp
		// The grant goes to one configured authorization server; the
		// scenario does not name it, so it is read where an operator
		// would read it, in the server's resource metadata.
		iss, err := issuerOf(serverURL)
		if err != nil {
			return nil, err
		}
		cfg.Issuer = iss
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

// issuerOf is the first authorization server the protected resource
// metadata of the MCP server at serverURL lists, found from its 401
// challenge.
func issuerOf(serverURL string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body := strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"ping"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	ch, ok := oauth.ParseChallenge(resp.Header)
	if !ok || ch.ResourceMetadata == "" {
		return "", fmt.Errorf("%s: no resource_metadata in its %d answer", serverURL, resp.StatusCode)
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, ch.ResourceMetadata, nil)
	if err != nil {
		return "", err
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var prm oauth.ResourceMetadata
	if err := json.NewDecoder(resp.Body).Decode(&prm); err != nil || len(prm.AuthorizationServers) == 0 {
		return "", fmt.Errorf("%s: no authorization server (%v)", ch.ResourceMetadata, err)
	}
	return prm.AuthorizationServers[0], nil
}
