package config

import (
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// A part of a URL that came from ${VAR} is masked wherever the URL is
// shown, though nothing in the URL itself says it is a secret (issue 33,
// item 7).
func TestURLVariableMaskedWhenShown(t *testing.T) {
	const key = "acme-production" // no key by its look: only the variable marks it
	doc := `{"mcpServers": {"hosted": {"url": "https://mcp.example.test/${TENANT}/mcp"}}}`
	f, err := parse([]byte(doc), lookupFrom(map[string]string{"TENANT": key}))
	if err != nil {
		t.Fatal(err)
	}
	url := f.Servers["hosted"].URL
	if url != "https://mcp.example.test/"+key+"/mcp" {
		t.Fatalf("url = %q, want the variable expanded", url)
	}
	shown := redact.URL(url)
	if strings.Contains(shown, key) {
		t.Fatalf("redact.URL(%q) = %q: the expanded part is shown", url, shown)
	}
	if !strings.Contains(shown, "mcp.example.test") {
		t.Fatalf("redact.URL = %q: the host is gone", shown)
	}
}
