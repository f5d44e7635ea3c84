package measure

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	known := []string{"mcpactor", "gosdk", "mcpgo"}
	got, err := ParseList("client", " gosdk,mcpactor ", known)
	if err != nil || !reflect.DeepEqual(got, []string{"gosdk", "mcpactor"}) {
		t.Fatalf("ParseList = %q, %v", got, err)
	}
	_, err = ParseList("server", "gosdk,nope", known)
	if err == nil || err.Error() != `unknown server "nope" (want some of mcpactor,gosdk,mcpgo)` {
		t.Fatalf("ParseList with an unknown name: %v", err)
	}
}

func TestWriteOutputs(t *testing.T) {
	dir := t.TempDir()
	md, js := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.json")
	rs := []Result{{Bench: "b", Client: "c", InFlight: 2}}
	if err := WriteOutputs("# report\n", md, rs, js); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(md); err != nil || string(b) != "# report\n" {
		t.Errorf("report file: %q, %v", b, err)
	}
	if back, err := ReadResults(js); err != nil || !reflect.DeepEqual(back, rs) {
		t.Errorf("results file: %+v, %v", back, err)
	}
	// A file that cannot be written is named in the error.
	bad := filepath.Join(dir, "missing", "r.json")
	if err := WriteOutputs("", "", rs, bad); err == nil || !strings.Contains(err.Error(), "writing "+bad+":") {
		t.Errorf("WriteOutputs to %s: %v", bad, err)
	}
}
