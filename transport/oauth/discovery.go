package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// discovery is what a 401 taught about a server: its resource identifier,
// its authorization server and that server's endpoints.
type discovery struct {
	resource string            // the resource parameter (RFC 8707)
	prmURL   string            // where the resource metadata came from; "" in the legacy fallback
	prm      *ResourceMetadata // nil in the legacy fallback
	meta     *ServerMetadata   // never nil; the legacy defaults when the server has none
	issuer   string
	// noMetadata: the 2025-03-26 fallback found no metadata at all, so
	// PKCE support cannot be checked (that revision required PKCE of
	// every server).
	noMetadata bool
}

// maxMetadata bounds a metadata document.
const maxMetadata = 1 << 20

// discover finds the server's authorization server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-discovery):
// the protected resource metadata at the challenge's resource_metadata
// URL, else at the path-based then the root well-known URL (RFC 9728
// section 3.1); then the authorization server metadata (RFC 8414 and
// OpenID Connect forms). A server with no resource metadata gets the
// 2025-03-26 fallbacks
// (https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#2-3-authorization-server-discovery).
func (c *Client) discover(ctx context.Context, hc *http.Client, server string, ch Challenge) (*discovery, error) {
	su, err := url.Parse(server)
	if err != nil || su.Scheme == "" || su.Host == "" {
		return nil, fmt.Errorf("oauth: bad server URL %q", server)
	}
	loopback := isLoopback(su.Hostname())
	var candidates []string
	if ch.ResourceMetadata != "" {
		// The server names where to look: checked before it is fetched.
		if err := checkURL("protected resource metadata", ch.ResourceMetadata, loopback); err != nil {
			return nil, err
		}
		candidates = []string{ch.ResourceMetadata}
	} else {
		candidates = wellKnownResourceURLs(su)
	}
	var prm *ResourceMetadata
	var prmURL string
	var last error
	for _, u := range candidates {
		var m ResourceMetadata
		found, err := getJSON(ctx, hc, u, &m)
		if err != nil {
			last = err
			continue
		}
		if found {
			prm, prmURL = &m, u
			break
		}
	}
	if prm == nil {
		if ch.ResourceMetadata != "" {
			// The server named its metadata and it is not there: a
			// fault to report, not a reason to guess.
			return nil, &DiscoveryError{What: "protected resource metadata", Tried: candidates, Err: last}
		}
		return c.legacyDiscovery(ctx, hc, su)
	}
	if !resourceMatches(prm.Resource, su) {
		return nil, &ResourceMismatchError{Server: server, Resource: prm.Resource}
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, &DiscoveryError{What: "authorization server in the protected resource metadata", Tried: []string{prmURL}}
	}
	bound, err := c.loadBinding(ctx)
	if err != nil {
		return nil, err
	}
	issuer := chooseServer(prm.AuthorizationServers, bound)
	if err := checkURL("authorization server", issuer, loopback); err != nil {
		return nil, err
	}
	meta, err := serverMetadata(ctx, hc, issuer)
	if err != nil {
		return nil, err
	}
	if err := checkEndpoints(meta, loopback); err != nil {
		return nil, err
	}
	return &discovery{resource: prm.Resource, prmURL: prmURL, prm: prm, meta: meta, issuer: issuer}, nil
}

// chooseServer picks among the authorization servers a resource lists,
// which RFC 9728 section 7.6 leaves to the client: the issuer the client
// is bound to (Config.Issuer, or the pin of its pre-registered
// credentials) when it is listed, else the first.
func chooseServer(servers []string, bound string) string {
	for _, s := range servers {
		if bound != "" && s == bound {
			return s
		}
	}
	return servers[0]
}

// legacyDiscovery is the 2025-03-26 fallback: the authorization server is
// the MCP server's origin (the "authorization base URL", its path
// discarded); its metadata is at the root well-known URLs, and a server
// with none has the default endpoints /authorize, /token and /register.
func (c *Client) legacyDiscovery(ctx context.Context, hc *http.Client, su *url.URL) (*discovery, error) {
	base := (&url.URL{Scheme: su.Scheme, Host: su.Host}).String()
	loopback := isLoopback(su.Hostname())
	meta, err := serverMetadata(ctx, hc, base)
	resource := canonicalResource(su)
	switch {
	case err == nil:
		if err := checkEndpoints(meta, loopback); err != nil {
			return nil, err
		}
		return &discovery{resource: resource, meta: meta, issuer: base}, nil
	case errors.Is(err, ErrIssuerMismatch):
		// Metadata that names another issuer is never used, and the
		// defaults are not guessed past it.
		return nil, err
	}
	meta = &ServerMetadata{
		Issuer:                base,
		AuthorizationEndpoint: base + "/authorize",
		TokenEndpoint:         base + "/token",
		RegistrationEndpoint:  base + "/register",
	}
	if err := checkEndpoints(meta, loopback); err != nil {
		return nil, err
	}
	return &discovery{resource: resource, issuer: base, noMetadata: true, meta: meta}, nil
}

