package mcpactor

import (
	"context"

	"github.com/mcpactor/mcpactor/supervisor"
)

// ManagedSkill is a skill as a manager offers it (SEP-2640): by its
// exposed name, mcp__<server>__<skill>, named as tools are, so that a
// skill resolves within its server's namespace and never stands in for
// another server's skill of the same name. Two skills of one server with
// the same name are named by their paths instead. It is declared in
// supervisor. Its fields:
//
//	Name   string         // the exposed name, which Manager.ReadSkill takes
//	Server string         // the server that offers it
//	Skill  messages.Skill // the server's entry, which every read of the skill is verified against
type ManagedSkill = supervisor.Skill

// ListSkills lists the skills of every ready server that declares the
// skills extension, sorted by exposed name, and holds the listing for
// ReadSkill and ReadSkillFile. No file of any skill is read. A server
// whose listing fails is left out and its error joined to the one
// returned beside the others' skills.
func (m *Manager) ListSkills(ctx context.Context) ([]ManagedSkill, error) {
	return m.m.ListSkills(ctx)
}

// ReadSkill loads a skill of the last listing by its exposed name: its
// SKILL.md, read from the server that listed it and verified against the
// entry (size, digest, frontmatter); see Client.ReadSkill. A name not in
// the last listing is an ErrNotFound *Error.
func (m *Manager) ReadSkill(ctx context.Context, exposed string) ([]byte, error) {
	return m.m.ReadSkill(ctx, exposed)
}

// ReadSkillFile reads one file of a skill of the last listing (a URI its
// entry lists, or a path relative to the skill's root), from the server
// that listed it alone, verified against the entry.
func (m *Manager) ReadSkillFile(ctx context.Context, exposed, uri string) ([]byte, error) {
	return m.m.ReadSkillFile(ctx, exposed, uri)
}
