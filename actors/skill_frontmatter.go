package actors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// A SKILL.md begins with YAML frontmatter between two lines of "---"
// (https://agentskills.io/specification); the skills extension carries it
// in the entry as a JSON object, which a host compares with the file's
// after reading it (SEP-2640, "Frontmatter Verification").

// parseFrontmatter returns SKILL.md's frontmatter as JSON values (what
// encoding/json decodes into any), so that it compares with the entry's.
func parseFrontmatter(data []byte) (map[string]any, error) {
	rest, ok := cutLine(data, "---")
	if !ok {
		return nil, errNoFrontmatter
	}
	var block []byte
	for start := 0; ; {
		i := bytes.IndexByte(rest[start:], '\n')
		line := rest[start:]
		if i >= 0 {
			line = rest[start : start+i]
		}
		if string(bytes.TrimRight(line, "\r")) == "---" {
			block = rest[:start]
			break
		}
		if i < 0 {
			return nil, fmt.Errorf("%w: no closing ---", errNoFrontmatter)
		}
		start += i + 1
	}
	var v any
	if err := yaml.Unmarshal(block, &v); err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	j, err := jsonValue(v)
	if err != nil {
		return nil, fmt.Errorf("frontmatter: %v", err)
	}
	m, ok := j.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("frontmatter is not a mapping")
	}
	return m, nil
}

// cutLine returns what follows data's first line if that line is want.
func cutLine(data []byte, want string) ([]byte, bool) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 || string(bytes.TrimRight(data[:i], "\r")) != want {
		return nil, false
	}
	return data[i+1:], true
}

// jsonValue renders v as encoding/json would decode it into any: YAML's
// integers, and the entry's values whatever decoded them, become the same
// float64s, strings and maps.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(b, &out)
}

// compareFields compares two frontmatters field by field, in the order of
// their names, and returns the first field that differs with its two
// values (as JSON; "absent" for a missing one).
func compareFields(want, got map[string]any) (field, w, g string, same bool) {
	names := make([]string, 0, len(want)+len(got))
	for k := range want {
		names = append(names, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		wv, wok := want[k]
		gv, gok := got[k]
		if wok == gok && reflect.DeepEqual(wv, gv) {
			continue
		}
		return k, render(wv, wok), render(gv, gok), false
	}
	return "", "", "", true
}

// render is a field's value for an error: JSON, cut short.
func render(v any, ok bool) string {
	if !ok {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const most = 120
	if len(b) > most {
		return string(b[:most]) + "..."
	}
	return string(b)
}
