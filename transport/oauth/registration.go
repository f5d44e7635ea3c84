package oauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// clientFor returns the client identity to use with the discovered
// authorization server, in the order the specification gives
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-registration-approaches):
// the pre-registered client, a client ID metadata document when the
// server takes one, else a dynamic registration (RFC 7591), kept per
// issuer so that a new authorization server means a new registration.
func (c *Client) clientFor(ctx context.Context, st *serverState, d *discovery) (*ClientInfo, error) {
	if c.cfg.ClientID != "" {
		// Bound to another authorization server: an error to surface, not
		// a reason to register elsewhere behind the user's back, nor to
		// present the credentials there (issuer_binding.go).
		if err := c.bindIssuer(ctx, d.issuer); err != nil {
			return nil, err
		}
	}
	if ci := c.knownClient(d); ci != nil {
		return ci, nil
	}
	if c.cfg.ClientID != "" {
		return nil, &IssuerMismatchError{Where: "pre-registered client " + strconv.Quote(c.cfg.ClientID), Want: c.boundIssuer(), Got: d.issuer}
	}
	if d.meta.RegistrationEndpoint == "" {
		return nil, ErrNoClient
	}
	profile := c.profile()
	v, err := c.do(ctx, "register\x00"+d.issuer+"\x00"+profile, func(ctx context.Context) (any, error) {
		if cs, ok := c.sh.store.clients(); ok {
			ci, err := cs.LoadClient(ctx, d.issuer, profile)
			if err != nil {
				return nil, err
			}
			if ci != nil && !secretExpired(ci) {
				return ci, nil
			}
		}
		ci, err := c.register(ctx, st.hc, d)
		if err != nil {
			return nil, err
		}
		if cs, ok := c.sh.store.clients(); ok {
			if err := cs.StoreClient(ctx, d.issuer, profile, ci); err != nil {
				c.sh.log.Warn("oauth: registration not stored", "issuer", d.issuer, "err", err)
			}
		}
		return ci, nil
	})
	if err != nil {
		return nil, err
	}
	ci := v.(*ClientInfo)
	c.sh.clients.Store(d.issuer+"\x00"+profile, ci)
	return ci, nil
}

// knownClient returns the client identity that needs no request: the
// pre-registered one, the metadata document URL, or a registration made
// before; nil if a registration is needed.
func (c *Client) knownClient(d *discovery) *ClientInfo {
	switch {
	case c.cfg.ClientID != "":
		// bindIssuer (clientFor) made the binding; a request that finds
		// none here, or another, waits for it.
		if b := c.boundIssuer(); b != d.issuer && (b != "" || c.hasCredentials()) {
			return nil
		}
		return &ClientInfo{ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret, AuthMethod: c.preRegisteredAuth(d.meta)}
	case c.cfg.ClientMetadataURL != "" && d.meta.ClientIDMetadataDocumentSupported:
		method := AuthNone
		if c.cfg.PrivateKey != nil {
			method = AuthPrivateKeyJWT
		}
		return &ClientInfo{ClientID: c.cfg.ClientMetadataURL, AuthMethod: method}
	}
	if v, ok := c.sh.clients.Load(d.issuer + "\x00" + c.profile()); ok {
		if ci := v.(*ClientInfo); !secretExpired(ci) {
			return ci
		}
	}
	return nil
}

// preRegisteredAuth chooses how a pre-registered client authenticates:
// with its key, else its secret in the way the server prefers (Basic when
// it takes it: RFC 6749 section 2.3.1 makes it the one every server
// supports), else not at all (a public client).
func (c *Client) preRegisteredAuth(m *ServerMetadata) string {
	switch {
	case c.cfg.PrivateKey != nil:
		return AuthPrivateKeyJWT
	case c.cfg.ClientSecret == "":
		return AuthNone
	case !slices.Contains(m.authMethods(), AuthSecretBasic) && slices.Contains(m.authMethods(), AuthSecretPost):
		return AuthSecretPost
	}
	return AuthSecretBasic
}

