package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcpactor/mcpactor"
)

// The skills scenarios (SEP-2640, the extension io.modelcontextprotocol/skills):
// sep-2640-client-no-prefetch lists the skills and reads nothing, as a
// host does until a skill is needed; the sep-2640-client-verify-*
// scenarios load every listed skill (its SKILL.md, verified against the
// entry), and read the supporting files only of a skill that passed.

// listSkills lists the server's skills and nothing else.
func listSkills(ctx context.Context, c *mcpactor.Client) error {
	skills, err := c.ListSkills(ctx)
	if err != nil {
		return fmt.Errorf("skills/list: %w", err)
	}
	fmt.Fprintf(os.Stderr, "%d skills listed, none read\n", len(skills))
	return nil
}

// loadSkills loads each listed skill, then reads its other files. A skill
// that fails its verification is refused, as the scenario expects, and
// none of its files is read: that is this program doing its part.
func loadSkills(ctx context.Context, c *mcpactor.Client) error {
	skills, err := c.ListSkills(ctx)
	if err != nil {
		return fmt.Errorf("skills/list: %w", err)
	}
	for i := range skills {
		s := &skills[i]
		if _, err := c.ReadSkill(ctx, s); err != nil {
			var v *mcpactor.Error
			if errors.As(err, &v) && v.Check != "" {
				fmt.Fprintf(os.Stderr, "refused: %v\n", err)
				continue
			}
			return fmt.Errorf("loading %s: %w", s.URI, err)
		}
		for _, r := range s.Resources {
			if r.URI == s.URI {
				continue
			}
			if _, err := c.ReadSkillFile(ctx, s, r.URI); err != nil {
				return fmt.Errorf("reading %s: %w", r.URI, err)
			}
		}
	}
	return nil
}
