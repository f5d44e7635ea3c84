package mcpactor_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

const (
	pdfMD    = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: Apache-2.0\nmetadata:\n  version: 2\n---\n\nSkill body.\n"
	pdfForms = "Supporting content.\n"
)

// pdfServer serves the skill pdf-processing, whose entry describes pdfMD
// and pdfForms; skillMDServed is what resources/read returns for SKILL.md.
func pdfServer(skillMDServed string) *skillServer {
	entry := skillEntry("pdf-processing", "pdf-processing", "Extract, fill, and assemble PDF documents",
		map[string]string{"SKILL.md": pdfMD, "references/FORMS.md": pdfForms})
	entry.Frontmatter["license"] = "Apache-2.0"
	entry.Frontmatter["metadata"] = map[string]any{"version": 2}
	return &skillServer{
		skills: []messages.Skill{entry},
		files: map[string]string{
			"skill://pdf-processing/SKILL.md":            skillMDServed,
			"skill://pdf-processing/references/FORMS.md": pdfForms,
		},
	}
}

func connectSkills(t *testing.T, srv *skillServer) *mcpactor.Client {
	t.Helper()
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "docs", mcpactor.ServerConfig{Dial: srv.dial})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return c
}

// TestSkillsListReadsNothing checks lazy retrieval (SEP-2640, "Lazy
// Retrieval"): connecting and listing read no file of any skill.
func TestSkillsListReadsNothing(t *testing.T) {
	t.Parallel()
	srv := pdfServer(pdfMD)
	srv.listPage = 1
	srv.skills = append(srv.skills, skillEntry("acme/billing/refunds", "refunds", "Refunds", map[string]string{"SKILL.md": "x"}))
	c := connectSkills(t, srv)
	skills, err := c.ListSkills(waitCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 2 || skills[0].Name() != "pdf-processing" || skills[1].Name() != "refunds" || len(skills[0].Resources) != 2 {
		t.Fatalf("ListSkills = %+v: want both skills, from two pages, with their files", skills)
	}
	methods, reads := srv.sent()
	if len(reads) != 0 {
		t.Errorf("read %q while listing: want no file read", reads)
	}
	if n := len(slices.DeleteFunc(methods, func(m string) bool { return m != messages.MethodSkillsList })); n != 2 {
		t.Errorf("skills/list sent %d times, want 2 (two pages); methods %q", n, methods)
	}
}

// TestSkillLoadsVerified checks the happy path: SKILL.md loads with its
// frontmatter (nested values and numbers included) equal to the entry's,
// a supporting file reads by relative path, PrefetchSkill reads every
// file, and GetSkill returns an entry by URI.
func TestSkillLoadsVerified(t *testing.T) {
	t.Parallel()
	srv := pdfServer(pdfMD)
	c := connectSkills(t, srv)
	ctx := waitCtx(t)
	s, err := c.GetSkill(ctx, "skill://pdf-processing/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	body, err := c.ReadSkill(ctx, s)
	if err != nil || string(body) != pdfMD {
		t.Fatalf("ReadSkill = %q, %v", body, err)
	}
	forms, err := c.ReadSkillFile(ctx, s, "references/FORMS.md")
	if err != nil || string(forms) != pdfForms {
		t.Fatalf("ReadSkillFile = %q, %v", forms, err)
	}
	all, err := c.PrefetchSkill(ctx, s)
	if err != nil || len(all) != 2 || string(all["skill://pdf-processing/references/FORMS.md"]) != pdfForms {
		t.Fatalf("PrefetchSkill = %v, %v", all, err)
	}
	var rpc *mcpactor.RPCError
	if _, err := c.GetSkill(ctx, "skill://nope/SKILL.md"); !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Errorf("GetSkill of an unknown skill: %v, want the server's -32602", err)
	}
}

// verificationFailure checks that err is the typed mismatch: an
// ErrBadResponse *Error that names the server, the skill and the check.
func verificationFailure(t *testing.T, err error, check string) *mcpactor.Error {
	t.Helper()
	var v *mcpactor.Error
	if !errors.Is(err, mcpactor.ErrBadResponse) || !(errors.As(err, &v) && callerr.InvalidResult(v) == v) {
		t.Fatalf("err = %v, want an ErrBadResponse naming a skill check", err)
	}
	if v.Check != check || v.Server != "docs" || v.Skill != "skill://pdf-processing/SKILL.md" {
		t.Fatalf("mismatch %+v: want check %q of docs's skill://pdf-processing/SKILL.md", v, check)
	}
	for _, want := range []string{`"docs"`, "skill://pdf-processing/SKILL.md", check} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	return v
}

// TestSkillMismatchesAreRefused serves a SKILL.md that is not its entry's
// (another digest at the same size, another size, another frontmatter
// with digest and size matching) and checks that each is refused with
// its check named, no content, and no supporting file read after it.
func TestSkillMismatchesAreRefused(t *testing.T) {
	t.Parallel()
	tampered := strings.Replace(pdfMD, "Skill body.", "Evil body!!", 1)
	longer := pdfMD + "extra bytes the entry did not account for\n"
	exfil := strings.Replace(pdfMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)
	for _, tc := range []struct {
		name, served, check, want, got string
		entryMatchesServed             bool
	}{
		{name: "digest", served: tampered, check: messages.SkillCheckDigest, want: digestOf(pdfMD), got: digestOf(tampered)},
		{name: "size", served: longer, check: messages.SkillCheckSize, want: strconv.Itoa(len(pdfMD)) + " bytes", got: strconv.Itoa(len(longer)) + " bytes"},
		{name: "frontmatter", served: exfil, check: messages.SkillCheckFrontmatter, entryMatchesServed: true,
			want: `description: "Extract, fill, and assemble PDF documents"`, got: `description: "Exfiltrate credentials"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := pdfServer(tc.served)
			if tc.entryMatchesServed { // only the frontmatter can tell
				srv.skills[0].Resources[slices.IndexFunc(srv.skills[0].Resources, func(r messages.SkillResource) bool {
					return strings.HasSuffix(r.URI, "/SKILL.md")
				})] = messages.SkillResource{URI: "skill://pdf-processing/SKILL.md", Digest: digestOf(tc.served), Size: int64(len(tc.served))}
			}
			c := connectSkills(t, srv)
			skills, err := c.ListSkills(waitCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			body, err := c.ReadSkill(waitCtx(t), &skills[0])
			if body != nil {
				t.Errorf("ReadSkill returned %d bytes of unverified content", len(body))
			}
			v := verificationFailure(t, err, tc.check)
			if v.Want != tc.want || v.Got != tc.got {
				t.Errorf("mismatch want %q got %q; expected want %q got %q", v.Want, v.Got, tc.want, tc.got)
			}
			if _, err := c.PrefetchSkill(waitCtx(t), &skills[0]); err == nil {
				t.Error("PrefetchSkill of a tampered skill succeeded")
			}
			if _, reads := srv.sent(); slices.Contains(reads, "skill://pdf-processing/references/FORMS.md") {
				t.Errorf("reads %q: a supporting file was read after SKILL.md failed", reads)
			}
		})
	}
}

// TestSkillEntriesRefusedUnread checks what is refused before any read:
// a file the entry does not list, and entries the SEP forbids loading
// (no resources, a malformed digest, a name other than the path's last
// segment, more bytes than the SEP's per-skill limit).
func TestSkillEntriesRefusedUnread(t *testing.T) {
	t.Parallel()
	srv := pdfServer(pdfMD)
	c := connectSkills(t, srv)
	ctx := waitCtx(t)
	good := srv.skills[0]

	_, err := c.ReadSkillFile(ctx, &good, "references/SECRET.md")
	if v := verificationFailure(t, err, messages.SkillCheckUnlisted); v.URI != "skill://pdf-processing/references/SECRET.md" {
		t.Errorf("unlisted file named %q", v.URI)
	}
	_, err = c.ReadSkillFile(ctx, &good, "../other/SKILL.md")
	verificationFailure(t, err, messages.SkillCheckUnlisted)

	noResources := good
	noResources.Resources = nil
	badDigest := good
	badDigest.Resources = []messages.SkillResource{{URI: good.URI, Digest: "sha256:ABC", Size: int64(len(pdfMD))}}
	misnamed := good
	misnamed.Frontmatter = map[string]any{"name": "other", "description": "d"}
	huge := good
	huge.Resources = []messages.SkillResource{{URI: good.URI, Digest: digestOf(pdfMD), Size: messages.SkillMaxBytes + 1}}
	for name, tc := range map[string]struct {
		s     messages.Skill
		check string
	}{
		"no resources": {noResources, messages.SkillCheckEntry},
		"bad digest":   {badDigest, messages.SkillCheckEntry},
		"misnamed":     {misnamed, messages.SkillCheckEntry},
		"over limit":   {huge, messages.SkillCheckLimit},
	} {
		_, err := c.ReadSkill(ctx, &tc.s)
		var v *mcpactor.Error
		if !(errors.As(err, &v) && callerr.InvalidResult(v) == v) || v.Check != tc.check || !errors.Is(err, mcpactor.ErrBadResponse) {
			t.Errorf("%s: ReadSkill = %v, want the %s check failed", name, err, tc.check)
		}
	}
	if _, reads := srv.sent(); len(reads) != 0 {
		t.Errorf("reads %q: want none", reads)
	}
}

// TestSkillDynamicChecksFrontmatter: a dynamic skill publishes no digests,
// but its SKILL.md's frontmatter is still compared with the entry's.
func TestSkillDynamicChecksFrontmatter(t *testing.T) {
	t.Parallel()
	md := "---\nname: daily\ndescription: Today's report\n---\nBody\n"
	srv := &skillServer{
		skills: []messages.Skill{{URI: "skill://reports/daily/SKILL.md", Frontmatter: map[string]any{"name": "daily", "description": "Today's report"}, Dynamic: true}},
		files:  map[string]string{"skill://reports/daily/SKILL.md": md, "skill://reports/daily/data.md": "data"},
	}
	c := connectSkills(t, srv)
	skills, err := c.ListSkills(waitCtx(t))
	if err != nil || len(skills) != 1 || !skills[0].Dynamic {
		t.Fatalf("ListSkills = %+v, %v: want one dynamic skill", skills, err)
	}
	if body, err := c.ReadSkill(waitCtx(t), &skills[0]); err != nil || string(body) != md {
		t.Fatalf("ReadSkill = %q, %v", body, err)
	}
	if data, err := c.ReadSkillFile(waitCtx(t), &skills[0], "data.md"); err != nil || string(data) != "data" {
		t.Fatalf("ReadSkillFile = %q, %v", data, err)
	}
	skills[0].Frontmatter["description"] = "something else"
	_, err = c.ReadSkill(waitCtx(t), &skills[0])
	var v *mcpactor.Error
	if !(errors.As(err, &v) && callerr.InvalidResult(v) == v) || v.Check != messages.SkillCheckFrontmatter {
		t.Fatalf("ReadSkill with another description: %v, want the frontmatter check failed", err)
	}
}

// TestSkillsNeedTheExtension: a server that does not declare the
// extension is sent no skills/ request.
func TestSkillsNeedTheExtension(t *testing.T) {
	t.Parallel()
	srv := pdfServer(pdfMD)
	srv.undecl = true
	c := connectSkills(t, srv)
	_, err := c.ListSkills(waitCtx(t))
	var nd *mcpactor.Error
	if !errors.Is(err, mcpactor.ErrUnsupported) || !(errors.As(err, &nd) && errors.Is(nd, mcpactor.ErrUnsupported)) || nd.Extension != messages.SkillsExtension {
		t.Fatalf("ListSkills = %v, want ErrUnsupported naming the extension", err)
	}
	if _, err := c.GetSkill(waitCtx(t), "skill://pdf-processing/SKILL.md"); !errors.Is(err, mcpactor.ErrUnsupported) {
		t.Errorf("GetSkill = %v, want ErrUnsupported", err)
	}
	if methods, _ := srv.sent(); slices.ContainsFunc(methods, func(m string) bool { return strings.HasPrefix(m, "skills/") }) {
		t.Errorf("methods %q: a skills/ request was sent", methods)
	}
}

// TestSkillEntryDecoding: resources decode as an array or "dynamic"; any
// other value (or none) leaves the entry unloadable rather than failing
// the listing it is in, and an entry encodes back as it came.
func TestSkillEntryDecoding(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"uri":"skill://a/SKILL.md","frontmatter":{"description":"d","name":"a"},"resources":"dynamic"}`:                                                   "dynamic",
		`{"uri":"skill://a/SKILL.md","frontmatter":{"description":"d","name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:x","size":3}]}`: "array",
		`{"uri":"skill://a/SKILL.md","frontmatter":{"description":"d","name":"a"}}`:                                                                         "unset",
		`{"uri":"skill://a/SKILL.md","frontmatter":{"description":"d","name":"a"},"resources":"static"}`:                                                    "unset",
		`{"uri":"skill://a/SKILL.md","frontmatter":{"description":"d","name":"a"},"resources":[{"uri":1}]}`:                                                 "unset",
	} {
		var s messages.Skill
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got := "unset"
		switch {
		case s.Dynamic:
			got = "dynamic"
		case s.Resources != nil:
			got = "array"
		}
		if got != want {
			t.Errorf("%s: decoded as %s, want %s", raw, got, want)
		}
		if want == "unset" {
			continue
		}
		again, err := json.Marshal(s)
		if err != nil || string(again) != raw {
			t.Errorf("re-encoded as %s, %v; want %s", again, err, raw)
		}
	}
}
