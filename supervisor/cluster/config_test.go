package cluster

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
)

func testConfigServers() map[string]mcpactor.ServerConfig {
	return map[string]mcpactor.ServerConfig{"files": {Command: "true"}}
}

func TestConfigNormalize(t *testing.T) {
	ok := Config{Etcd: EtcdConfig{Endpoints: []string{"http://127.0.0.1:2379"}}, Servers: testConfigServers()}
	got, err := ok.normalize()
	if err != nil {
		t.Fatal(err)
	}
	if got.LeaseTTL != DefaultLeaseTTL || got.Etcd.Prefix != DefaultPrefix || got.Name == "" || got.BindAddress == "" {
		t.Errorf("defaults not filled: %+v", got)
	}
	bad := []Config{
		{Servers: testConfigServers()},
		{Etcd: ok.Etcd},
		{Etcd: ok.Etcd, Servers: map[string]mcpactor.ServerConfig{"a/b": {}}},
		{Etcd: ok.Etcd, Servers: testConfigServers(), LeaseTTL: 100 * time.Millisecond},
		{Etcd: ok.Etcd, Servers: testConfigServers(), Name: "x/y"},
	}
	for _, c := range bad {
		var ce *ConfigError
		if _, err := c.normalize(); !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want *ConfigError", c, err)
		}
	}
}

// TestConfigRefusesAnUnauthenticatedNetworkMember: a member listening
// beyond loopback must have a secret or mutual TLS, or say explicitly
// that its network is trusted.
func TestConfigRefusesAnUnauthenticatedNetworkMember(t *testing.T) {
	base := Config{Etcd: EtcdConfig{Endpoints: []string{"http://127.0.0.1:2379"}}, Servers: testConfigServers()}
	mtls := &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert}
	cases := []struct {
		name   string
		edit   func(*Config)
		refuse bool
	}{
		{"default loopback", func(*Config) {}, false},
		{"localhost", func(c *Config) { c.BindAddress = "localhost:7000" }, false},
		{"IPv6 loopback", func(c *Config) { c.BindAddress = "[::1]:7000" }, false},
		{"all interfaces", func(c *Config) { c.BindAddress = "0.0.0.0:7000" }, true},
		{"empty host", func(c *Config) { c.BindAddress = ":7000" }, true},
		{"IPv6 any", func(c *Config) { c.BindAddress = "[::]:7000" }, true},
		{"a LAN address", func(c *Config) { c.BindAddress = "10.1.2.3:7000" }, true},
		{"a host name", func(c *Config) { c.BindAddress = "member-1.internal:7000" }, true},
		{"TLS without client certificates", func(c *Config) {
			c.BindAddress, c.ServerTLS = "0.0.0.0:7000", &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven}
		}, true},
		{"secret", func(c *Config) { c.BindAddress, c.Secret = "0.0.0.0:7000", "s3cret" }, false},
		{"mutual TLS", func(c *Config) { c.BindAddress, c.ServerTLS = "0.0.0.0:7000", mtls }, false},
		{"trusted network", func(c *Config) { c.BindAddress, c.InsecureAllowUnauthenticated = "0.0.0.0:7000", true }, false},
	}
	for _, tc := range cases {
		c := base
		tc.edit(&c)
		_, err := c.normalize()
		var ce *ConfigError
		switch {
		case tc.refuse && (!errors.As(err, &ce) || ce.Field != "BindAddress"):
			t.Errorf("%s: %v, want a *ConfigError for BindAddress", tc.name, err)
		case !tc.refuse && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	c := base
	c.BindAddress = "0.0.0.0:0"
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := Start(ctx, c); !errors.As(err, new(*ConfigError)) {
		t.Errorf("Start on 0.0.0.0 without authentication = %v, want *ConfigError", err)
	}
}

// TestConfigMasksCredentials: no way of printing a Config (or its
// EtcdConfig) shows the cluster secret, the etcd password, or a password
// in an etcd endpoint's URL.
func TestConfigMasksCredentials(t *testing.T) {
	const secret, password, urlPassword = "cluster-s3cret-value", "etcd-pa55word-value", "url-pa55word-value"
	c := Config{
		Name:    "m1",
		Etcd:    EtcdConfig{Endpoints: []string{"https://root:" + urlPassword + "@etcd-1:2379"}, Username: "agents", Password: password},
		Servers: map[string]mcpactor.ServerConfig{"files": {Command: "files-server", Env: map[string]string{"API_KEY": "server-key-value"}}},
		Secret:  secret,
	}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "cfg", c, "etcd", c.Etcd)
	outputs := map[string]string{
		"%v": fmt.Sprintf("%v", c), "%+v": fmt.Sprintf("%+v", c), "%#v": fmt.Sprintf("%#v", c), "String": c.String(),
		"etcd %+v": fmt.Sprintf("%+v", c.Etcd), "etcd %#v": fmt.Sprintf("%#v", c.Etcd),
		"pointer %+v": fmt.Sprintf("%+v", &c), "in a struct": fmt.Sprintf("%+v", struct{ C Config }{c}),
		"slog": logged.String(),
	}
	for how, out := range outputs {
		for _, s := range []string{secret, password, urlPassword, "server-key-value"} {
			if strings.Contains(out, s) {
				t.Errorf("%s shows a credential: %s", how, out)
			}
		}
	}
	if out := outputs["%+v"]; !strings.Contains(out, "Secret: "+masked) || !strings.Contains(out, "Password: "+masked) || !strings.Contains(out, "etcd-1:2379") {
		t.Errorf("%%+v does not say what is set: %s", out)
	}
}
