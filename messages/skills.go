package messages

import (
	"bytes"
	"encoding/json"
)

// The skills extension (SEP-2640,
// https://modelcontextprotocol.io/seps/2640-skills-extension): a server
// that declares SkillsExtension in its capabilities' extensions serves
// Agent Skills as resources, enumerates them with skills/list and returns
// one by the URI of its SKILL.md with skills/get. Every file is read with
// resources/read and checked against the entry's size and digest.
const (
	// SkillsExtension is the extension's identifier in the capabilities'
	// extensions.
	SkillsExtension = "io.modelcontextprotocol/skills"
	// MethodSkillsList lists the skills a server serves.
	MethodSkillsList = "skills/list"
	// MethodSkillsGet returns the entry of one skill.
	MethodSkillsGet = "skills/get"
)

// The limits every host must accept of one skill (SEP-2640, "Limits"):
// counted from the entry alone, before any file is read.
const (
	// SkillMaxResources is the most files a skill's entry may list.
	SkillMaxResources = 512
	// SkillMaxBytes is the most bytes a skill's files may hold in all.
	SkillMaxBytes = 16 << 20
)

// SkillResource is one file of a skill, with the length and the SHA-256
// digest ("sha256:" and 64 lowercase hex digits) of its raw bytes.
type SkillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Skill is a skill's entry, as skills/list and skills/get return it.
//
// Resources lists every file of the skill, SKILL.md included, unless
// Dynamic is set: the server generates the skill's content and publishes
// no digests. An entry whose resources are missing or are neither an
// array nor "dynamic" decodes with neither set; the SEP forbids loading it.
type Skill struct {
	// URI is the resource URI of the skill's SKILL.md.
	URI string
	// Frontmatter is SKILL.md's YAML frontmatter as a JSON object, every
	// field the author wrote; name and description are always there.
	Frontmatter map[string]any
	Resources   []SkillResource
	Dynamic     bool
	Meta        Meta
}

// Name is the frontmatter's name ("" if it has none).
func (s Skill) Name() string { n, _ := s.Frontmatter["name"].(string); return n }

// Description is the frontmatter's description.
func (s Skill) Description() string { d, _ := s.Frontmatter["description"].(string); return d }

type skillWire struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources,omitempty"`
	Meta        Meta            `json:"_meta,omitempty"`
}

// MarshalJSON encodes Resources, or "dynamic".
func (s Skill) MarshalJSON() ([]byte, error) {
	w := skillWire{URI: s.URI, Frontmatter: s.Frontmatter, Meta: s.Meta}
	var err error
	switch {
	case s.Dynamic:
		w.Resources = json.RawMessage(`"dynamic"`)
	case s.Resources != nil:
		if w.Resources, err = json.Marshal(s.Resources); err != nil {
			return nil, err
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes an entry. Its resources, when they are not a
// well-formed array nor "dynamic", are left unset rather than failing the
// whole listing: one bad entry is not loaded, the others still are.
func (s *Skill) UnmarshalJSON(b []byte) error {
	var w skillWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Skill{URI: w.URI, Frontmatter: w.Frontmatter, Meta: w.Meta}
	raw := bytes.TrimSpace(w.Resources)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var v string
		if json.Unmarshal(raw, &v) == nil && v == "dynamic" {
			s.Dynamic = true
		}
	case len(raw) > 0 && raw[0] == '[':
		var rs []SkillResource
		if json.Unmarshal(raw, &rs) == nil {
			s.Resources = append(make([]SkillResource, 0, len(rs)), rs...)
		}
	}
	return nil
}

// ListSkillsParams are the parameters of skills/list.
type ListSkillsParams struct {
	Cursor string `json:"cursor,omitempty"`
}

// ListSkillsResult is a page of skills/list.
type ListSkillsResult struct {
	Meta       Meta    `json:"_meta,omitempty"`
	Skills     []Skill `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the listing's caching hints.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// GetSkillParams are the parameters of skills/get.
type GetSkillParams struct {
	// URI is the URI of the skill's SKILL.md.
	URI string `json:"uri"`
}

// GetSkillResult is the result of skills/get.
type GetSkillResult struct {
	Meta       Meta   `json:"_meta,omitempty"`
	Skill      Skill  `json:"skill"`
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// The checks a skill's file can fail (mcpactor.Error.Check).
const (
	// SkillCheckEntry: the entry itself is not loadable (no SKILL.md
	// listed, a malformed digest, resources neither an array nor
	// "dynamic", a name that is not the URI's last segment...).
	SkillCheckEntry = "entry"
	// SkillCheckLimit: the entry is beyond SkillMaxResources or
	// SkillMaxBytes, or a file of a dynamic skill is beyond SkillMaxBytes.
	SkillCheckLimit = "limit"
	// SkillCheckUnlisted: the file is not among the entry's resources.
	SkillCheckUnlisted = "unlisted"
	// SkillCheckSize: the file's length is not the entry's size.
	SkillCheckSize = "size"
	// SkillCheckDigest: the file's SHA-256 is not the entry's digest.
	SkillCheckDigest = "digest"
	// SkillCheckFrontmatter: SKILL.md's frontmatter differs from the
	// entry's.
	SkillCheckFrontmatter = "frontmatter"
)
