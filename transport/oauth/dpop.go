package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
)

// DPoP, Demonstrating Proof of Possession (RFC 9449; for MCP, SEP-1932,
// https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1932):
// a token bound to a key the client holds, so that a token that leaks is
// useless without the key. Every request that carries the token, and
// every token request that obtains one, carries a proof: a JWT signed
// with the key, naming the request's method and URL (and, on a resource
// request, the token's hash), fresh each time. A server may demand a
// nonce of its own in the proofs (use_dpop_nonce): the request is sent
// once more with it, and the nonce is kept for the next ones.

// DPoP modes (Config.DPoP).
const (
	// DPoPAuto (the default) binds tokens when the authorization server's
	// metadata lists ES256 in dpop_signing_alg_values_supported (RFC 9449
	// section 5.1), and sends bearer tokens otherwise.
	DPoPAuto = ""
	// DPoPNever sends no proofs: bearer tokens only.
	DPoPNever = "never"
	// DPoPAlways sends proofs to every authorization server, listed or
	// not; one that does not take them answers with a bearer token,
	// which is then used as one (RFC 9449 section 5).
	DPoPAlways = "always"
)

// dpopAlg is the algorithm of the proofs: ES256 over P-256, which RFC
// 9449 section 5.1's servers are expected to take and which the standard
// library makes in constant time.
const dpopAlg = "ES256"

// dpopKey is the key a token is bound to.
type dpopKey struct {
	priv *ecdsa.PrivateKey
	jwk  map[string]any // the public key (RFC 7517), the proofs' jwk header
	enc  string         // PKCS #8, base64: Token.DPoPKey
}

func newDPoPKey() (*dpopKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return makeDPoPKey(priv)
}

func makeDPoPKey(priv *ecdsa.PrivateKey) (*dpopKey, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pub, err := priv.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	b := pub.Bytes() // 0x04 || X || Y, each 32 bytes
	b64 := base64.RawURLEncoding.EncodeToString
	return &dpopKey{
		priv: priv,
		jwk:  map[string]any{"kty": "EC", "crv": "P-256", "x": b64(b[1:33]), "y": b64(b[33:65])},
		enc:  base64.StdEncoding.EncodeToString(der),
	}, nil
}

// parseDPoPKey reads Token.DPoPKey. Its error says what is wrong, never
// what the key is.
func parseDPoPKey(enc string) (*dpopKey, error) {
	der, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, errors.New("oauth: the token's DPoP key is not base64")
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, errors.New("oauth: the token's DPoP key is not a PKCS #8 key")
	}
	priv, ok := k.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("oauth: the token's DPoP key is not a P-256 key")
	}
	return makeDPoPKey(priv)
}

