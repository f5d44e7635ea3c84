package oauth

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Key says whose token a Store entry is. The issuer and client come from
// the specification's binding of credentials to the authorization server
// that issued them
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#authorization-server-binding);
// the identity is the person (or service) the token acts for, so that a
// backend serving many people never sends one person's token for another;
// the resource is the MCP server the token is for (RFC 8707): two servers
// behind one authorization server get tokens of their own, so neither
// ever receives a token meant for the other.
type Key struct {
	Issuer   string
	ClientID string
	Identity string
	Resource string
}

// Token is an access token and what came with it. It formats itself
// redacted (String, GoString, LogValue), so that it can be neither logged
// nor put in an error by accident.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"` // zero: unknown
	// Scope is the scope granted: the token response's, else the scope
	// asked for (RFC 6749 section 5.1 makes them equal when the response
	// names none).
	Scope string `json:"scope,omitempty"`
	// DPoPKey is the private key (P-256, PKCS #8, base64) whose proofs
	// went with the token request, when DPoP was used (RFC 9449): a
	// TokenType "DPoP" token is bound to it, and its refresh must prove
	// the same key. A secret like the tokens, kept with them.
	DPoPKey string `json:"dpop_key,omitempty"`
}

// String hides the secrets.
func (t Token) String() string { return "oauth.Token{[redacted]}" }

// GoString hides the secrets from %#v.
func (t Token) GoString() string { return t.String() }

// LogValue hides the secrets from log/slog.
func (t Token) LogValue() slog.Value {
	return slog.GroupValue(slog.Time("expiry", t.Expiry), slog.String("scope", t.Scope))
}

// same reports whether a and b are the same token (nil is no token).
func same(a, b *Token) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.AccessToken == b.AccessToken && a.RefreshToken == b.RefreshToken
}

// expiresWithin reports whether the token expires within d (false when
// its lifetime is unknown).
func (t *Token) expiresWithin(d time.Duration, now time.Time) bool {
	return !t.Expiry.IsZero() && now.Add(d).After(t.Expiry)
}

// Store keeps tokens. Implementations must be safe for concurrent use.
// MemoryStore and FileStore are the two this package has.
type Store interface {
	// Load returns the token stored under key, or nil (and no error)
	// when there is none.
	Load(ctx context.Context, key Key) (*Token, error)
	// CompareAndSwap stores new under key if what is stored is still old
	// (nil: nothing), and reports whether it did. A nil new deletes. A
	// refresh saves its result this way, so that of two refreshes of one
	// rotating refresh token only one is kept, and the other sees the
	// winner's token.
	CompareAndSwap(ctx context.Context, key Key, old, new *Token) (bool, error)
}

// Locker is implemented by a Store shared between processes (FileStore):
// Lock holds key against the other processes until unlock is called, so
// that only one of them refreshes a token at a time. A rotating refresh
// token used twice may make the authorization server revoke it
// (https://datatracker.ietf.org/doc/html/draft-ietf-oauth-v2-1-13#section-4.3.1).
type Locker interface {
	Lock(ctx context.Context, key Key) (unlock func(), err error)
}

// ClientInfo is a client identity at one authorization server: a
// registration's result (RFC 7591 section 3.2.1), kept per issuer.
type ClientInfo struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// SecretExpiresAt is client_secret_expires_at; zero: never.
	SecretExpiresAt int64 `json:"client_secret_expires_at,omitempty"`
	// AuthMethod is the token endpoint authentication method: none,
	// client_secret_basic, client_secret_post or private_key_jwt.
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// String hides the secret.
func (c ClientInfo) String() string { return "oauth.ClientInfo{" + c.ClientID + " [redacted]}" }

// GoString hides the secret from %#v.
func (c ClientInfo) GoString() string { return c.String() }

// LogValue hides the secret from log/slog.
func (c ClientInfo) LogValue() slog.Value {
	return slog.GroupValue(slog.String("client_id", c.ClientID), slog.String("token_endpoint_auth_method", c.AuthMethod))
}

// ClientStore is implemented by a Store that also keeps dynamic client
// registrations, so that a restart does not register again. Profile says
// which registration of this client program it is (its redirect URI and
// grants), so that a changed configuration registers anew.
type ClientStore interface {
	LoadClient(ctx context.Context, issuer, profile string) (*ClientInfo, error)
	StoreClient(ctx context.Context, issuer, profile string, c *ClientInfo) error
}

// MemoryStore keeps tokens and registrations in memory, for one process.
// The zero value is ready to use.
type MemoryStore struct {
	mu      sync.Mutex
	tokens  map[Key]Token
	clients map[[2]string]ClientInfo
}

// Load implements Store.
func (s *MemoryStore) Load(_ context.Context, key Key) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[key]
	if !ok {
		return nil, nil
	}
	return &t, nil
}

// CompareAndSwap implements Store.
func (s *MemoryStore) CompareAndSwap(_ context.Context, key Key, old, new *Token) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cur *Token
	if t, ok := s.tokens[key]; ok {
		cur = &t
	}
	if !same(cur, old) {
		return false, nil
	}
	if new == nil {
		delete(s.tokens, key)
		return true, nil
	}
	if s.tokens == nil {
		s.tokens = map[Key]Token{}
	}
	s.tokens[key] = *new
	return true, nil
}

// LoadClient implements ClientStore.
func (s *MemoryStore) LoadClient(_ context.Context, issuer, profile string) (*ClientInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[[2]string{issuer, profile}]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// StoreClient implements ClientStore.
func (s *MemoryStore) StoreClient(_ context.Context, issuer, profile string, c *ClientInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients == nil {
		s.clients = map[[2]string]ClientInfo{}
	}
	s.clients[[2]string{issuer, profile}] = *c
	return nil
}