// checkEndpoints refuses an authorization server whose endpoints are not
// HTTPS, unless on a loopback address (a development server), or carry
// userinfo or a fragment (checkURL): codes, secrets and tokens travel to
// them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#communication-security).
func checkEndpoints(m *ServerMetadata, serverLoopback bool) error {
	for _, e := range []struct{ what, url string }{
		{"issuer", m.Issuer},
		{"authorization endpoint", m.AuthorizationEndpoint},
		{"token endpoint", m.TokenEndpoint},
		{"registration endpoint", m.RegistrationEndpoint},
	} {
		if e.url == "" {
			continue
		}
		if err := checkURL(e.what, e.url, serverLoopback); err != nil {
			return err
		}
	}
	return nil
}

// serverMetadata fetches an authorization server's metadata from the
// well-known URLs of its issuer, in the order the specification gives,
// and keeps only a document whose issuer is the issuer the URL was built
// from
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery#authorization-server-metadata-discovery,
// RFC 8414 section 3.3).
func serverMetadata(ctx context.Context, hc *http.Client, issuer string) (*ServerMetadata, error) {
	iu, err := url.Parse(issuer)
	if err != nil || iu.Scheme == "" || iu.Host == "" {
		return nil, fmt.Errorf("oauth: bad authorization server URL %q", issuer)
	}
	candidates := wellKnownServerURLs(iu)
	var mismatch, last error
	for _, u := range candidates {
		var m ServerMetadata
		found, err := getJSON(ctx, hc, u, &m)
		switch {
		case err != nil:
			last = err
			continue
		case !found:
			continue
		case m.Issuer != issuer:
			mismatch = &IssuerMismatchError{Where: u, Want: issuer, Got: m.Issuer}
			continue
		}
		return &m, nil
	}
	if mismatch != nil {
		return nil, mismatch
	}
	return nil, &DiscoveryError{What: "authorization server metadata", Tried: candidates, Err: last}
}

// wellKnownResourceURLs are the protected resource metadata URLs of a
// server without a resource_metadata hint: the path-based one (the
// well-known prefix between host and path), then the root one.
func wellKnownResourceURLs(su *url.URL) []string {
	const wk = "/.well-known/oauth-protected-resource"
	root := (&url.URL{Scheme: su.Scheme, Host: su.Host, Path: wk}).String()
	p := strings.TrimSuffix(su.EscapedPath(), "/")
	if p == "" {
		return []string{root}
	}
	return []string{su.Scheme + "://" + su.Host + wk + p, root}
}

// wellKnownServerURLs are the metadata URLs of an issuer, in priority
// order: for an issuer with a path, RFC 8414 path insertion, OpenID
// Connect path insertion, then OpenID Connect path appending; without a
// path, the RFC 8414 then the OpenID Connect root URL.
func wellKnownServerURLs(iu *url.URL) []string {
	origin := iu.Scheme + "://" + iu.Host
	p := strings.TrimSuffix(iu.EscapedPath(), "/")
	if p == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}
}

// resourceMatches reports whether the resource a metadata document names
// is the server being connected to: the same origin, and a path that is
// the server's path or a parent of it (a server at /mcp may publish its
// metadata at the root, naming the origin). A resource elsewhere is
// refused: a token for it is not a token for this server.
func resourceMatches(resource string, su *url.URL) bool {
	ru, err := url.Parse(resource)
	if err != nil || ru.Fragment != "" || !sameOrigin(ru, su) {
		return false
	}
	rp := strings.TrimSuffix(ru.Path, "/")
	sp := strings.TrimSuffix(su.Path, "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// canonicalResource is the canonical URI of a server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#canonical-server-uri):
// lower-case scheme and host, no fragment, no trailing slash.
func canonicalResource(su *url.URL) string {
	u := *su
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.Fragment, u.RawFragment = "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u.String()
}

// sameOrigin compares scheme, host and port (RFC 6454), the first two
// case-insensitively.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// getJSON fetches a metadata document. It reports found=false for an
// answer that is not a 200 (404 is how a server says "not here"), and an
// error for a transport failure or a 200 that is not the JSON object
// expected.
func getJSON(ctx context.Context, hc *http.Client, u string, into any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return false, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	if err != nil {
		return false, err
	}
	if len(body) > maxMetadata {
		return false, fmt.Errorf("oauth: %s: metadata larger than %d bytes", u, maxMetadata)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return false, fmt.Errorf("oauth: %s: metadata is not a JSON object: %v", u, err)
	}
	return true, nil
}
