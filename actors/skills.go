package actors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"path"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// Skills (SEP-2640, https://modelcontextprotocol.io/seps/2640-skills-extension).
// A skill is listed (skills/list) or fetched by URI (skills/get) as an
// entry: its frontmatter and every file with its size and digest. Nothing
// of a skill is read until the caller asks ("Lazy Retrieval": not on
// connection, not on listing): ReadSkill loads SKILL.md, ReadSkillFile one
// supporting file, PrefetchSkill every file at once. Each file read is
// checked against the entry the caller holds, its length before its
// digest, and a SKILL.md's frontmatter against the entry's; content that
// fails is not returned ("Integrity and Verification"). The entry's
// sizes bound every read: a file is accepted only at its listed length,
// and a skill beyond the SEP's limits (messages.SkillMaxResources,
// messages.SkillMaxBytes) is refused before anything is read.

// skillsDeclared waits for the handshake and checks that the server
// declared the extension: "Clients issue skills/list and skills/get only
// after observing the server's declaration."
func (c *Client) skillsDeclared(ctx context.Context, method string) error {
	if _, err := c.current(ctx); err != nil {
		return err
	}
	if _, ok := c.Capabilities().Extensions[messages.SkillsExtension]; !ok {
		return callerr.NewExtensionNotDeclared(&callerr.Error{Server: c.name, Extension: messages.SkillsExtension, Method: method})
	}
	return nil
}

// Skills yields every skill the server lists, every page read; a failure
// is yielded last. A listing may be partial: a skill missing from it can
// still be fetched by URI (GetSkill).
func (c *Client) Skills(ctx context.Context) iter.Seq2[messages.Skill, error] {
	return func(yield func(messages.Skill, error) bool) {
		if err := c.skillsDeclared(ctx, messages.MethodSkillsList); err != nil {
			yield(messages.Skill{}, err)
			return
		}
		pages(c.name, messages.MethodSkillsList, func(ctx context.Context, cursor string) (page[messages.Skill], error) {
			var res messages.ListSkillsResult
			err := c.call(ctx, messages.MethodSkillsList, messages.ListSkillsParams{Cursor: cursor}, &res)
			return page[messages.Skill]{items: res.Skills, next: res.NextCursor}, err
		})(ctx)(yield)
	}
}

