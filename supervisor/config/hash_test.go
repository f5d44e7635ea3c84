package config

import (
	"encoding/json"
	"strings"
	"testing"
)

// The same entry written differently hashes alike; a different entry
// hashes differently.
func TestCanonicalHash(t *testing.T) {
	configHash := func(t *testing.T, doc string) string {
		t.Helper()
		h, err := canonicalHash([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	a := configHash(t, `{"command":"npx","args":["-y","srv"],"env":{"B":"2","A":"1"},"timeout":30000}`)
	b := configHash(t, "{\n  \"timeout\": 30000,\n  \"env\": {\"A\": \"1\", \"B\": \"2\"},\n  \"args\": [\"-y\", \"srv\"],\n  \"command\": \"npx\"\n}")
	if a != b {
		t.Error("key order or spacing changed the hash")
	}
	if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("%q is not a hex SHA-256", a)
	}
	for _, other := range []string{
		`{"command":"npx","args":["srv","-y"],"env":{"B":"2","A":"1"},"timeout":30000}`, // argument order matters
		`{"command":"npx","args":["-y","srv"],"env":{"B":"2","A":"1"},"timeout":3e4}`,   // numbers as written
		`{"command":"npx","args":["-y","srv"],"env":{"B":"2","A":"1"},"timeout":"30000"}`,
	} {
		if configHash(t, other) == a {
			t.Errorf("%s hashes like the original", other)
		}
	}
	for _, bad := range []string{``, `{`, `{} {}`, `{"a":1} x`} {
		if _, err := canonicalHash([]byte(bad)); err == nil {
			t.Errorf("%q hashed", bad)
		}
	}
}

// marshaledHash, Hash's short cut, hashes what json.Marshal wrote
// from maps, slices, strings and integers as canonicalHash does, escapes
// and bad UTF-8 included: a server's Hash keys its cached tool list and
// its approval, and must not change with the way it is computed.
func TestMarshaledHashIsCanonical(t *testing.T) {
	for _, v := range []map[string]any{
		{},
		{"command": "npx", "args": []string{"-y", "srv"}, "env": map[string]string{"B": "2", "A": "1", "a": "", "Z": "<&>"}},
		{"url": "http://x/?a=1&b=<2>", "headers": map[string]string{"X-\u00e9": "\"q\"\t\n\r\b\f\x00\x1f\x7f", "é": "\u2028\u2029 \ufffd"}},
		{"env": map[string]string{"BAD": "a\xffb", "\xfe": "k"}, "requestTimeout": int64(-1), "maxInFlight": 3},
		{"restart": map[string]any{"maxRestarts": 5, "window": int64(60000), "backoffMin": int64(0)}, "enabledTools": []string{"b", "a"}},
		{"args": []string{`\ufffd`, `\\ufffd`, "\\"}},
	} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshaledHash(raw)
		if err != nil {
			t.Fatal(err)
		}
		want, err := canonicalHash(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: marshaledHash %s, canonicalHash %s", raw, got, want)
		}
	}
}
