package oauth

import (
	"context"
	"crypto"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// Grants a Client obtains tokens with (Config.Grant).
const (
	// GrantAuthorizationCode is the authorization code grant with PKCE,
	// for a user (RFC 6749 section 4.1, OAuth 2.1 section 4.1).
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials is the client acting for itself (RFC 6749
	// section 4.4; the MCP client credentials extension, SEP-1046), with
	// a client secret or private_key_jwt.
	GrantClientCredentials = "client_credentials"
	// GrantCrossApp is enterprise-managed authorization (SEP-990): the
	// user's ID token is exchanged at the identity provider for an
	// identity assertion grant (RFC 8693), which the authorization server
	// takes as a JWT bearer grant (RFC 7523).
	GrantCrossApp = "cross_app"
	// GrantJWTBearer is the JWT bearer grant (RFC 7523 section 2.1) with
	// an assertion the workload's platform issued (Config.Assertion):
	// workload identity federation (SEP-1933). No user, no secret.
	GrantJWTBearer = "jwt_bearer"
)

// Token endpoint authentication methods (RFC 7591 section 2).
const (
	AuthNone          = "none"
	AuthSecretBasic   = "client_secret_basic"
	AuthSecretPost    = "client_secret_post"
	AuthPrivateKeyJWT = "private_key_jwt"
)

// Defaults of Config.
const (
	DefaultRedirectURL       = "http://127.0.0.1:33418/callback"
	DefaultClientName        = "mcpactor"
	DefaultRefreshBefore     = time.Minute
	DefaultMaxAuthorizations = 3
	DefaultFlowTimeout       = 5 * time.Minute
)

// Config is what a user tells a Client. The zero value is a public client
// that registers itself (client ID metadata document or dynamic
// registration), runs the authorization code flow, keeps tokens in memory
// and, having no UserStep, fails a request that needs the user with an
// *AuthorizationRequiredError.
type Config struct {
	// ClientID and ClientSecret are a pre-registered client. They are
	// used first, before a client ID metadata document or a
	// registration
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-registration-approaches).
	ClientID     string
	ClientSecret string
	// PrivateKey authenticates the client with private_key_jwt (RFC 7523
	// section 2.2) instead of a secret; ParsePrivateKey reads a PEM file.
	// SigningAlgorithm (ES256, RS256, EdDSA...) defaults to the key's
	// usual one; KeyID, if set, is the JWT's kid.
	PrivateKey       crypto.Signer
	SigningAlgorithm string
	KeyID            string
	// Issuer, if set, is the authorization server the pre-registered
	// client belongs to: it is preferred among those a server lists, and
	// the pre-registered client is refused with any other
	// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#authorization-server-binding).
	// Unset, a client with a ClientSecret or a PrivateKey is bound to
	// the first authorization server it is used with, pinned in the
	// Store (issuer_binding.go). GrantJWTBearer and GrantCrossApp need
	// it: their assertions go to this authorization server alone.
	Issuer string
	// ClientMetadataURL is the HTTPS URL of this client's metadata
	// document, used as its client_id with servers that take one
	// (client_id_metadata_document_supported).
	ClientMetadataURL string
	// ClientName is the client_name of a registration; default "mcpactor".
	ClientName string
	// ApplicationType is the application_type of a registration:
	// "native" (default: a CLI, a desktop application, a loopback
	// redirect) or "web".
	ApplicationType string
	// RedirectURL is where the authorization server sends the user back;
	// default DefaultRedirectURL (a loopback address, RFC 8252 section
	// 7.3).
	RedirectURL string
	// Scopes are asked for in addition to the ones the server's challenge
	// or metadata name.
	Scopes []string
	// Grant is GrantAuthorizationCode (the default),
	// GrantClientCredentials, GrantCrossApp or GrantJWTBearer.
	Grant string
	// CrossApp configures GrantCrossApp.
	CrossApp *CrossApp
	// Assertion is where GrantJWTBearer's assertions come from.
	Assertion *AssertionSource
	// DPoP says when tokens are bound to a key of this client (RFC
	// 9449): DPoPAuto (the default: when the authorization server
	// advertises it), DPoPNever or DPoPAlways.
	DPoP string
	// Identity is whom a request acts for when its context names no one
	// (WithIdentity); "" is an identity too (a single-user program's).
	Identity string
	// Store keeps the tokens; nil keeps them in memory (a MemoryStore of
	// this Client's own).
	Store Store
	// UserStep sends the user to the authorization server and brings back
	// the redirect. nil: a request that needs the user fails at once with
	// an *AuthorizationRequiredError.
	UserStep UserStep
	// HTTPClient talks to authorization servers and fetches metadata; nil
	// uses the transport the server's requests go through (without
	// authorization), with a 30 s timeout.
	HTTPClient *http.Client
	// RefreshBefore is how long before its expiry a token is refreshed;
	// default one minute.
	RefreshBefore time.Duration
	// MaxAuthorizations bounds the authorizations (step-ups included) one
	// request may cause; default 3.
	MaxAuthorizations int
	// FlowTimeout bounds one refresh or authorization, the user's part
	// included; default 5 minutes.
	FlowTimeout time.Duration
	// Logger receives what the client does (never a token); nil
	// discards.
	Logger *slog.Logger
}

// CrossApp is the configuration of enterprise-managed authorization
// (GrantCrossApp).
type CrossApp struct {
	// IDPTokenEndpoint is the identity provider's token endpoint, where
	// the ID token is exchanged (RFC 8693).
	IDPTokenEndpoint string
	// IDPClientID and IDPClientSecret identify this client at the
	// identity provider (client_secret_basic when a secret is set).
	IDPClientID     string
	IDPClientSecret string
	// IDToken returns the ID token the identity provider issued to the
	// identity when it signed in to the application.
	IDToken func(ctx context.Context, identity string) (string, error)
}

// Client authorizes the HTTP requests of MCP servers (ServerConfig.Auth).
// One Client may serve many servers, connections and identities: it is
// safe for concurrent use, and its copies made by As share everything
// (metadata, registrations, tokens, refreshes in flight). Make one with
// New: the state its copies share is made there, so a zero Client is not
// usable.
type Client struct {
	cfg      Config
	identity string
	sh       *shared
}

// String names the client and the identity it acts for, never its
// secret or key: a Client printed by mistake (%v, a log) leaks nothing.
func (c *Client) String() string {
	return "oauth.Client{" + c.cfg.ClientID + " as " + strconv.Quote(c.identity) + "}"
}

// GoString hides the configuration's secrets from %#v.
func (c *Client) GoString() string { return c.String() }

// LogValue hides the configuration's secrets from log/slog.
func (c *Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("client_id", c.cfg.ClientID), slog.String("identity", c.identity))
}

