package mcpactor

import (
	"context"
	"iter"

	"github.com/mcpactor/mcpactor/messages"
)

// Skills (SEP-2640, https://modelcontextprotocol.io/seps/2640-skills-extension):
// a server that declares the extension io.modelcontextprotocol/skills
// serves Agent Skills, listed as entries (frontmatter, and every file with
// its size and SHA-256 digest) and read file by file. docs/skills.md tells
// the whole of it.

// Skills yields every skill the server lists; a failure is yielded last.
// Nothing is read of them: listing is not loading.
func (c *Client) Skills(ctx context.Context) iter.Seq2[messages.Skill, error] {
	return c.h.Skills(ctx)
}

// ListSkills returns every skill the server lists.
func (c *Client) ListSkills(ctx context.Context) ([]messages.Skill, error) {
	return c.h.ListSkills(ctx)
}

// GetSkill returns the entry of the skill whose SKILL.md is at uri, listed
// or not.
func (c *Client) GetSkill(ctx context.Context, uri string) (*messages.Skill, error) {
	return c.h.GetSkill(ctx, uri)
}

// ReadSkill loads a skill: reads its SKILL.md and verifies it against the
// entry (size, then digest, then the frontmatter field by field). Content
// that fails is not returned: the error is an ErrBadResponse *Error
// naming the Skill, the file (URI) and the Check.
func (c *Client) ReadSkill(ctx context.Context, s *messages.Skill) ([]byte, error) {
	return c.h.ReadSkill(ctx, s)
}

// ReadSkillFile reads one file of a skill (a URI the entry lists, or a
// path relative to the skill's root) and verifies it against the entry.
// A file the entry does not list is refused unread.
func (c *Client) ReadSkillFile(ctx context.Context, s *messages.Skill, uri string) ([]byte, error) {
	return c.h.ReadSkillFile(ctx, s, uri)
}

// PrefetchSkill reads and verifies every file of a skill at once, keyed
// by URI. The runtime never retrieves a skill's files ahead of need on
// its own; this is the caller asking.
func (c *Client) PrefetchSkill(ctx context.Context, s *messages.Skill) (map[string][]byte, error) {
	return c.h.PrefetchSkill(ctx, s)
}
