package main

import (
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/supervisor/config"
)

// The approval prompt shows where a discovered server would connect, never
// a credential its URL carries.
func TestDescribeMasksURLSecrets(t *testing.T) {
	const secret = "hunter2-planted"
	s := &config.Entry{Name: "remote", URL: "https://alice:" + secret + "@mcp.example.com/mcp?api_key=" + secret}
	got := describe(s)
	if strings.Contains(got, secret) {
		t.Fatalf("describe = %q: the secret is shown", got)
	}
	if !strings.Contains(got, "mcp.example.com") {
		t.Fatalf("describe = %q: the host is gone", got)
	}
}
