package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor"
)

// toolCall is one call a scenario asks for in MCP_CONFORMANCE_CONTEXT.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// contextToolCalls reads the toolCalls of MCP_CONFORMANCE_CONTEXT, if any.
func contextToolCalls() ([]toolCall, error) {
	raw := os.Getenv("MCP_CONFORMANCE_CONTEXT")
	if raw == "" {
		return nil, nil
	}
	var sc struct {
		ToolCalls []toolCall `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	return sc.ToolCalls, nil
}

// makeToolCalls lists the tools, as a host does before it calls one (the
// listing carries what the calls' headers are made from), then makes each
// call with its arguments as given.
func makeToolCalls(ctx context.Context, c *mcpactor.Client, calls []toolCall) error {
	if _, err := c.ListTools(ctx); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, tc := range calls {
		args := tc.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		if err := callTool(ctx, c, tc.Name, args, ""); err != nil {
			return err
		}
	}
	return nil
}

// requestState calls the tools of the multi round-trip scenario: the one
// whose input request carries state and an unrelated one at once (neither
// may see the other's state), then the one without state and the one whose
// result has no resultType.
func requestState(ctx context.Context, c *mcpactor.Client) error {
	if _, err := c.ListTools(ctx); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var wg conc.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = callTool(ctx, c, "test_mrtr_echo_state", nil, "echo-state-ok") })
	wg.Go(func() { errs[1] = callTool(ctx, c, "test_mrtr_unrelated", nil, "unrelated-ok") })
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := callTool(ctx, c, "test_mrtr_no_state", nil, "no-state-ok"); err != nil {
		return err
	}
	return callTool(ctx, c, "test_mrtr_no_result_type", nil, "no-result-type-test-ok")
}

// echoSchema sends the focal tool's inputSchema, exactly as listed, to the
// echo tool: what a host that shows or forwards a schema does.
func echoSchema(ctx context.Context, c *mcpactor.Client) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var schema json.RawMessage
	for _, t := range tools {
		if t.Name == "json_schema_2020_12_tool" {
			schema = t.InputSchema
		}
	}
	if schema == nil {
		return errors.New("no tool json_schema_2020_12_tool listed")
	}
	args, err := json.Marshal(map[string]json.RawMessage{"schema": schema})
	if err != nil {
		return err
	}
	return callTool(ctx, c, "json_schema_echo", json.RawMessage(args), "")
}
