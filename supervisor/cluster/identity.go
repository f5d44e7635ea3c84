package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
)

// Identity names one server session of the cluster: a server and, for
// per-user sessions (a user's OAuth'd connection, a browser, a database
// transaction), the tenant it belongs to. Each identity has its own session
// and at most one owner: one tenant's session never serves another.
type Identity struct {
	Server string
	// Tenant is empty for the session shared by every caller.
	Tenant string
}

func (id Identity) String() string {
	if id.Tenant == "" {
		return id.Server
	}
	return id.Server + "@" + id.Tenant
}

// key is the identity as one etcd key segment: both parts escaped so that
// no tenant can forge another's key with a separator of its own.
func (id Identity) key() string {
	return url.PathEscape(id.Server) + "/" + url.PathEscape(id.Tenant)
}

// parseIdentityKey inverts key.
func parseIdentityKey(s string) (Identity, bool) {
	srv, tenant, ok := strings.Cut(s, "/")
	if !ok {
		return Identity{}, false
	}
	a, err1 := url.PathUnescape(srv)
	b, err2 := url.PathUnescape(tenant)
	if err1 != nil || err2 != nil || a == "" {
		return Identity{}, false
	}
	return Identity{Server: a, Tenant: b}, true
}

// randomName names a member that was given no name.
func randomName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "member-" + hex.EncodeToString(b[:])
}
