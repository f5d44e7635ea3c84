package mcpactor_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestCallToolRefusesNonObjectArguments checks that arguments that are
// not a JSON object are refused locally, with an error naming the server
// and the tool, and that the connection is unharmed.
func TestCallToolRefusesNonObjectArguments(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "args", testServerConfig(testserver.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []any{[]int{1, 2}, "text", 42, true, json.RawMessage(` [1]`), json.RawMessage(`null`)} {
		_, err := c.CallTool(waitCtx(t), "echo", args)
		var ae *mcpactor.ArgumentsError
		if !errors.Is(err, mcpactor.ErrInvalidArguments) || !errors.As(err, &ae) || ae.Server != "args" || ae.Tool != "echo" ||
			!strings.Contains(err.Error(), `"args"`) || !strings.Contains(err.Error(), `"echo"`) {
			t.Errorf("CallTool(echo, %#v): %v, want an *ArgumentsError naming the server and the tool", args, err)
		}
	}
	if st := c.Stats(); st.Malformed != 0 || st.BadResponses != 0 {
		t.Errorf("stats %+v after refused calls", st)
	}
	callOK(t, c, "echo", map[string]any{"message": "fine"})
}