// String hides ClientSecret, PrivateKey, the cross-app secret and the
// assertion source from %v.
func (c Config) String() string { return "oauth.Config{" + c.ClientID + " [redacted]}" }

// GoString hides the secrets from %#v.
func (c Config) GoString() string { return c.String() }

// LogValue hides the secrets from log/slog.
func (c Config) LogValue() slog.Value { return slog.GroupValue(slog.String("client_id", c.ClientID)) }

// shared is what every copy of a Client shares.
type shared struct {
	store   containedStore // Config.Store, each call contained (callback.go)
	panics  atomic.Int64   // callbacks that panicked
	flight  singleflight.Group
	servers sync.Map   // canonical server URL -> *serverState
	clients sync.Map   // issuer+profile -> *ClientInfo
	tokens  sync.Map   // Key -> *Token: the current token, as last seen
	pending pendingSet // authorization requests waiting for Complete (pending.go)
	log     *slog.Logger

	// lookup and dial replace, in tests, the resolver and the dial of
	// the guarded fetches (fetch_guard.go); nil: the system's.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   dialFunc

	dpopKeys   sync.Map // issuer, client, identity -> *dpopKey
	dpopParsed sync.Map // Token.DPoPKey -> *dpopKey
	nonces     sync.Map // origin -> the server's latest DPoP nonce
	assertions sync.Map // identity -> heldAssertion

	pinMu sync.Mutex
	pin   string // the issuer the pre-registered client is pinned to (issuer_binding.go)
}

// New returns a Client.
func New(cfg Config) *Client {
	if cfg.Grant == "" {
		cfg.Grant = GrantAuthorizationCode
	}
	if cfg.RedirectURL == "" {
		cfg.RedirectURL = DefaultRedirectURL
	}
	if cfg.ClientName == "" {
		cfg.ClientName = DefaultClientName
	}
	if cfg.ApplicationType == "" {
		cfg.ApplicationType = "native"
	}
	if cfg.RefreshBefore <= 0 {
		cfg.RefreshBefore = DefaultRefreshBefore
	}
	if cfg.MaxAuthorizations <= 0 {
		cfg.MaxAuthorizations = DefaultMaxAuthorizations
	}
	if cfg.FlowTimeout <= 0 {
		cfg.FlowTimeout = DefaultFlowTimeout
	}
	sh := &shared{log: cfg.Logger}
	if sh.log == nil {
		sh.log = slog.New(slog.DiscardHandler)
	}
	store := cfg.Store
	if store == nil {
		store = new(MemoryStore)
	}
	sh.store = containedStore{s: store, sh: sh}
	return &Client{cfg: cfg, identity: cfg.Identity, sh: sh}
}

// As returns a copy of c that acts for identity when a request's context
// names no one: one connection per identity. The copy shares c's state.
func (c *Client) As(identity string) *Client {
	d := *c
	d.identity = identity
	return &d
}

type identityKey struct{}

// WithIdentity returns a context whose requests act for identity: its
// tokens are used, and obtained, for identity alone. It overrides the
// Client's own identity (Config.Identity, As).
func WithIdentity(ctx context.Context, identity string) context.Context {
	return context.WithValue(ctx, identityKey{}, identity)
}

