package config

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestEntryPrintsNoSecret checks that a configured server, printed with
// any verb or logged (as an approval prompt might show it), shows no
// credential of its auth object or its configuration.
func TestEntryPrintsNoSecret(t *testing.T) {
	const secret = "Sx4-PLANTED-auth-77ab"
	s := &Entry{Name: "s", URL: "https://example.com/mcp?token=" + secret,
		Headers: map[string]string{"Authorization": "Bearer " + secret}, Env: map[string]string{"TOKEN": secret},
		Args: []string{"--key=" + secret}, Auth: &Auth{Type: "oauth", ClientID: "app", ClientSecret: secret}}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("approve?", "server", s, "auth", s.Auth)
	for _, out := range []string{fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", *s), fmt.Sprint(*s.Auth), logged.String()} {
		if strings.Contains(out, secret) {
			t.Errorf("printed with the secret: %s", out)
		}
	}
}
