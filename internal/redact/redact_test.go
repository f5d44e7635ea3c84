package redact

import (
	"strings"
	"testing"
)

const planted = "s3cr3t-PLANTED-9f2c"

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"},
		{"https://example.com/mcp?api_key=" + planted + "&region=eu", "https://example.com/mcp?api_key=REDACTED&region=eu"},
		{"https://user:" + planted + "@example.com/mcp", "https://REDACTED@example.com/mcp"},
		{"https://" + planted + "@example.com/mcp", "https://REDACTED@example.com/mcp"},
		{"https://example.com/mcp?token=" + planted, "https://example.com/mcp?token=REDACTED"},
		{"https://example.com/mcp?apiKey=" + planted + "&x", "https://example.com/mcp?apiKey=REDACTED&x"},
		{"ht tp://u:" + planted + "@host/x", "ht tp://REDACTED@host/x"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHeader(t *testing.T) {
	for _, name := range []string{"Authorization", "X-API-Key", "Cookie", "X-Auth-Token", "Proxy-Authorization"} {
		if got := Header(name, planted); got != Mask {
			t.Errorf("Header(%q) = %q, want the mask", name, got)
		}
	}
	if got := Header("Accept", "application/json"); got != "application/json" {
		t.Errorf("Header(Accept) = %q", got)
	}
}

func TestText(t *testing.T) {
	in := `Post "https://u:` + planted + `@example.com/mcp?key=` + planted + `": dial tcp: refused; env had ` + planted + ` and on`
	got := Text(in, planted, "on")
	if strings.Contains(got, planted) {
		t.Fatalf("Text left the secret: %s", got)
	}
	if !strings.Contains(got, "example.com/mcp") || !strings.Contains(got, " and on") {
		t.Fatalf("Text took too much: %s", got)
	}
	if got := Text("no urls here ://x", planted); got != "no urls here ://x" {
		t.Fatalf("Text(%q) changed it: %q", "no urls here ://x", got)
	}
}

func TestValues(t *testing.T) {
	v := Values(map[string]string{"A": planted, "B": "1"})
	if len(v) != 1 || v[0] != planted {
		t.Fatalf("Values = %q", v)
	}
}
