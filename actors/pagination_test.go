package actors_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

func toolNames(tools []messages.Tool) []string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestListToolsFollowsPages(t *testing.T) {
	whole := connect(t, testserver.Options{}, actors.Env{}, nil)
	all, err := whole.c.ListTools(harness.Context(t))
	if err != nil || len(all) < 10 {
		t.Fatalf("one page: %d tools, %v", len(all), err)
	}
	paged := connect(t, testserver.Options{PageSize: 3}, actors.Env{}, nil)
	got, err := paged.c.ListTools(harness.Context(t))
	if err != nil || !slices.Equal(toolNames(got), toolNames(all)) {
		t.Fatalf("pages of 3: %v, %v; want %v", toolNames(got), err, toolNames(all))
	}
	// As the manager lists them: the pages gathered into one slice.
	if got, _, err := paged.c.ListToolsWithHints(harness.Context(t)); err != nil || !slices.Equal(toolNames(got), toolNames(all)) {
		t.Fatalf("ListToolsWithHints, pages of 3: %v, %v; want %v", toolNames(got), err, toolNames(all))
	}
	// The iterator yields the same, and can be left early.
	var names []string
	for tool, err := range paged.c.Tools(harness.Context(t)) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, toolNames(all)) {
		t.Errorf("iterator: %v", names)
	}
	n := 0
	for _, err := range paged.c.Tools(harness.Context(t)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 4 { // into the second page
			break
		}
	}
	// Other listings page the same way.
	if res, err := paged.c.ListResources(harness.Context(t)); err != nil || len(res) == 0 {
		t.Errorf("resources: %d, %v", len(res), err)
	}
	if prompts, err := paged.c.ListPrompts(harness.Context(t)); err != nil || len(prompts) == 0 {
		t.Errorf("prompts: %d, %v", len(prompts), err)
	}
}

func TestEndlessCursorStops(t *testing.T) {
	// Every page names the same next cursor: the listing stops at the
	// repeat, keeps what it read, and says why.
	s := connect(t, testserver.Options{EndlessCursor: true, PageSize: 5}, actors.Env{}, nil)
	got, err := s.c.ListTools(harness.Context(t))
	var pe *callerr.Error
	if !(errors.As(err, &pe) && errors.Is(pe, errkind.ErrBadResponse)) || pe.Method != messages.MethodToolsList || pe.Server != "ts" || pe.Pages != 2 {
		t.Fatalf("got %v", err)
	}
	if len(got) != 10 {
		t.Errorf("%d tools read before the repeat, want 2 pages of 5", len(got))
	}
	if got, _, err := s.c.ListToolsWithHints(harness.Context(t)); !errors.As(err, &pe) || len(got) != 10 {
		t.Errorf("ListToolsWithHints: %d tools, %v; want 2 pages of 5 and the repeat", len(got), err)
	}
	var items int
	var last error
	for _, err := range s.c.Tools(harness.Context(t)) {
		if err != nil {
			last = err
			continue
		}
		items++
	}
	if !(errors.As(last, &pe) && errors.Is(pe, errkind.ErrBadResponse)) || items != 10 {
		t.Errorf("iterator: %d items, then %v", items, last)
	}
}

func TestToolWithoutInputSchemaStillLists(t *testing.T) {
	s := connect(t, testserver.Options{ToolWithoutSchema: true}, actors.Env{}, nil)
	tools, err := s.c.ListTools(harness.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools, func(tl messages.Tool) bool { return tl.Name == "no-schema" })
	if i < 0 || tools[i].InputSchema != nil || len(tools) < 2 {
		t.Fatalf("tools %v", toolNames(tools))
	}
	if res, err := s.c.CallTool(harness.Context(t), "no-schema", nil); err != nil || text(t, res) != "no schema" {
		t.Errorf("call: %+v, %v", res, err)
	}
}
