package redact

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// A Masker is made for every server and most never mask anything: making
// one must not work out the forms of its configuration's values.
func TestNewMaskerDefersTheForms(t *testing.T) {
	env := make(map[string]string)
	for i := range 50 {
		env[fmt.Sprintf("VAR_%d", i)] = fmt.Sprintf("value/with spaces&%d-%s", i, envSecret)
	}
	c := Config{Name: "files", URL: "https://mcp.example.com/mcp?api_key=" + querySecret, Env: env}
	if n := testing.AllocsPerRun(20, func() { _ = NewMasker(c) }); n > 1 {
		t.Errorf("NewMasker: %.0f allocations, want 1 (the Masker)", n)
	}
	m := NewMasker(c)
	got := m.Text("echo " + env["VAR_7"] + " and " + querySecret)
	if v := leaked(got); v != "" || strings.Contains(got, "with spaces&7") {
		t.Errorf("Text after a deferred build = %q: %q is still there", got, v)
	}
}

// The first uses of a Masker can come from several goroutines at once (a
// log record and an error, say); each must see every form. Run with -race.
func TestMaskerFirstUseConcurrent(t *testing.T) {
	m := testMasker()
	var wg sync.WaitGroup
	out := make([]string, 8)
	for i := range out {
		wg.Go(func() { out[i] = m.Text("got " + envSecret + " and " + headerSecret) })
	}
	wg.Wait()
	for i, s := range out {
		if v := leaked(s); v != "" {
			t.Errorf("goroutine %d: %q leaks %q", i, s, v)
		}
	}
}
