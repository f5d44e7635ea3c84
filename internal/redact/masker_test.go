package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
)

const (
	envSecret    = "Ev6-env-secret-44d3a"
	headerSecret = "Hd1-header-secret-0c9"
	userSecret   = "Us7-user-pass-d00d"
	querySecret  = "Qy2-query-secret-7e1"
	pathKey      = "pk7Hq2xZ9mW4rT8vB3nK6yL1" // a hosted server's key in its URL's path
)

func testMasker() *Masker {
	return NewMasker(Config{
		Name:    "files",
		URL:     "https://svc:" + userSecret + "@mcp.example.com/mcp/" + pathKey + "/sse?api_key=" + querySecret + "&region=eu",
		Headers: map[string]string{"Authorization": "Bearer " + headerSecret, "Accept": "text/event-stream"},
		Env:     map[string]string{"TOKEN": envSecret, "DEBUG": "1", "NAME": "files"},
	})
}

var allSecrets = []string{envSecret, headerSecret, userSecret, querySecret, pathKey}

func leaked(s string) string {
	for _, v := range allSecrets {
		if strings.Contains(s, v) {
			return v
		}
	}
	return ""
}

func TestMaskerText(t *testing.T) {
	m := testMasker()
	in := "env " + envSecret + ", header " + headerSecret + ", pass " + userSecret + ", query " + querySecret +
		", key " + pathKey + ", escaped " + strings.ReplaceAll(userSecret, "-", "%2D") + ", server files, debug 1"
	got := m.Text(in)
	if v := leaked(got); v != "" {
		t.Fatalf("Text left %s: %s", v, got)
	}
	if !strings.Contains(got, "server files, debug 1") {
		t.Fatalf("Text masked the server's name or a short value: %s", got)
	}
	// JSON-escaped, as a server quotes a value in its error's data.
	quoted := NewMasker(Config{Env: map[string]string{"P": `pa"ss\word`}})
	data, _ := json.Marshal(map[string]string{"echo": `pa"ss\word`})
	if got := quoted.Text(string(data)); strings.Contains(got, `ss\\word`) || !json.Valid([]byte(got)) {
		t.Fatalf("Text on JSON = %s", got)
	}
}

func TestMaskerErrorKeepsTypes(t *testing.T) {
	m := testMasker()
	rpc := &callerr.RPCError{Server: "files", Method: "tools/call", Code: -32000,
		Message: "bad credentials " + headerSecret, Data: json.RawMessage(`{"env":"` + envSecret + `"}`)}
	wrapped := fmt.Errorf("call failed (%s): %w", userSecret, rpc)
	for _, err := range []error{rpc, wrapped, callerr.NewTransportClosed(&callerr.Error{Server: "files", Cause: rpc, Stderr: "fatal " + envSecret})} {
		got := m.Error(err)
		if v := leaked(got.Error()); v != "" {
			t.Errorf("Error(%T) text left %s: %s", err, v, got)
		}
		if !errors.Is(got, errkind.ErrRPC) {
			t.Errorf("Error(%T) no longer matches ErrRPC", err)
		}
		var r *callerr.RPCError
		if !errors.As(got, &r) {
			t.Fatalf("Error(%T) lost the *RPCError", err)
		}
		if v := leaked(r.Message + string(r.Data)); v != "" || r.Code != -32000 || r.Method != "tools/call" {
			t.Errorf("the *RPCError of Error(%T) = %+v (left %q)", err, r, v)
		}
		if !json.Valid(r.Data) {
			t.Errorf("masked Data is no longer JSON: %s", r.Data)
		}
	}
	if rpc.Message != "bad credentials "+headerSecret {
		t.Fatal("Error changed the caller's error in place")
	}
	clean := callerr.NewTimeout(&callerr.Error{Server: "files", Method: "ping"})
	if got := m.Error(clean); got != error(clean) {
		t.Fatal("an error with nothing to mask was replaced")
	}
	if got := m.Error(errCanceled); got != errCanceled {
		t.Fatal("a sentinel was replaced")
	}
}

var errCanceled = errors.New("context canceled")

func TestMaskerErrorOpaque(t *testing.T) {
	m := testMasker()
	// A credential only in unexported fields: the text is masked, the
	// sentinel still matches.
	err := fmt.Errorf("%w: token %s", errCanceled, envSecret)
	got := m.Error(err)
	if strings.Contains(got.Error(), envSecret) || !errors.Is(got, errCanceled) {
		t.Fatalf("Error = %v (Is %v)", got, errors.Is(got, errCanceled))
	}
}

func TestMaskerHandler(t *testing.T) {
	m := testMasker()
	var buf bytes.Buffer
	log := m.Logger(slog.New(slog.NewJSONHandler(&buf, nil))).With("url", "https://mcp.example.com/mcp/"+pathKey+"/sse")
	log.Info("echo "+envSecret, "err", &callerr.RPCError{Message: headerSecret},
		slog.Group("g", "v", querySecret), "any", struct{ S string }{userSecret}, "b", []byte(envSecret), "n", 3)
	if v := leaked(buf.String()); v != "" {
		t.Fatalf("log left %s: %s", v, buf.String())
	}
	if !strings.Contains(buf.String(), `"n":3`) {
		t.Fatalf("log lost a plain attribute: %s", buf.String())
	}
}

func TestURLPathKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://host/mcp/" + pathKey + "/sse", "https://host/mcp/REDACTED/sse"},
		{"https://host/mcp/123e4567-e89b-12d3-a456-426614174000/sse", "https://host/mcp/REDACTED/sse"},
		{"https://host/api/v1/servers/filesystem/sse", "https://host/api/v1/servers/filesystem/sse"},
		{"https://host/mcp/aaaaaaaaaaaaaaaaaaaaaaaaa1", "https://host/mcp/aaaaaaaaaaaaaaaaaaaaaaaaa1"},
		{"https://host/a-very-long-descriptive-path/x", "https://host/a-very-long-descriptive-path/x"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestURLUnparsable(t *testing.T) {
	const pass = "pa/ss-PLANTED"
	for _, tc := range []struct{ in, want string }{
		{"https://user:" + pass + "@host/mcp", "https://REDACTED"},
		{"https://user:12#34@host/mcp", "https://REDACTED"},
		{"https://user:12?34@host/mcp", "https://REDACTED"},
		{"https://host/mcp?email=a@b.example", "https://host/mcp?email=a@b.example"},
		{"https://host:99999x/mcp?token=abc", "https://host/REDACTED"},
		{"https://host/mcp%zz?token=abcdef", "https://host/REDACTED"},
		{"https://ho st/x", "https://REDACTED"},
		{"ht tp://host/x", "REDACTED"},
	} {
		got := URL(tc.in)
		if strings.Contains(got, "PLANTED") || strings.Contains(got, "abc") {
			t.Errorf("URL(%q) = %q leaks", tc.in, got)
		}
		if got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Text(`dial "https://user:` + pass + `@host/mcp": refused`); strings.Contains(got, "ss-PLANTED") {
		t.Errorf("Text = %q", got)
	}
}

func TestParseProblem(t *testing.T) {
	for _, raw := range []string{"https://user:pa/ss-PLANTED@host/mcp", "https://host:PLANTED/x", "https://host/%zzPLANTED", "https://ho\x7fPLANTED/"} {
		p := ParseProblem(raw)
		if p == "" || strings.Contains(p, "PLANTED") || strings.Contains(p, "pa/ss") {
			t.Errorf("ParseProblem(%q) = %q", raw, p)
		}
	}
	if p := ParseProblem("https://host/mcp"); p != "" {
		t.Errorf("ParseProblem of a good URL = %q", p)
	}
}

func TestExpanded(t *testing.T) {
	const host, tok, short = "tenant-PLANTED-host.example.com", "tok-PLANTED-expanded-99", "eu"
	Expanded(host)
	Expanded(tok)
	Expanded(short)
	raw := "https://" + host + "/mcp/" + tok + "/sse?region=" + short
	got := URL(raw)
	if strings.Contains(got, "PLANTED") || !strings.Contains(got, "region=eu") {
		t.Fatalf("URL(%q) = %q", raw, got)
	}
	m := NewMasker(Config{URL: raw})
	if got := m.Text("echo: " + tok); strings.Contains(got, "PLANTED") {
		t.Fatalf("Masker.Text = %q", got)
	}
	if v := Expanded("https://whole.example.com/" + tok); v == "" {
		t.Fatal("Expanded lost its value")
	}
}

func TestLooksLikeKey(t *testing.T) {
	for s, want := range map[string]bool{
		pathKey:                                true,
		"sk-ak-4f9c2b7e1d8a6f3c5e0b9d2a":       true,
		"0123456789abcdef0123456789abcdef":     true,
		"filesystem":                           false,
		"my-long-server-name-for-testing":      false,
		"11111111111111111111111111111111111a": false,
		"has/slash-4f9c2b7e1d8a6f3c5e0b9d2a":   false,
	} {
		if got := LooksLikeKey(s); got != want {
			t.Errorf("LooksLikeKey(%q) = %v, want %v", s, got, want)
		}
	}
}

// An excerpt cut in the middle of a secret it did not know (a URL's key
// quoted by a server's error page) shows neither half.
func TestMaskerCutEdges(t *testing.T) {
	m := testMasker()
	for _, in := range []string{
		"404 no such key " + pathKey[:12] + "...",
		"first lines..." + pathKey[9:] + " last lines",
		"a ... b ... " + envSecret[:7] + "...",
	} {
		got := m.Text(in)
		if strings.Contains(got, pathKey[:8]) || strings.Contains(got, pathKey[len(pathKey)-8:]) || strings.Contains(got, envSecret[:7]) {
			t.Errorf("Text(%q) = %q", in, got)
		}
		if !strings.Contains(got, "...") {
			t.Errorf("Text(%q) = %q lost the cut mark", in, got)
		}
	}
	if got := m.Text("nothing cut... here"); got != "nothing cut... here" {
		t.Errorf("Text changed an ordinary text: %q", got)
	}
}
