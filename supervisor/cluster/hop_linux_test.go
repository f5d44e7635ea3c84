//go:build linux

package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
)

// TestErrorsAcrossTheHop: errors the owner's runtime and manager return
// reach a caller on another member as the same types, with the same
// fields, as a Manager on one machine returns them, naming the server as
// the user did: a tool the server does not offer is an
// an ErrNotFound *mcpactor.Error (not a result with IsError), arguments
// that are not an object an *mcpactor.Error, a JSON-RPC error
// an *mcpactor.RPCError.
func TestErrorsAcrossTheHop(t *testing.T) {
	c := newCluster(t, 1, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c.info(ctx, "alpha")
	c.eventually("alpha's listing in on its owner", func() bool {
		_, err := c.driver.CallTool(ctx, "alpha", "no_such_tool", nil)
		return callerr.UnknownTool(err) != nil
	})
	res, err := c.driver.CallTool(ctx, "alpha", "no_such_tool", map[string]any{})
	var unknown *mcpactor.Error
	if !(errors.As(err, &unknown) && callerr.UnknownTool(unknown) == unknown) || unknown.Tool != "no_such_tool" || res != nil {
		t.Errorf("unknown tool = %+v, %v; want unknown-tool error", res, err)
	}
	_, err = c.driver.CallTool(ctx, "alpha", "echo", []int{1, 2})
	var args *mcpactor.Error
	if !errors.Is(err, mcpactor.ErrInvalidArguments) || !(errors.As(err, &args) && errors.Is(args, mcpactor.ErrInvalidArguments)) || args.Server != "alpha" || args.Tool != "echo" {
		t.Errorf("arguments not an object = %v (%#v); want ErrInvalidArguments error naming alpha", err, args)
	}
	_, err = c.driver.CallTool(ctx, "alpha", "rpc-error", map[string]any{"code": -32000, "message": "refused"})
	var rpc *mcpactor.RPCError
	if !errors.Is(err, mcpactor.ErrRPC) || !errors.As(err, &rpc) || rpc.Code != -32000 || rpc.Message != "refused" || rpc.Server != "alpha" {
		t.Errorf("rpc-error = %v (%#v); want *RPCError -32000 naming alpha", err, rpc)
	}
}
