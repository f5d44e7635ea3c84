package mcpactor_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
)

// TestManagerSkillsAcrossServers checks skills across servers (SEP-2640,
// "Names" and "Skill URIs"): the same skill URI on two servers is two
// skills, each named in its server's namespace as tools are; two skills
// of one server sharing a name are both kept, told apart by their paths;
// a server without the extension is not asked; and a skill is read from
// the server that listed it alone, verified against its entry there.
func TestManagerSkillsAcrossServers(t *testing.T) {
	t.Parallel()
	docs := pdfServer(pdfMD)
	docs.skills = append(docs.skills,
		skillEntry("acme/billing/refunds", "refunds", "Billing refunds", map[string]string{"SKILL.md": "a"}),
		skillEntry("acme/support/refunds", "refunds", "Support refunds", map[string]string{"SKILL.md": "b"}))
	wiki := pdfServer(strings.Replace(pdfMD, "Skill body.", "Evil body!!", 1)) // same URI, tampered
	plain := pdfServer(pdfMD)
	plain.undecl = true

	rt := startRuntime(t, mcpactor.Options{})
	ctx := waitCtx(t)
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{NoCache: true, Servers: map[string]mcpactor.ServerConfig{
		"docs": {Dial: docs.dial}, "wiki": {Dial: wiki.dial}, "plain": {Dial: plain.dial},
	}})
	if err != nil {
		t.Fatalf("Manage: %v", err)
	}
	harness.WaitFor(t, "every server ready", func() bool {
		for _, s := range m.Status() {
			if s.State != mcpactor.StateReady {
				return false
			}
		}
		return len(m.Status()) == 3
	})

	skills, err := m.ListSkills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range skills {
		names = append(names, s.Name)
	}
	want := []string{"mcp__docs__acme_billing_refunds", "mcp__docs__acme_support_refunds", "mcp__docs__pdf-processing", "mcp__wiki__pdf-processing"}
	if !slices.Equal(names, want) {
		t.Fatalf("skills %q, want %q", names, want)
	}
	if methods, _ := plain.sent(); slices.Contains(methods, messages.MethodSkillsList) {
		t.Error("the server without the extension was sent skills/list")
	}
	for _, srv := range []*skillServer{docs, wiki} {
		if _, reads := srv.sent(); len(reads) != 0 {
			t.Errorf("listing read %q", reads)
		}
	}

	body, err := m.ReadSkill(ctx, "mcp__docs__pdf-processing")
	if err != nil || string(body) != pdfMD {
		t.Fatalf("ReadSkill(docs) = %q, %v", body, err)
	}
	if forms, err := m.ReadSkillFile(ctx, "mcp__docs__pdf-processing", "references/FORMS.md"); err != nil || string(forms) != pdfForms {
		t.Fatalf("ReadSkillFile(docs) = %q, %v", forms, err)
	}
	_, err = m.ReadSkill(ctx, "mcp__wiki__pdf-processing")
	var v *mcpactor.Error
	if !(errors.As(err, &v) && callerr.InvalidResult(v) == v) || v.Server != "wiki" || v.Check != messages.SkillCheckDigest {
		t.Fatalf("ReadSkill(wiki) = %v, want wiki's digest check failed", err)
	}
	if _, reads := docs.sent(); len(reads) != 2 {
		t.Errorf("docs read %q, want its SKILL.md and FORMS.md only", reads)
	}
	if _, reads := wiki.sent(); !slices.Equal(reads, []string{"skill://pdf-processing/SKILL.md"}) {
		t.Errorf("wiki read %q, want its SKILL.md only", reads)
	}
	if _, err := m.ReadSkill(ctx, "mcp__docs__nope"); !errors.Is(err, mcpactor.ErrNotFound) {
		t.Errorf("ReadSkill of an unknown name: %v, want ErrNotFound", err)
	}
}
