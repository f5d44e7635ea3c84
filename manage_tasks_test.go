package mcpactor_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

// TestManagerTasks: a manager starts, lists, awaits and cancels tasks
// across two servers of both eras by exposed tool name and TaskRef; a
// TaskRef kept as JSON is all a later wait needs, and a wait outlives a
// restart of its server's connection.
func TestManagerTasks(t *testing.T) {
	node, script := peers.ServerEverything(t)
	fake := taskServer()
	h := fake.StartHTTP()
	t.Cleanup(func() { h.Close(); fake.Close() })
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop(context.Background()) })
	ctx := taskCtx(t)
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{
		"everything": {Command: node, Args: []string{script, "stdio"}},
		"modern":     h.Config(),
	}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}

	research, _, err := m.StartToolTask(ctx, "mcp__everything__simulate-research-query", map[string]any{"topic": "managers"}, mcpactor.CallOptions{})
	if err != nil || research == nil || research.Server != "everything" {
		t.Fatalf("StartToolTask(everything) = %+v, %v", research, err)
	}
	slow, _, err := m.StartToolTask(ctx, "mcp__modern__slow", nil, mcpactor.CallOptions{})
	if err != nil || slow == nil || slow.Server != "modern" {
		t.Fatalf("StartToolTask(modern) = %+v, %v", slow, err)
	}
	forever, _, err := m.StartToolTask(ctx, "mcp__modern__forever", nil, mcpactor.CallOptions{})
	if err != nil || forever == nil {
		t.Fatalf("StartToolTask(forever) = %+v, %v", forever, err)
	}

	// Only the session-era server lists its tasks.
	list, err := m.ListTasks(ctx)
	if err != nil || !slices.ContainsFunc(list, func(x mcpactor.ServerTask) bool { return x.Server == "everything" && x.TaskID == research.ID }) {
		t.Fatalf("ListTasks = %+v, %v; want the research task", list, err)
	}

	// A reference kept as JSON awaits the task, across a restart of the
	// stateless server's connection.
	raw, err := json.Marshal(slow)
	if err != nil {
		t.Fatal(err)
	}
	var kept mcpactor.TaskRef
	if err := json.Unmarshal(raw, &kept); err != nil || kept != *slow {
		t.Fatalf("TaskRef JSON %s decoded as %+v, %v", raw, kept, err)
	}
	if err := m.Restart(ctx, "modern"); err != nil {
		t.Fatal(err)
	}
	res, err := m.AwaitTask(ctx, kept, nil)
	if err != nil || resultText(res) != "done slowly" {
		t.Fatalf("AwaitTask(modern) after a restart = %v, %v", res, err)
	}
	if res, err := m.AwaitTask(ctx, *research, nil); err != nil || res == nil || !strings.Contains(resultText(res), "# Research Report: managers") {
		t.Fatalf("AwaitTask(everything) = %v, %v", res, err)
	}

	if err := m.CancelTask(ctx, *forever); err != nil {
		t.Fatal(err)
	}
	_, err = m.AwaitTask(ctx, *forever, nil)
	var te *mcpactor.TaskError
	if !errors.As(err, &te) || te.Status != messages.TaskCancelled || te.Server != "modern" {
		t.Fatalf("AwaitTask after CancelTask = %v; want *TaskError cancelled", err)
	}
	if _, err := m.Task(ctx, mcpactor.TaskRef{Server: "nowhere", ID: "x"}); !errors.Is(err, mcpactor.ErrNotFound) {
		t.Errorf("Task on an unknown server = %v; want ErrUnknownServer", err)
	}
}
