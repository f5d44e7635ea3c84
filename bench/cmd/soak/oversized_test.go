package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestOversizedFaultIsServerMade: the oversized fault asks the server for
// the line (a small request), and the line reaches the runtime over the
// test kinds' frame cap, where it is skipped and the connection goes on.
// The soak used to send the 6 MiB line for the server to echo: five times
// the CPU of the fault itself, on the two cores the untouched servers'
// calls share (the isolation check).
func TestOversizedFaultIsServerMade(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tool, args := oversizedCall()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 1024 {
		t.Fatalf("the fault's request is %d bytes: the soak sends the line instead of asking for it", len(raw))
	}
	if oversizedLine <= maxFrame {
		t.Fatalf("the line (%d bytes) is not over the frame cap (%d)", oversizedLine, maxFrame)
	}
	rt, err := mcpactor.Start(mcpactor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Stop(ctx)
	path, targs, _ := testserver.Command(testserver.Options{})
	cfg := mcpactor.ServerConfig{Command: path, Args: targs, Env: map[string]string{testserver.EnvChild: "1"}, MaxFrameSize: maxFrame}
	m, err := rt.Manage(ctx, mcpactor.ManageOptions{Servers: map[string]mcpactor.ServerConfig{"a": cfg}, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CallTool(ctx, "mcp__a__"+tool, json.RawMessage(raw)); err != nil {
		t.Fatalf("the fault's call: %v", err)
	}
	c, ok := m.Client("a")
	if !ok {
		t.Fatal("no client")
	}
	for c.Stats().Oversized == 0 {
		if ctx.Err() != nil {
			t.Fatal("no oversized line reached the runtime")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := m.CallTool(ctx, "mcp__a__echo", map[string]any{"message": "after"}); err != nil {
		t.Fatalf("a call after the line: %v", err)
	}
}