// ListSkills returns every skill the server lists.
func (c *Client) ListSkills(ctx context.Context) ([]messages.Skill, error) {
	return collect(c.Skills(ctx))
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri.
func (c *Client) GetSkill(ctx context.Context, uri string) (*messages.Skill, error) {
	if err := c.skillsDeclared(ctx, messages.MethodSkillsGet); err != nil {
		return nil, err
	}
	var res messages.GetSkillResult
	if err := c.call(ctx, messages.MethodSkillsGet, messages.GetSkillParams{URI: uri}, &res); err != nil {
		return nil, err
	}
	return &res.Skill, nil
}

// ReadSkill loads a skill: it checks the entry, reads its SKILL.md,
// verifies its size and digest against the entry, and compares the
// frontmatter it begins with to the entry's, field by field ("Frontmatter
// Verification"). It returns SKILL.md's bytes; on any discrepancy, an
// *callerr.Error (ErrBadResponse) naming the skill, the file and the check,
// and no content.
func (c *Client) ReadSkill(ctx context.Context, s *messages.Skill) ([]byte, error) {
	if err := checkSkillEntry(c.name, s); err != nil {
		return nil, err
	}
	data, err := c.readSkillFile(ctx, s, s.URI)
	if err != nil {
		return nil, err
	}
	if err := checkFrontmatter(c.name, s, data); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadSkillFile reads one file of a skill: uri is a resource URI the
// entry lists, or a path relative to the skill's root
// ("references/FORMS.md"), as SKILL.md refers to its files. A file the
// entry does not list is refused unread ("a read of an unlisted file ...
// is a verification failure"); one that is read is verified as ReadSkill
// verifies SKILL.md (its frontmatter aside: only loading the skill acts on
// it).
func (c *Client) ReadSkillFile(ctx context.Context, s *messages.Skill, uri string) ([]byte, error) {
	if err := checkSkillEntry(c.name, s); err != nil {
		return nil, err
	}
	return c.readSkillFile(ctx, s, resolveSkillURI(s, uri))
}

// PrefetchSkill reads every file of a skill at once, SKILL.md first
// (loaded as ReadSkill loads it), keyed by URI: the caller's explicit
// request to retrieve ahead of need, which the runtime never makes on its
// own. It stops at the first file that fails. A dynamic skill lists no
// files: only its SKILL.md is read.
func (c *Client) PrefetchSkill(ctx context.Context, s *messages.Skill) (map[string][]byte, error) {
	body, err := c.ReadSkill(ctx, s)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{s.URI: body}
	for _, r := range s.Resources {
		if _, ok := files[r.URI]; ok {
			continue
		}
		data, err := c.readSkillFile(ctx, s, r.URI)
		if err != nil {
			return nil, err
		}
		files[r.URI] = data
	}
	return files, nil
}

// readSkillFile reads uri of s (an entry already checked) and verifies it.
func (c *Client) readSkillFile(ctx context.Context, s *messages.Skill, uri string) ([]byte, error) {
	fail := func(check, want, got string) error {
		return callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: messages.MethodResourcesRead,
			Skill: s.URI, URI: uri, Check: check, Want: want, Got: got})
	}
	var listed *messages.SkillResource
	for i := range s.Resources {
		if s.Resources[i].URI == uri {
			listed = &s.Resources[i]
			break
		}
	}
	switch {
	case listed == nil && !s.Dynamic:
		return nil, fail(messages.SkillCheckUnlisted, "a file the entry lists", uri)
	case listed == nil && uri != s.URI && !strings.HasPrefix(uri, skillRoot(s)+"/"):
		return nil, fail(messages.SkillCheckUnlisted, "a file under "+skillRoot(s), uri)
	}
	res, err := c.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	data, err := skillContent(res, uri)
	if err != nil {
		return nil, callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: messages.MethodResourcesRead, Cause: err})
	}
	if listed == nil { // a dynamic skill: nothing to verify against but the limit
		if len(data) > messages.SkillMaxBytes {
			return nil, fail(messages.SkillCheckLimit, "at most "+strconv.Itoa(messages.SkillMaxBytes)+" bytes", strconv.Itoa(len(data))+" bytes")
		}
		return data, nil
	}
	// "A read whose byte length differs from the entry's size is a
	// verification failure ... whether or not the host goes on to compute
	// the digest": the length is checked first, and the digest only of
	// content of the listed length.
	if int64(len(data)) != listed.Size {
		return nil, fail(messages.SkillCheckSize, strconv.FormatInt(listed.Size, 10)+" bytes", strconv.Itoa(len(data))+" bytes")
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != listed.Digest {
		return nil, fail(messages.SkillCheckDigest, listed.Digest, got)
	}
	return data, nil
}

// skillContent picks uri's contents out of a read: the entry of that URI,
// or the only one.
func skillContent(res *messages.ReadResourceResult, uri string) ([]byte, error) {
	for _, rc := range res.Contents {
		if rc.URI == uri {
			return rc.Bytes()
		}
	}
	if len(res.Contents) == 1 {
		return res.Contents[0].Bytes()
	}
	return nil, fmt.Errorf("no contents for %s among %d", uri, len(res.Contents))
}

// skillRoot is the skill's directory: its URI without "/SKILL.md".
func skillRoot(s *messages.Skill) string { return strings.TrimSuffix(s.URI, "/SKILL.md") }

// resolveSkillURI resolves a path relative to the skill's root ("Relative
// References"); a URI (with a scheme) is taken as it is. A path that
// climbs out of the root stays outside it, and so is refused as unlisted.
func resolveSkillURI(s *messages.Skill, ref string) string {
	if strings.Contains(ref, "://") {
		return ref
	}
	if ref == ".." || strings.HasPrefix(ref, "../") {
		return ref
	}
	return skillRoot(s) + path.Clean("/"+ref)
}

