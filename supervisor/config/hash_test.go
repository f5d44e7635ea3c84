package config

import (
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
