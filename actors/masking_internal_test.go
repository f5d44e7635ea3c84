package actors

import (
	"testing"

	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/transport"
)

// A host a ${VAR} supplied is a part of the URL like any other: the
// server.address spans record is masked too, and the peer carries the
// server's Masker for the rest of what spans record.
func TestBasePeerMasksExpandedHost(t *testing.T) {
	const host = "tenant-PLANTED-peer.example.com"
	redact.Expanded(host)
	cfg := Spec{HTTP: transport.HTTPConfig{URL: "https://" + host + ":8443/mcp"}}
	mask := maskerOf("remote", &cfg)
	p := basePeer("remote", &cfg, mask)
	if p.ServerAddress != redact.Mask || p.ServerPort != 8443 || p.Mask != mask {
		t.Fatalf("basePeer = %+v", p)
	}
	plain := Spec{HTTP: transport.HTTPConfig{URL: "https://mcp.example.com/mcp"}}
	if p := basePeer("plain", &plain, maskerOf("plain", &plain)); p.ServerAddress != "mcp.example.com" {
		t.Fatalf("basePeer masked an ordinary host: %+v", p)
	}
}