// checkSkillEntry refuses an entry the SEP says a host must not load,
// before anything is read: resources neither an array nor "dynamic", no
// SKILL.md among them, a file outside the skill, a malformed digest, a
// name that is not the last segment of the skill's path, or more files
// or bytes than the limits every host accepts.
func checkSkillEntry(server string, s *messages.Skill) error {
	if s == nil {
		return callerr.NewInvalidResult(&callerr.Error{Server: server, Method: messages.MethodSkillsList,
			Check: messages.SkillCheckEntry, Want: "an entry", Got: "none"})
	}
	fail := func(check, want, got string) error {
		return callerr.NewInvalidResult(&callerr.Error{Server: server, Method: messages.MethodSkillsList,
			Skill: s.URI, Check: check, Want: want, Got: got})
	}
	if !strings.HasSuffix(s.URI, "/SKILL.md") {
		return fail(messages.SkillCheckEntry, "a uri ending in /SKILL.md", strconv.Quote(s.URI))
	}
	name, description := s.Name(), s.Description()
	if name == "" || description == "" {
		return fail(messages.SkillCheckEntry, "frontmatter with a name and a description", fmt.Sprintf("name %q, description %q", name, description))
	}
	root := skillRoot(s)
	if last := root[strings.LastIndex(root, "/")+1:]; last != name {
		return fail(messages.SkillCheckEntry, "the name "+strconv.Quote(last)+" (the path's last segment)", strconv.Quote(name))
	}
	if s.Dynamic {
		return nil
	}
	if s.Resources == nil {
		return fail(messages.SkillCheckEntry, `resources: an array or "dynamic"`, "neither")
	}
	if len(s.Resources) > messages.SkillMaxResources {
		return fail(messages.SkillCheckLimit, "at most "+strconv.Itoa(messages.SkillMaxResources)+" files", strconv.Itoa(len(s.Resources))+" files")
	}
	var total int64
	hasSkillMD := false
	for _, r := range s.Resources {
		switch {
		case r.URI == s.URI:
			hasSkillMD = true
		case !strings.HasPrefix(r.URI, root+"/"):
			return fail(messages.SkillCheckEntry, "files under "+root, r.URI)
		}
		if r.Size < 0 {
			return fail(messages.SkillCheckEntry, "a size of 0 or more", r.URI+": "+strconv.FormatInt(r.Size, 10))
		}
		if !validDigest(r.Digest) {
			return fail(messages.SkillCheckEntry, "a digest sha256:<64 lowercase hex digits>", r.URI+": "+strconv.Quote(r.Digest))
		}
		total += r.Size
	}
	if !hasSkillMD {
		return fail(messages.SkillCheckEntry, "SKILL.md among the resources", "not listed")
	}
	if total > messages.SkillMaxBytes {
		return fail(messages.SkillCheckLimit, "at most "+strconv.Itoa(messages.SkillMaxBytes)+" bytes", strconv.FormatInt(total, 10)+" bytes")
	}
	return nil
}

// validDigest: "sha256:{hex} where {hex} is 64 lowercase hexadecimal
// characters".
func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, r := range h {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// errNoFrontmatter: SKILL.md does not begin with YAML frontmatter.
var errNoFrontmatter = errors.New("SKILL.md does not begin with YAML frontmatter")

// checkFrontmatter parses SKILL.md's frontmatter and compares it with the
// entry's, field by field.
func checkFrontmatter(server string, s *messages.Skill, data []byte) error {
	fail := func(want, got string) error {
		return callerr.NewInvalidResult(&callerr.Error{Server: server, Method: messages.MethodResourcesRead,
			Skill: s.URI, URI: s.URI, Check: messages.SkillCheckFrontmatter, Want: want, Got: got})
	}
	got, err := parseFrontmatter(data)
	if err != nil {
		return fail("YAML frontmatter", err.Error())
	}
	want, err := jsonValue(s.Frontmatter)
	if err != nil {
		return fail("a frontmatter of JSON values", err.Error())
	}
	wantFields, _ := want.(map[string]any)
	if field, w, g, same := compareFields(wantFields, got); !same {
		return fail(field+": "+w, field+": "+g)
	}
	return nil
}
