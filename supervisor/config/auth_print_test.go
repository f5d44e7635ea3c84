package config

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/transport"
)

// TestServerPrintsNoSecret checks that a configured server, printed with
// any verb or logged (as an approval prompt might show it), shows no
// credential of its auth object or its configuration.
func TestServerPrintsNoSecret(t *testing.T) {
	const secret = "Sx4-PLANTED-auth-77ab"
	s := &Server{Name: "s", Spec: actors.Spec{HTTP: transport.HTTPConfig{URL: "https://example.com/mcp?token=" + secret}},
		Auth: &Auth{Type: "oauth", ClientID: "app", ClientSecret: secret}}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("approve?", "server", s, "auth", s.Auth)
	for _, out := range []string{fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", *s), fmt.Sprint(*s.Auth), logged.String()} {
		if strings.Contains(out, secret) {
			t.Errorf("printed with the secret: %s", out)
		}
	}
}
