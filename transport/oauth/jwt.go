package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The client assertion of private_key_jwt (RFC 7523 sections 2.2 and 3;
// OpenID Connect Core section 9): a JWT the client signs, naming itself
// as issuer and subject and the authorization server's issuer as
// audience (draft-ietf-oauth-rfc7523bis), short-lived and unique (jti).

const (
	assertionType     = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	assertionLifetime = 5 * time.Minute
)

func (c *Client) clientAssertion(clientID, audience string) (string, error) {
	key := c.cfg.PrivateKey
	if key == nil {
		return "", errors.New("oauth: private_key_jwt needs Config.PrivateKey")
	}
	alg := c.cfg.SigningAlgorithm
	if alg == "" {
		alg = defaultAlgorithm(key)
	}
	method := jwt.GetSigningMethod(alg)
	if method == nil {
		return "", fmt.Errorf("oauth: unknown signing algorithm %q", alg)
	}
	now := time.Now()
	var header map[string]any
	if c.cfg.KeyID != "" {
		header = map[string]any{"kid": c.cfg.KeyID}
	}
	s, err := signJWT(method, key, header, jwt.RegisteredClaims{
		Issuer:    clientID,
		Subject:   clientID,
		Audience:  jwt.ClaimStrings{audience},
		ID:        rand.Text(),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(assertionLifetime)),
	})
	if err != nil {
		return "", fmt.Errorf("oauth: signing the client assertion: %w", err)
	}
	return s, nil
}

// signJWT is the package's one JWS signer (compact serialization): the
// client assertion of private_key_jwt and the DPoP proof (dpop.go) both
// go through it. header holds the parameters beyond alg and typ (kid,
// jwk, or typ itself to replace "JWT").
func signJWT(method jwt.SigningMethod, key crypto.Signer, header map[string]any, claims jwt.Claims) (string, error) {
	t := jwt.NewWithClaims(method, claims)
	for k, v := range header {
		t.Header[k] = v
	}
	return t.SignedString(signingKey(key))
}

// unverifiedExpiry reads the exp claim of a JWT without checking its
// signature: a hint of when a token or an assertion stops working, for
// a client that holds no key to check it with (and need not: the server
// it goes to does). Zero when s is not a JWT or has no exp.
func unverifiedExpiry(s string) time.Time {
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(s, &claims); err != nil || claims.ExpiresAt == nil {
		return time.Time{}
	}
	return claims.ExpiresAt.Time
}

// defaultAlgorithm is the usual JWS algorithm of a key: ES256/384/512 by
// curve, RS256, EdDSA.
func defaultAlgorithm(key crypto.Signer) string {
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P384():
			return "ES384"
		case elliptic.P521():
			return "ES512"
		}
		return "ES256"
	case ed25519.PublicKey:
		return "EdDSA"
	}
	return "RS256"
}

// signingKey is the form golang-jwt signs with: the concrete key for
// ECDSA and RSA, the signer for Ed25519.
func signingKey(key crypto.Signer) any {
	switch k := key.(type) {
	case *ecdsa.PrivateKey, *rsa.PrivateKey:
		return k
	case ed25519.PrivateKey:
		return k
	case *ed25519.PrivateKey:
		return *k
	}
	return key
}

// ParsePrivateKey reads a PEM private key for private_key_jwt: PKCS #8
// (any type), SEC 1 (EC) or PKCS #1 (RSA).
func ParsePrivateKey(pemData []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("oauth: no PEM block in the private key")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: private key: %w", err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("oauth: private key of type %T cannot sign", key)
	}
	return s, nil
}