// proof is a DPoP proof for a request (RFC 9449 section 4.2): htu is the
// URL without query and fragment; ath, on a request carrying an access
// token, is the base64url SHA-256 of the token (section 4.2 and 7); nonce
// is the server's, when it gave one (sections 8 and 9). A fresh jti each
// time: a server may refuse a proof it has seen.
func (k *dpopKey) proof(method string, u *url.URL, accessToken, nonce string) (string, error) {
	claims := jwt.MapClaims{
		"jti": rand.Text(),
		"htm": method,
		"htu": htu(u),
		"iat": time.Now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	s, err := signJWT(jwt.SigningMethodES256, k.priv, map[string]any{"typ": "dpop+jwt", "jwk": k.jwk}, claims)
	if err != nil {
		return "", fmt.Errorf("oauth: signing a DPoP proof: %w", err)
	}
	return s, nil
}

// htu is a proof's target URI: scheme, authority and path.
func htu(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + p
}

// useDPoP reports whether token requests to d's authorization server
// carry proofs (Config.DPoP).
func (c *Client) useDPoP(d *discovery) bool {
	switch c.cfg.DPoP {
	case DPoPNever:
		return false
	case DPoPAlways:
		return true
	}
	return slices.Contains(d.meta.DPoPSigningAlgValuesSupported, dpopAlg)
}

// proofKey returns the key a token request for key proves possession
// of, nil when it sends no proof: the key old is bound to (a refresh
// keeps the binding, RFC 9449 section 5), else the key of the issuer,
// client and identity, made the first time it is needed.
func (c *Client) proofKey(d *discovery, key Key, old *Token) (*dpopKey, error) {
	if old != nil && old.DPoPKey != "" {
		return c.keyOf(old.DPoPKey)
	}
	if !c.useDPoP(d) {
		return nil, nil
	}
	id := key.Issuer + "\x00" + key.ClientID + "\x00" + key.Identity
	if v, ok := c.sh.dpopKeys.Load(id); ok {
		return v.(*dpopKey), nil
	}
	k, err := newDPoPKey()
	if err != nil {
		return nil, err
	}
	v, _ := c.sh.dpopKeys.LoadOrStore(id, k)
	return v.(*dpopKey), nil
}

// keyOf returns the key of a Token.DPoPKey, parsed once.
func (c *Client) keyOf(enc string) (*dpopKey, error) {
	if v, ok := c.sh.dpopParsed.Load(enc); ok {
		return v.(*dpopKey), nil
	}
	k, err := parseDPoPKey(enc)
	if err != nil {
		return nil, err
	}
	c.sh.dpopParsed.Store(enc, k)
	return k, nil
}

// bound returns the key t is bound to when t is a DPoP token (nil for a
// bearer token), and false for a DPoP token whose key is lost or
// unreadable: such a token cannot be used.
func (c *Client) bound(t *Token) (*dpopKey, bool) {
	if !strings.EqualFold(t.TokenType, "DPoP") {
		return nil, true
	}
	if t.DPoPKey == "" {
		return nil, false
	}
	k, err := c.keyOf(t.DPoPKey)
	if err != nil {
		c.sh.log.Warn("oauth: DPoP token unusable", "err", err)
		return nil, false
	}
	return k, true
}

// nonceOf returns the latest nonce the server at u gave (RFC 9449
// sections 8 and 9: a nonce belongs to the server that issued it).
func (c *Client) nonceOf(u *url.URL) string {
	if v, ok := c.sh.nonces.Load(originOf(u)); ok {
		return v.(string)
	}
	return ""
}

// noteNonce keeps the DPoP-Nonce of an answer from u: a server may give
// a new one in any answer, not only in a challenge.
func (c *Client) noteNonce(u *url.URL, h http.Header) {
	if n := h.Get("DPoP-Nonce"); n != "" {
		c.sh.nonces.Store(originOf(u), n)
	}
}

func originOf(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port(u)
}

// proofTransport adds a proof to each request of a token request (there
// is one: redirects are not followed) and keeps the server's nonce.
type proofTransport struct {
	c    *Client
	key  *dpopKey
	base http.RoundTripper
}

func (p proofTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	proof, err := p.key.proof(req.Method, req.URL, "", p.c.nonceOf(req.URL))
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Header.Set("DPoP", proof)
	resp, err := p.base.RoundTrip(r)
	if err == nil {
		p.c.noteNonce(req.URL, resp.Header)
	}
	return resp, err
}

// withProofs returns a copy of hc whose requests carry proofs of key.
func (c *Client) withProofs(hc *http.Client, key *dpopKey) *http.Client {
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	p := *hc
	p.Transport = proofTransport{c: c, key: key, base: base}
	return &p
}

// asNonceChallenge reports whether a token request failed for want of
// the authorization server's nonce, which its answer carries (RFC 9449
// section 8): the request is worth sending again, once.
func asNonceChallenge(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == "use_dpop_nonce" && re.Response != nil && re.Response.Header.Get("DPoP-Nonce") != ""
}

// rsNonceChallenge reports whether a resource server's 401 asks for its
// nonce, which it carries (RFC 9449 section 9).
func rsNonceChallenge(resp *http.Response) bool {
	ch, ok := parseChallenge(resp.Header, "DPoP")
	return ok && ch.Error == "use_dpop_nonce" && resp.Header.Get("DPoP-Nonce") != ""
}
