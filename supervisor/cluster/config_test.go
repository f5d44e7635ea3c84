package cluster

import (
	"errors"
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