// profile names this program's registration: what it registers with. A
// change of redirect URI, grant or name registers again.
func (c *Client) profile() string {
	p := []string{c.cfg.RedirectURL, c.cfg.Grant, c.cfg.ClientName, c.cfg.ApplicationType}
	if c.cfg.DPoP != DPoPAuto {
		// Another DPoP mode registers again (dpop_bound_access_tokens);
		// the default keeps the registrations made before DPoP was.
		p = append(p, c.cfg.DPoP)
	}
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func secretExpired(ci *ClientInfo) bool {
	return ci.SecretExpiresAt != 0 && time.Now().Unix() >= ci.SecretExpiresAt
}

// register is dynamic client registration (RFC 7591 section 3). It asks
// for the public-client method "none" when the server takes it (a native
// application cannot keep a secret), and sends application_type, which
// OpenID Connect servers need to accept a loopback redirect
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#application-type-and-redirect-uri-constraints).
func (c *Client) register(ctx context.Context, hc *http.Client, d *discovery) (*ClientInfo, error) {
	methods := d.meta.authMethods()
	method := AuthSecretBasic
	switch {
	case slices.Contains(methods, AuthNone) || len(d.meta.TokenEndpointAuthMethodsSupported) == 0 && d.prm == nil:
		method = AuthNone
	case !slices.Contains(methods, AuthSecretBasic) && slices.Contains(methods, AuthSecretPost):
		method = AuthSecretPost
	}
	req := map[string]any{
		"client_name":                c.cfg.ClientName,
		"token_endpoint_auth_method": method,
		"application_type":           c.cfg.ApplicationType,
	}
	if c.useDPoP(d) {
		// RFC 9449 section 5.2: this client always sends proofs to
		// this server, which may then refuse a token request without.
		req["dpop_bound_access_tokens"] = true
	}
	if c.cfg.Grant == GrantAuthorizationCode {
		req["redirect_uris"] = []string{c.cfg.RedirectURL}
		req["grant_types"] = []string{"authorization_code", "refresh_token"}
		req["response_types"] = []string{"code"}
	} else {
		req["grant_types"] = []string{grantTypeOf(c.cfg.Grant)}
	}
	body, _ := json.Marshal(req)
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, d.meta.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	resp, err := hc.Do(r)
	if err != nil {
		return nil, fmt.Errorf("oauth: registration at %s: %w", d.meta.RegistrationEndpoint, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return nil, fmt.Errorf("oauth: registration at %s: %w", d.meta.RegistrationEndpoint, err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(raw, &e)
		return nil, &TokenError{Endpoint: d.meta.RegistrationEndpoint, Grant: "registration", Status: resp.StatusCode, Code: e.Error, Description: e.Description}
	}
	var ci ClientInfo
	if err := json.Unmarshal(raw, &ci); err != nil || ci.ClientID == "" {
		return nil, &TokenError{Endpoint: d.meta.RegistrationEndpoint, Grant: "registration", Status: resp.StatusCode, Description: "the answer holds no client_id"}
	}
	if ci.AuthMethod == "" {
		// The server did not say: the method asked for, or Basic when it
		// gave a secret to a client that asked for none.
		ci.AuthMethod = method
		if ci.ClientSecret != "" && method == AuthNone {
			ci.AuthMethod = AuthSecretBasic
		}
	}
	c.sh.log.Debug("oauth: registered", "issuer", d.issuer, "client_id", ci.ClientID, "auth", ci.AuthMethod)
	return &ci, nil
}

// grantTypeOf is the grant_type a Config.Grant registers for.
func grantTypeOf(grant string) string {
	switch grant {
	case GrantClientCredentials:
		return "client_credentials"
	case GrantCrossApp, GrantJWTBearer:
		return grantJWTBearer
	}
	return "authorization_code"
}
