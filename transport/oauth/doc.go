// Package oauth is the client side of MCP authorization for the HTTP
// transports
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization,
// and what 2026-07-28 adds: docs/oauth.md).
//
// A Client is given to a server's configuration (ServerConfig.Auth). It
// wraps the runtime's HTTP transport: every request to the server carries
// the access token of the identity it acts for, and a 401 or 403 answer is
// acted on before the caller sees it:
//
//   - 401: the challenge in WWW-Authenticate is read (challenge.go); the
//     protected resource metadata and the authorization server metadata are
//     discovered (discovery.go); the client identity is chosen or
//     registered (registration.go); a token is refreshed (refresh.go) or
//     obtained with the configured grant (codeflow.go, grants.go,
//     crossapp.go, jwtbearer.go); the request is sent once more. A token
//     refused and not refreshed sends discovery again: the server may
//     have moved to another authorization server (migration.go).
//   - 401 with a DPoP use_dpop_nonce challenge: the request again with
//     the server's nonce (dpop.go).
//   - 403 with error="insufficient_scope": step-up authorization with the
//     union of the scopes held and the scopes challenged, at most
//     MaxAuthorizations times per request.
//
// Tokens are bearer tokens, or DPoP tokens bound to a key of the client
// (RFC 9449, Config.DPoP: when the authorization server advertises it),
// sent with a fresh proof on every request (dpop.go).
//
// Tokens are kept in a Store (store.go, store_file.go), keyed by issuer,
// client, identity and resource. The identity a request acts for comes from
// its context (WithIdentity) or from the Client (Config.Identity, As): a
// backend serving many people uses one Client and one identity per person,
// and a token is never sent for another identity.
//
// When the user must take part (the authorization code flow) and no
// UserStep is configured, the request fails at once with an
// *AuthorizationRequiredError carrying the URL to send the user to;
// Client.Complete finishes the flow with the redirect's query.
//
// Tokens never appear in logs, errors or spans: Token formats itself
// redacted, and token endpoint errors keep the error code and description
// only, never the response body.
package oauth
