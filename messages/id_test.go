package messages

import (
	"encoding/json"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test of the package leaves a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func decodeID(t *testing.T, raw string) (ID, error) {
	t.Helper()
	var id ID
	err := json.Unmarshal([]byte(raw), &id)
	return id, err
}

func TestIDMatchesWhateverJSONTypeIsEchoed(t *testing.T) {
	// 7 and "7" name the same request.
	for _, raw := range []string{`7`, `"7"`, ` 7 `} {
		id, err := decodeID(t, raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if n, ok := id.Int64(); !ok || n != 7 {
			t.Errorf("%s: Int64() = %d, %v; want 7", raw, n, ok)
		}
	}
	if id, _ := decodeID(t, `"7"`); !id.IsString() || id.String() != "7" {
		t.Errorf(`"7" decodes to %#v`, id)
	}
}

func TestIDStringsThatAreNotOurNumbers(t *testing.T) {
	// Only the exact decimal form of an integer matches it: "07" is not 7,
	// and neither are "+7", "7.0", " 7" or "0x7".
	for _, raw := range []string{`"07"`, `"+7"`, `"7.0"`, `" 7"`, `"0x7"`, `"7 "`, `""`, `"seven"`, `"99999999999999999999"`} {
		id, err := decodeID(t, raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if n, ok := id.Int64(); ok {
			t.Errorf("%s: Int64() = %d, true; want no integer", raw, n)
		}
		if !id.IsValid() || !id.IsString() {
			t.Errorf("%s: not a valid string id", raw)
		}
	}
	if id, _ := decodeID(t, `"-7"`); func() bool { n, ok := id.Int64(); return !ok || n != -7 }() {
		t.Errorf(`"-7" should read as -7 (it is never one of ours, but it is exact)`)
	}
}

func TestIDRefusesFractionsAndOtherTypes(t *testing.T) {
	// JSON-RPC 2.0 §4: ids SHOULD NOT be fractional; we could not echo one
	// exactly, so it is refused, as are the types ids cannot have.
	for _, raw := range []string{`7.5`, `7.0`, `1e3`, `-0.0`, `true`, `{}`, `[7]`, `99999999999999999999`} {
		if id, err := decodeID(t, raw); err == nil {
			t.Errorf("%s accepted as %#v", raw, id)
		}
	}
	id, err := decodeID(t, `null`)
	if err != nil || id.IsValid() {
		t.Errorf("null: %#v, %v; want the zero id", id, err)
	}
	if _, ok := id.Int64(); ok {
		t.Error("the zero id reads as an integer")
	}
}

func TestIDEncodesAsItCame(t *testing.T) {
	for _, tc := range []struct {
		id   ID
		want string
	}{
		{Int64ID(7), `7`},
		{Int64ID(-3), `-3`},
		{StringID("7"), `"7"`},
		{StringID(`a"b`), `"a\"b"`},
		{StringID("é\n"), `"é\n"`},
		{ID{}, `null`},
	} {
		b, err := json.Marshal(tc.id)
		if err != nil || string(b) != tc.want {
			t.Errorf("%#v encodes as %s, %v; want %s", tc.id, b, err, tc.want)
		}
		back, err := decodeID(t, string(b))
		if err != nil || back != tc.id {
			t.Errorf("%s decodes as %#v, %v", b, back, err)
		}
	}
}
