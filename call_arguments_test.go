package mcpactor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestCallToolRefusesNonObjectArguments checks that arguments that are
// not a JSON object are refused locally, with an error naming the server
// and the tool, that the server receives none of them, and that the
// connection is unharmed.
func TestCallToolRefusesNonObjectArguments(t *testing.T) {
	t.Parallel()
	fake := &mcptest.Server{Tools: []mcptest.Tool{{Name: "echo", Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
		return &messages.CallToolResult{Content: []messages.Content{messages.TextContent("fine")}}, nil
	}}}}
	rt := startRuntime(t, mcpactor.Options{})
	t.Cleanup(fake.Close) // after the runtime's Stop: cleanups run last first
	c, err := rt.Connect(waitCtx(t), "args", fake.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []any{[]int{1, 2}, "text", 42, true, json.RawMessage(` [1]`), json.RawMessage(`null`)} {
		_, err := c.CallTool(waitCtx(t), "echo", args)
		var ae *mcpactor.Error
		if !errors.Is(err, mcpactor.ErrInvalidArguments) || !(errors.As(err, &ae) && errors.Is(ae, mcpactor.ErrInvalidArguments)) || ae.Server != "args" || ae.Tool != "echo" ||
			!strings.Contains(err.Error(), `"args"`) || !strings.Contains(err.Error(), `"echo"`) {
			t.Errorf("CallTool(echo, %#v): %v, want an ErrInvalidArguments error naming the server and the tool", args, err)
		}
	}
	if st := c.Stats(); st.Malformed != 0 || st.BadResponses != 0 {
		t.Errorf("stats %+v after refused calls", st)
	}
	callOK(t, c, "echo", map[string]any{"message": "fine"})
	if calls := fake.Calls(); len(calls) != 1 || string(calls[0].Arguments) != `{"message":"fine"}` {
		t.Errorf("the server received %+v, want the one valid call", calls)
	}
}
