package oauth

import (
	"context"
	"strings"
	"sync"
)

// A server may move to another authorization server (SEP-2352,
// https://github.com/modelcontextprotocol/modelcontextprotocol/pull/2352):
// its protected resource metadata names a new issuer, and it refuses the
// tokens of the old one (a 401, often invalid_token). Credentials are
// bound to the authorization server that issued them
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#authorization-server-binding):
// nothing of the old one is presented to the new one. Discovery runs
// again on such a 401 (Client.discovery); the client then registers with
// the new server (or uses its metadata-document identity there, as for
// any server) and authorizes anew. A pre-registered client is never
// carried over: its credentials are bound to the old issuer
// (issuer_binding.go), and the request fails with an
// *IssuerMismatchError naming both until the user sets Config.Issuer.

// migrated forgets what belonged to the old authorization server of st:
// the tokens this process holds for the resource (every identity's, in
// memory and in the Store), and, when no other server this Client knows
// still uses the old issuer, its registration and DPoP keys in memory. A
// ClientStore keeps the registration (it has no delete, and it is keyed
// by issuer: it is never sent to another server); a Store's tokens of
// identities this process never loaded stay there, unused, since their
// key names the old issuer.
func (c *Client) migrated(ctx context.Context, st *serverState, old, nd *discovery) {
	c.sh.log.Info("oauth: the server moved to another authorization server", "server", st.shown, "from", old.issuer, "to", nd.issuer)
	c.sh.tokens.Range(func(k, v any) bool {
		key := k.(Key)
		if key.Issuer != old.issuer || key.Resource != old.resource {
			return true
		}
		c.sh.tokens.CompareAndDelete(k, v)
		if _, err := c.sh.store.CompareAndSwap(ctx, key, v.(*Token), nil); err != nil {
			c.sh.log.Warn("oauth: token store", "err", err)
		}
		return true
	})
	inUse := false
	c.sh.servers.Range(func(_, v any) bool {
		if o := v.(*serverState); o != st {
			if d := o.discovered(); d != nil && d.issuer == old.issuer {
				inUse = true
			}
		}
		return !inUse
	})
	if inUse {
		return
	}
	prefix := old.issuer + "\x00"
	for _, m := range []*sync.Map{&c.sh.clients, &c.sh.dpopKeys} {
		m.Range(func(k, _ any) bool {
			if strings.HasPrefix(k.(string), prefix) {
				m.Delete(k)
			}
			return true
		})
	}
}
