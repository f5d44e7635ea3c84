package cluster

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// masked stands for a credential in a printed configuration: it says
// one is set, never what it is.
const masked = "[set]"

// String describes the configuration with its credentials masked
// (Secret, Etcd.Password, and any password in an etcd endpoint's URL),
// so that %v, %+v and %#v of a Config, or of a struct holding one, never
// print them. Servers are shown as their ServerConfig's own String
// masks them.
func (c Config) String() string {
	var b strings.Builder
	b.WriteString("cluster.Config{")
	field := func(name string, v any) { fmt.Fprintf(&b, "%s: %v, ", name, v) }
	if c.Name != "" {
		field("Name", fmt.Sprintf("%q", c.Name))
	}
	field("Etcd", c.Etcd)
	if c.LeaseTTL != 0 {
		field("LeaseTTL", c.LeaseTTL)
	}
	if c.BindAddress != "" {
		field("BindAddress", c.BindAddress)
	}
	if c.AdvertisedAddress != "" {
		field("AdvertisedAddress", c.AdvertisedAddress)
	}
	names := make([]string, 0, len(c.Servers))
	for name := range c.Servers {
		names = append(names, name)
	}
	slices.Sort(names)
	b.WriteString("Servers: {")
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", name, c.Servers[name].String())
	}
	b.WriteString("}, ")
	if c.ServerFor != nil {
		field("ServerFor", "set")
	}
	if c.Secret != "" {
		field("Secret", masked)
	}
	if c.ServerTLS != nil {
		field("ServerTLS", "set")
	}
	if c.ClientTLS != nil {
		field("ClientTLS", "set")
	}
	if c.InsecureAllowUnauthenticated {
		field("InsecureAllowUnauthenticated", true)
	}
	if c.CallOnly {
		field("CallOnly", true)
	}
	if c.CallTimeout != 0 {
		field("CallTimeout", c.CallTimeout)
	}
	if c.Supervision != (Supervision{}) {
		field("Supervision", fmt.Sprintf("%+v", c.Supervision))
	}
	return strings.TrimSuffix(b.String(), ", ") + "}"
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// LogValue is String, for slog.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String describes the etcd configuration with Password (and any
// password in an endpoint's URL) masked.
func (e EtcdConfig) String() string {
	endpoints := make([]string, len(e.Endpoints))
	for i, ep := range e.Endpoints {
		endpoints[i] = redact.URL(ep)
	}
	s := fmt.Sprintf("cluster.EtcdConfig{Endpoints: %q", endpoints)
	if e.Prefix != "" {
		s += fmt.Sprintf(", Prefix: %q", e.Prefix)
	}
	if e.TLS != nil {
		s += ", TLS: set"
	}
	if e.Username != "" {
		s += fmt.Sprintf(", Username: %q", e.Username)
	}
	if e.Password != "" {
		s += ", Password: " + masked
	}
	if e.DialTimeout != 0 {
		s += fmt.Sprintf(", DialTimeout: %v", e.DialTimeout)
	}
	return s + "}"
}

// GoString is String, for %#v.
func (e EtcdConfig) GoString() string { return e.String() }

// LogValue is String, for slog.
func (e EtcdConfig) LogValue() slog.Value { return slog.StringValue(e.String()) }
