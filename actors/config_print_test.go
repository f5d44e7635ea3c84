package actors

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/transport"
)

// TestServerConfigPrintsNoSecret checks that a configuration printed with
// any verb, or logged, shows none of its credentials, and still says which
// server it is.
func TestServerConfigPrintsNoSecret(t *testing.T) {
	const secret = "Pz7-PLANTED-print-0c1d"
	for _, cfg := range []Spec{
		{HTTP: transport.HTTPConfig{URL: "https://u:" + secret + "@example.com/mcp?api_key=" + secret, Headers: map[string]string{"Authorization": "Bearer " + secret}}},
		{Stdio: transport.StdioConfig{Command: "server", Args: []string{"--token=" + secret}, Env: map[string]string{"TOKEN": secret}}},
	} {
		var logged bytes.Buffer
		slog.New(slog.NewTextHandler(&logged, nil)).Info("cfg", "cfg", cfg)
		for _, out := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(&cfg), logged.String()} {
			if strings.Contains(out, secret) {
				t.Errorf("printed with the secret: %s", out)
			}
			if !strings.Contains(out, "example.com") && !strings.Contains(out, `server\"`) && !strings.Contains(out, `"server"`) {
				t.Errorf("printed without saying which server: %s", out)
			}
		}
	}
}

// A URL that does not parse (a password holding '/', '#' or '?', a bad
// port, a bad escape) is neither printed nor described by validation with
// any piece of its password: net/url's own text quotes the "port" a '/'
// in a password makes of its first half.
func TestUnparsableURLPrintsNoPassword(t *testing.T) {
	const first, rest = "Up3-PLANTED", "-unparsable-77"
	for _, raw := range []string{
		"https://svc:" + first + "/" + rest + "@example.com/mcp",
		"https://svc:" + first + "?" + rest + "@example.com/mcp",
		"https://svc:" + first + "%zz" + rest + "@example.com/mcp",
		"https://example.com:" + first + rest + "/mcp",
		"https://svc:1234#" + first + rest + "@example.com/mcp",
	} {
		cfg := Spec{HTTP: transport.HTTPConfig{URL: raw}}
		var logged bytes.Buffer
		slog.New(slog.NewTextHandler(&logged, nil)).Info("cfg", "cfg", cfg)
		outs := []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), logged.String()}
		if err := cfg.Validate("s"); err != nil {
			outs = append(outs, err.Error())
		}
		for _, out := range outs {
			if strings.Contains(out, first) || strings.Contains(out, rest) {
				t.Errorf("%q shown with a piece of its password: %s", raw, out)
			}
		}
	}
}
