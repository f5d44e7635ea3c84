package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// echoMessage is what the demo asks echo tools to say back.
const echoMessage = "hello from mcpactor"

// choice is the tool the demo calls on one server, and with what.
type choice struct {
	tool mcpactor.ManagedTool
	args map[string]any
	// echo: the answer is checked, and an isError result is a failure.
	// Other tools are the server's own business; their isError is
	// reported only.
	echo bool
}

// chooseTool picks the tool to call among one server's tools: --call's if
// given, else echo, else the first tool that needs no arguments. When there
// is none, why says so.
func chooseTool(tools []mcpactor.ManagedTool, o options) (c choice, why string) {
	if o.call != "" {
		for _, t := range tools {
			if t.Tool.Name == o.call {
				return choice{tool: t, args: argsFor(o.call, o.args), echo: o.call == "echo"}, ""
			}
		}
		return c, fmt.Sprintf("no tool named %q", o.call)
	}
	for _, t := range tools {
		if t.Tool.Name == "echo" {
			return choice{tool: t, args: argsFor("echo", nil), echo: true}, ""
		}
	}
	for _, t := range tools {
		if needsNoArguments(t.Tool.InputSchema) {
			return choice{tool: t, args: map[string]any{}}, ""
		}
	}
	return c, "no tool callable without arguments"
}

// argsFor is --args, or the echo message for echo, or no arguments.
func argsFor(tool string, given map[string]any) map[string]any {
	switch {
	case given != nil:
		return given
	case tool == "echo":
		return map[string]any{"message": echoMessage}
	}
	return map[string]any{}
}

// needsNoArguments reports an input schema that requires no property. A
// schema that cannot be read is taken to need something.
func needsNoArguments(schema json.RawMessage) bool {
	if len(schema) == 0 {
		return true // the manager gives such a tool an empty object schema
	}
	var s struct {
		Required []string `json:"required"`
	}
	return json.Unmarshal(schema, &s) == nil && len(s.Required) == 0
}

// callEach calls one tool on each ready server, one after the other so
// that the lines come in order, and returns how many calls were made and
// how many failed.
func callEach(ctx context.Context, m *mcpactor.Manager, st []mcpactor.ServerStatus, o options, r *report) (called, failed int) {
	byServer := map[string][]mcpactor.ManagedTool{}
	for _, t := range m.ListTools() {
		byServer[t.Server] = append(byServer[t.Server], t)
	}
	rows := [][]string{}
	for _, s := range st {
		if s.State != mcpactor.StateReady {
			continue
		}
		c, why := chooseTool(byServer[s.Name], o)
		if why != "" {
			rows = append(rows, []string{s.Name, "-", why + " (not counted)"})
			continue
		}
		called++
		t0 := time.Now()
		res, err := m.CallTool(ctx, c.tool.Name, c.args)
		outcome, ok := judge(c, res, err)
		if !ok {
			failed++
			outcome = "FAIL: " + outcome
		}
		rows = append(rows, []string{s.Name, c.tool.Tool.Name, outcome, time.Since(t0).Round(10 * time.Microsecond).String()})
	}
	r.table(nil, rows)
	return called, failed
}

// judge says what a call's outcome was and whether it counts as success.
func judge(c choice, res *messages.CallToolResult, err error) (string, bool) {
	switch {
	case err != nil:
		return firstLine(err.Error()), false
	case res.IsError && c.echo:
		return "isError: " + resultText(res), false
	case res.IsError:
		return "isError (the tool's own answer, not counted): " + resultText(res), true
	case c.echo && !strings.Contains(resultText(res), fmt.Sprint(c.args["message"])):
		return "wrong answer: " + resultText(res), false
	}
	return "ok: " + resultText(res), true
}

// resultText is the first line of a result's first content, kept short.
func resultText(res *messages.CallToolResult) string {
	if len(res.Content) == 0 {
		return "(no content)"
	}
	c := res.Content[0]
	if c.Type != "text" {
		return "(" + c.Type + ")"
	}
	s := firstLine(c.Text)
	if rs := []rune(s); len(rs) > 72 {
		s = string(rs[:69]) + "..."
	}
	return fmt.Sprintf("%q", s)
}
