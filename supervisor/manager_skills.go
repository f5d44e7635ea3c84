package supervisor

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

// Skills across servers (SEP-2640,
// https://modelcontextprotocol.io/seps/2640-skills-extension). A skill's
// identity is its server and its URI: two servers may serve
// skill://refunds/SKILL.md, and they are two skills ("Skill URIs"). The
// manager names each skill as it names tools, mcp__<server>__<skill>,
// so that a name resolves within its server's namespace and no server's
// skill shadows another's ("Names"). Two skills of one server that share
// a name are told apart by their paths (mcp__docs__acme_billing_refunds)
// rather than one being dropped.
//
// Skills are listed when asked (ListSkills), not kept up to date by the
// manager actor: a listing is a snapshot the caller acts on, and the
// entries it holds are what every later read is verified against. Nothing
// of a skill is read until ReadSkill or ReadSkillFile.

// Skill is a skill as the manager exposes it.
type Skill struct {
	// Name is the exposed name, mcp__<server>__<skill>, made by the rules
	// of tool names (docs/configuration.md, "Tool names and the tool-list
	// cache").
	Name   string
	Server string
	// Skill is the server's entry, against which the skill's files are
	// verified.
	Skill messages.Skill
}

// skillListing is the last ListSkills, by exposed name.
type skillListing struct {
	byName map[string]Skill
}

// ListSkills lists the skills of every ready server that declares the
// skills extension, each server at once, sorted by exposed name; the
// listing is held for ReadSkill and ReadSkillFile by name. A server whose
// listing fails is left out, and its error joined to the one returned
// with the others' skills.
func (m *Manager) ListSkills(ctx context.Context) ([]Skill, error) {
	if m.closed.Load() {
		return nil, callerr.NewManagerClosed()
	}
	type listed struct {
		server string
		skills []messages.Skill
		err    error
	}
	s := m.snap.Load()
	var servers []*serverView
	for v := range s.views.all() {
		if v == nil || v.srv == nil || v.client == nil || v.state != StateReady {
			continue
		}
		if _, ok := v.client.Capabilities().Extensions[messages.SkillsExtension]; ok {
			servers = append(servers, v)
		}
	}
	results := make([]listed, len(servers))
	var wg sync.WaitGroup
	for i, v := range servers {
		wg.Go(func() {
			start := time.Now()
			skills, err := v.client.ListSkills(ctx)
			m.observe(v.srv.Name, v.healthOf(), err)
			results[i] = listed{server: v.srv.Name, skills: skills, err: m.waitedOut(ctx, err, v.srv.Name, messages.MethodSkillsList, start)}
		})
	}
	wg.Wait()

	var pairs []naming.ToolPair
	var errs []error
	keys := make([][]string, len(results))
	for i, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		keys[i] = skillKeys(r.skills)
		for _, k := range keys[i] {
			pairs = append(pairs, naming.ToolPair{Server: r.server, Tool: k})
		}
	}
	index := naming.NewToolIndex(pairs)
	var out []Skill
	byName := map[string]Skill{}
	for i, r := range results {
		for j, sk := range r.skills {
			if r.err != nil {
				break
			}
			exposed, ok := index.Exposed(r.server, keys[i][j])
			if !ok {
				continue
			}
			e := Skill{Name: exposed, Server: r.server, Skill: sk}
			out = append(out, e)
			byName[exposed] = e
		}
	}
	slices.SortFunc(out, func(x, y Skill) int { return compare(x.Name, y.Name) })
	m.skills.Store(&skillListing{byName: byName})
	return out, errors.Join(errs...)
}

// skillKeys is what each skill is named by within its server: its name,
// or its path when another skill of the server has the same name (SEP-2640,
// "Names": hosts "MUST disambiguate them ... rather than silently
// discarding or preferring one"). A path shared too (the same URI listed
// twice) names one skill.
func skillKeys(skills []messages.Skill) []string {
	count := map[string]int{}
	for _, s := range skills {
		count[s.Name()]++
	}
	keys := make([]string, len(skills))
	for i, s := range skills {
		keys[i] = s.Name()
		if count[keys[i]] > 1 || keys[i] == "" {
			keys[i] = skillPath(s.URI)
		}
	}
	return keys
}

// skillPath is a skill's URI without its scheme and "/SKILL.md":
// acme/billing/refunds of skill://acme/billing/refunds/SKILL.md.
func skillPath(uri string) string {
	if _, rest, ok := strings.Cut(uri, "://"); ok {
		uri = rest
	}
	return strings.TrimSuffix(uri, "/SKILL.md")
}

// heldSkill is the skill of the last listing by its exposed name.
func (m *Manager) heldSkill(exposed string) (Skill, error) {
	if l := m.skills.Load(); l != nil {
		if s, ok := l.byName[exposed]; ok {
			return s, nil
		}
	}
	return Skill{}, callerr.NewUnknownTool(&callerr.Error{Tool: exposed})
}

// ReadSkill loads a skill of the last listing by its exposed name: its
// SKILL.md, from the server that listed it, verified against the listed
// entry (size, digest, frontmatter).
func (m *Manager) ReadSkill(ctx context.Context, exposed string) ([]byte, error) {
	sk, err := m.heldSkill(exposed)
	if err != nil {
		return nil, err
	}
	return m.readSkill(ctx, sk, "")
}

// ReadSkillFile reads one file of a skill of the last listing (a URI its
// entry lists, or a path relative to the skill's root), from the server
// that listed it, verified against the entry. A skill of one server never
// causes a read of another's.
func (m *Manager) ReadSkillFile(ctx context.Context, exposed, uri string) ([]byte, error) {
	sk, err := m.heldSkill(exposed)
	if err != nil {
		return nil, err
	}
	if uri == "" {
		uri = sk.Skill.URI
	}
	return m.readSkill(ctx, sk, uri)
}

// readSkill reads SKILL.md (uri "") or a file of sk on its server.
func (m *Manager) readSkill(ctx context.Context, sk Skill, uri string) ([]byte, error) {
	if m.closed.Load() {
		return nil, callerr.NewManagerClosed()
	}
	s := m.snap.Load()
	start := time.Now()
	c, err := m.serverClient(ctx, s, sk.Server, messages.MethodResourcesRead)
	if err != nil {
		return nil, err
	}
	var data []byte
	if uri == "" {
		data, err = c.ReadSkill(ctx, &sk.Skill)
	} else {
		data, err = c.ReadSkillFile(ctx, &sk.Skill, uri)
	}
	m.observe(sk.Server, s.server(sk.Server).healthOf(), err)
	return data, m.waitedOut(ctx, err, sk.Server, messages.MethodResourcesRead, start)
}
