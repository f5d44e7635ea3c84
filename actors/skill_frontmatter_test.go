package actors

import (
	"errors"
	"testing"
)

// TestParseFrontmatter checks the reading of SKILL.md's frontmatter: CRLF
// lines, nested values rendered as JSON values, and the files that have
// none or do not close it.
func TestParseFrontmatter(t *testing.T) {
	fm, err := parseFrontmatter([]byte("---\r\nname: x\r\ndescription: \"y: z\"\r\nmetadata:\r\n  n: 2\r\n---\r\nbody"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "x", "description": "y: z", "metadata": map[string]any{"n": float64(2)}}
	if field, w, g, same := compareFields(want, fm); !same {
		t.Errorf("field %s: want %s, got %s", field, w, g)
	}
	for _, bad := range []string{"no frontmatter", "---\nname: x\n", "--- \nname: x\n---\n", "---\n- a list\n---\n", "---\nname: [\n---\n"} {
		if _, err := parseFrontmatter([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := parseFrontmatter([]byte("body\n")); !errors.Is(err, errNoFrontmatter) {
		t.Errorf("err = %v, want errNoFrontmatter", err)
	}
}

// TestCompareFieldsNamesTheFirstDifference: a missing field and an added
// one are differences, reported in the order of the fields' names.
func TestCompareFieldsNamesTheFirstDifference(t *testing.T) {
	field, w, g, same := compareFields(map[string]any{"a": "1", "b": "2"}, map[string]any{"b": "2", "c": true})
	if same || field != "a" || w != `"1"` || g != "absent" {
		t.Errorf("got %s %s %s %v, want a \"1\" absent", field, w, g, same)
	}
	if field, _, g, _ := compareFields(map[string]any{"b": "2"}, map[string]any{"b": "2", "c": true}); field != "c" || g != "true" {
		t.Errorf("an added field: got %s %s", field, g)
	}
}
