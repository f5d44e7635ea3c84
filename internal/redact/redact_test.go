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
		{"ht tp://u:" + planted + "@host/x", "REDACTED"},
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

func TestValuesCredentialPart(t *testing.T) {
	token := "sk-live-abcdef123456"
	v := Values(map[string]string{"Authorization": "Bearer " + token, "X": "Basic " + planted, "Y": "DPoP abc", "Z": "Token  " + token + " "})
	text := Text("invalid token "+token+"; also "+planted+" and abc", v...)
	if strings.Contains(text, token) || strings.Contains(text, planted) || strings.Contains(text, "sk-live") {
		t.Fatalf("Text with Values left a credential: %q (values %q)", text, v)
	}
	if !strings.Contains(text, " and abc") {
		t.Fatalf("a credential shorter than minSecret was masked: %q", text)
	}
	if got := Text("Authorization: Bearer "+token, v...); got != "Authorization: "+Mask && got != "Authorization: Bearer "+Mask {
		t.Fatalf("Text = %q", got)
	}
}

func TestTextLongestFirst(t *testing.T) {
	short, long := "sk-live-abc", "sk-live-abcdef123456"
	for _, order := range [][]string{{short, long}, {long, short}} {
		got := Text("token "+long+" end", order...)
		if got != "token "+Mask+" end" {
			t.Fatalf("Text(%q) = %q, want the longer secret masked whole", order, got)
		}
	}
	in := []string{short, long}
	Text("x", in...)
	if in[0] != short {
		t.Fatal("Text reordered the caller's slice")
	}
}

func TestURLFragment(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://app.example/cb#access_token=" + planted + "&token_type=bearer&state=xyz", "https://app.example/cb#access_token=REDACTED&token_type=REDACTED&state=xyz"}, // token_type: the name rule, as in a query,
		{"https://example.com/doc#section-2", "https://example.com/doc#section-2"},
		{"https://example.com/cb?code=" + planted + "#id_token=" + planted, "https://example.com/cb?code=REDACTED#id_token=REDACTED"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Text(`redirected to "https://app.example/cb#access_token=` + planted + `"`); strings.Contains(got, planted) {
		t.Errorf("Text left a fragment's token: %q", got)
	}
}
