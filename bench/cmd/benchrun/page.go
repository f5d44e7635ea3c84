package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/docpage"
	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// The page's generated blocks are delimited by markers, one pair per
// step and one for each of the runner's own blocks:
//
//	<!-- benchrun:NAME -->
//	...written by benchrun...
//	<!-- /benchrun:NAME -->
func beginMarker(name string) string { b, _ := docpage.Markers("benchrun", name); return b }
func endMarker(name string) string   { _, e := docpage.Markers("benchrun", name); return e }

// replaceBlock replaces the block name of the page text with body
// (docpage.Replace).
func replaceBlock(text, name, body string) (string, error) {
	return docpage.Replace(text, "benchrun", name, body)
}

// The runner's own blocks.
const (
	blockRun     = "run"
	blockTargets = "targets"
	blockCharts  = "charts"
)

// resultsFile holds every step's results beside the charts, so that a
// run of some steps (-only) recomputes the targets and charts from the
// others' last results.
const resultsFile = "results.json"

// suite is the results of every step, by step name.
type suite map[string][]measure.Result

// writePage merges this run's outputs into the saved results, and writes
// the page's blocks, the charts and the results.
func writePage(cfg *config, outs map[string]output, command string) error {
	page, err := os.ReadFile(cfg.docs)
	if err != nil {
		return err
	}
	all, err := loadSuite(filepath.Join(cfg.charts, resultsFile))
	if err != nil {
		return err
	}
	text := string(page)
	for name, o := range outs {
		all[name] = o.results
		if text, err = replaceBlock(text, name, o.report); err != nil {
			return err
		}
	}
	// A run of no step (-judge) measured nothing: the run block still
	// says which run did.
	if len(outs) > 0 {
		if text, err = replaceBlock(text, blockRun, runBlock(command, outs)); err != nil {
			return err
		}
	}
	if text, err = replaceBlock(text, blockTargets, targetsBlock(all)); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.charts, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(cfg.docs), cfg.charts)
	if err != nil {
		return err
	}
	charts := drawCharts(all)
	var links strings.Builder
	for _, c := range charts {
		if err := os.WriteFile(filepath.Join(cfg.charts, c.file), []byte(c.svg), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&links, "![%s](%s)\n\n", c.title, filepath.ToSlash(filepath.Join(rel, c.file)))
	}
	if text, err = replaceBlock(text, blockCharts, links.String()); err != nil {
		return err
	}
	if err := saveSuite(filepath.Join(cfg.charts, resultsFile), all); err != nil {
		return err
	}
	return os.WriteFile(cfg.docs, []byte(text), 0o644)
}

// runBlock says how and on what this run measured.
func runBlock(command string, outs map[string]output) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Last written by `%s` (steps run:", command)
	for _, s := range steps {
		if _, ok := outs[s.name]; ok {
			fmt.Fprintf(&b, " %s", s.name)
		}
	}
	b.WriteString("); each step's block below names its own command, date, machine and commit.\n")
	measure.WriteRunInfo(&b, "benchrun")
	return b.String()
}

func loadSuite(path string) (suite, error) {
	all := suite{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return all, nil
}

func saveSuite(path string, all suite) error {
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
