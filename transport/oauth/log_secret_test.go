package oauth

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// TestLogsMaskServerURL: a server URL configured with a credential in its
// query and its userinfo goes through discovery, authorization, a refresh
// before expiry and a refresh after a 401; no log line carries the
// credential, and the lines still name the server.
func TestLogsMaskServerURL(t *testing.T) {
	const planted = "s3cr3t-OAUTH-PLANTED-71b"
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	var logs harness.Log
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := New(Config{UserStep: login(http.DefaultClient), Identity: "dave", Logger: log})
	server := strings.Replace(rs.url(), "://", "://user:"+planted+"@", 1) + "?api_key=" + planted
	hc := &http.Client{Transport: c.RoundTripper(server, http.DefaultTransport), Timeout: 30 * time.Second}
	target := rs.url() + "?api_key=" + planted
	if status, body, err := post(t, hc, target, context.Background()); status != 200 || body != "dave" {
		t.Fatalf("first request: %d %q %v", status, body, err)
	}
	expireAll(t, c) // a refresh before expiry
	if status, _, err := post(t, hc, target, context.Background()); status != 200 {
		t.Fatalf("after expiry: %d %v", status, err)
	}
	as.revokeAll() // a refresh after the server's 401
	if status, _, err := post(t, hc, target, context.Background()); status != 200 {
		t.Fatalf("after revocation: %d %v", status, err)
	}
	out := logs.String()
	if strings.Contains(out, planted) {
		t.Fatalf("a log line carries the planted secret:\n%s", out)
	}
	for _, want := range []string{"oauth: discovered", "oauth: authorized", "oauth: token refreshed", "api_key=REDACTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
}

// TestAuthorizationRequiredMasksServer: the error that asks for the user
// names the server without its credentials.
func TestAuthorizationRequiredMasksServer(t *testing.T) {
	const planted = "s3cr3t-OAUTH-PLANTED-71b"
	e := &AuthorizationRequiredError{Server: "https://u:" + planted + "@example.com/mcp?token=" + planted, Identity: "x"}
	if s := e.Error(); strings.Contains(s, planted) || !strings.Contains(s, "example.com/mcp") {
		t.Fatalf("Error() = %q", s)
	}
	d := &DiscoveryError{What: "metadata", Tried: []string{"https://example.com/.well-known/x?api_key=" + planted}}
	if s := d.Error(); strings.Contains(s, planted) {
		t.Fatalf("Error() = %q", s)
	}
}