// IdentityFrom returns the identity ctx acts for, if WithIdentity set
// one.
func IdentityFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(identityKey{}).(string)
	return id, ok
}

func (c *Client) identityOf(ctx context.Context) string {
	if id, ok := IdentityFrom(ctx); ok {
		return id
	}
	return c.identity
}

// serverState is what c knows of one MCP server.
type serverState struct {
	url   string
	shown string // url with its credentials masked (redact.URL): what logs show
	su    *url.URL
	hc    *http.Client

	// peer is the address the latest connection to the server reached
	// (fetch_guard.go).
	peer atomic.Pointer[netip.AddrPort]

	mu   sync.Mutex
	disc *discovery // nil until a 401 made discovery run
}

func (c *Client) server(serverURL string, base http.RoundTripper) (*serverState, error) {
	su, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	key := canonicalResource(su)
	if v, ok := c.sh.servers.Load(key); ok {
		return v.(*serverState), nil
	}
	st := &serverState{url: serverURL, shown: redact.URL(serverURL), su: su}
	// What the server steers goes through the guards of fetch_guard.go:
	// its redirects are checked as its URLs are, and its connections
	// may not reach an internal address unless the server is on one.
	policy := redirectPolicy(isLoopback(su.Hostname()))
	st.hc = &http.Client{Transport: newFetchTransport(st, c.sh, base, false), Timeout: 30 * time.Second, CheckRedirect: policy}
	if c.cfg.HTTPClient != nil {
		// The caller's client keeps its own transport, timeout and
		// policy, behind the guards: a token request is never
		// redirected.
		own := *c.cfg.HTTPClient
		t := own.Transport
		if t == nil {
			t = http.DefaultTransport
		}
		own.Transport = newFetchTransport(st, c.sh, t, true)
		own.CheckRedirect = guardRedirects(policy, c.cfg.HTTPClient.CheckRedirect)
		st.hc = &own
	}
	v, _ := c.sh.servers.LoadOrStore(key, st)
	return v.(*serverState), nil
}

// guardRedirects is policy in front of a client's own.
func guardRedirects(policy, own func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if err := policy(req, via); err != nil || own == nil {
			return err
		}
		return own(req, via)
	}
}

func (st *serverState) discovered() *discovery {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.disc
}

// discovery returns what discovery found, running it when it has not
// run, when the challenge names resource metadata other than what it
// used, or when again is set: a token the server took before is refused
// and could not be refreshed, and the server may have moved to another
// authorization server with the same metadata URL. A rediscovery that
// fails for want of an answer keeps what was known; one that finds
// metadata to refuse (ErrResourceMismatch, ErrIssuerMismatch) fails.
func (c *Client) discovery(ctx context.Context, st *serverState, ch Challenge, again bool) (*discovery, error) {
	d := st.discovered()
	if d != nil && !again && (ch.ResourceMetadata == "" || ch.ResourceMetadata == d.prmURL) {
		return d, nil
	}
	v, err := c.do(ctx, "discover\x00"+st.url+"\x00"+ch.ResourceMetadata, func(ctx context.Context) (any, error) {
		nd, err := c.discover(ctx, st.hc, st.url, ch)
		if err != nil {
			return nil, err
		}
		st.mu.Lock()
		old := st.disc
		st.disc = nd
		st.mu.Unlock()
		if old != nil && old.issuer != nd.issuer {
			c.migrated(ctx, st, old, nd)
		}
		return nd, nil
	})
	if err != nil {
		if again && d != nil && !errors.Is(err, ErrResourceMismatch) && !errors.Is(err, ErrIssuerMismatch) {
			c.sh.log.Debug("oauth: rediscovery failed; keeping what was known", "server", st.shown, "err", err)
			return d, nil
		}
		return nil, err
	}
	d = v.(*discovery)
	c.sh.log.Debug("oauth: discovered", "server", st.shown, "issuer", d.issuer, "resource", redact.URL(d.resource), "legacy", d.prm == nil)
	return d, nil
}

// do runs fn once for every caller asking with the same key at the same
// time: the refresh of one token, the authorization of one identity. fn
// runs detached from the first caller's cancellation (the others still
// wait for it), bounded by FlowTimeout; each caller stops waiting when its
// own context ends.
func (c *Client) do(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	ch := c.sh.flight.DoChan(key, func() (v any, err error) {
		// singleflight re-raises a panic on a goroutine of its own,
		// where nothing can recover it: whatever callback.go's
		// containment of each callback did not catch ends here.
		defer func() {
			if r := recover(); r != nil {
				kind, _, _ := strings.Cut(key, "\x00")
				v, err = nil, recovered(c.sh, "a callback during "+kind, r)
			}
		}()
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.FlowTimeout)
		defer cancel()
		return fn(fctx)
	})
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
