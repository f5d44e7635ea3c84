package oauth

import (
	"context"
	"strconv"
)

// Pre-registered credentials (a ClientSecret or a PrivateKey with a
// ClientID) were issued by one authorization server, and are presented
// to that one alone
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#authorization-server-binding):
// the MCP server names the authorization server, and a server that names
// another one (a compromised server, or one that moved, SEP-2352) must
// not receive a secret meant for the first. Config.Issuer, when set, is
// the binding. When it is not, the first issuer the client is used with
// is pinned in the Store, under bindingKey, and any other is refused
// with an *IssuerMismatchError naming both; a process sharing the Store
// sees the same pin. Set Issuer to move the client on purpose.

// bindingResource marks the Store entry that holds a pin: its Key has an
// empty Issuer, which no token's Key has (discovery always finds one).
const bindingResource = "urn:mcpactor:oauth:issuer-binding"

// bindingType is the TokenType of a pin; its AccessToken is the issuer.
const bindingType = "issuer-binding"

// bindingKey is the Store key of the pin of a pre-registered client.
func bindingKey(clientID string) Key {
	return Key{ClientID: clientID, Resource: bindingResource}
}

// hasCredentials reports whether the configuration holds pre-registered
// credentials: a client ID with a secret or a key. A client ID alone is
// public (the server sees nothing it could use elsewhere).
func (c *Client) hasCredentials() bool {
	return c.cfg.ClientID != "" && (c.cfg.ClientSecret != "" || c.cfg.PrivateKey != nil)
}

// boundIssuer returns, without a Store read, the issuer the
// pre-registered client is bound to: Config.Issuer, else the pin this
// process has seen; "" when there is no binding yet, or nothing to bind.
func (c *Client) boundIssuer() string {
	if c.cfg.Issuer != "" || !c.hasCredentials() {
		return c.cfg.Issuer
	}
	c.sh.pinMu.Lock()
	defer c.sh.pinMu.Unlock()
	return c.sh.pin
}

// loadBinding returns the bound issuer, reading the pin from the Store
// when this process has not seen it yet.
func (c *Client) loadBinding(ctx context.Context) (string, error) {
	if iss := c.boundIssuer(); iss != "" || !c.hasCredentials() {
		return iss, nil
	}
	t, err := c.sh.store.Load(ctx, bindingKey(c.cfg.ClientID))
	if err != nil || t == nil || t.TokenType != bindingType {
		return "", err
	}
	c.remember(t.AccessToken)
	return t.AccessToken, nil
}

func (c *Client) remember(issuer string) {
	c.sh.pinMu.Lock()
	defer c.sh.pinMu.Unlock()
	c.sh.pin = issuer
}

// bindIssuer lets the pre-registered client go to issuer, or refuses it
// with an *IssuerMismatchError. The first issuer of a client with
// credentials and no Config.Issuer is pinned, compare-and-swap, so that
// of two processes (or two servers) racing for the first use, one pin
// wins and the other is measured against it.
func (c *Client) bindIssuer(ctx context.Context, issuer string) error {
	refuse := func(want string) error {
		return &IssuerMismatchError{Where: "pre-registered client " + strconv.Quote(c.cfg.ClientID), Want: want, Got: issuer}
	}
	if c.cfg.Issuer != "" || !c.hasCredentials() {
		if c.cfg.Issuer != "" && c.cfg.Issuer != issuer {
			return refuse(c.cfg.Issuer)
		}
		return nil
	}
	for range 3 {
		pinned, err := c.loadBinding(ctx)
		if err != nil {
			return err
		}
		if pinned != "" {
			if pinned != issuer {
				return refuse(pinned)
			}
			return nil
		}
		ok, err := c.sh.store.CompareAndSwap(ctx, bindingKey(c.cfg.ClientID), nil, &Token{AccessToken: issuer, TokenType: bindingType})
		if err != nil {
			return err
		}
		if ok {
			c.remember(issuer)
			c.sh.log.Info("oauth: pre-registered client bound to its first authorization server", "client_id", c.cfg.ClientID, "issuer", issuer)
			return nil
		}
		// Another process pinned first: its pin is read next time round.
	}
	return refuse("the issuer pinned in the token store")
}
