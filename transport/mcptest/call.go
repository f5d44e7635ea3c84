package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// Call is one tools/call being answered by a Tool's Handler: what the
// client sent, and the way back to it before the answer. Everything a
// Call sends travels on the call's own stream (stdio, or the call's SSE
// answer over HTTP), so it reaches the client before the answer does.
type Call struct {
	c *testserver.Call
}

// Name is the tool's name.
func (c *Call) Name() string { return c.c.Name() }

// Arguments are the call's arguments as the client sent them; nil when
// it sent none.
func (c *Call) Arguments() json.RawMessage { return c.c.Arguments() }

// Bind decodes the arguments into v (a pointer, as for json.Unmarshal);
// absent arguments leave v as it is.
func (c *Call) Bind(v any) error {
	args := c.c.Arguments()
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	return json.Unmarshal(args, v)
}

// Meta is the call's params._meta as the client sent it (progress token,
// trace context, ...); nil when it sent none.
func (c *Call) Meta() json.RawMessage { return c.c.Meta() }

// Progress sends notifications/progress for the call's progress token and
// reports whether it could: a client asks for progress by sending a token
// (mcpactor.CallOptions.OnProgress), and a call without one gets none
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress).
// total <= 0 and an empty message are left out.
func (c *Call) Progress(progress, total float64, message string) bool {
	return c.c.Progress(progress, total, message)
}

// Notify sends the client a notification: notifications/tools/list_changed,
// notifications/resources/updated and the like. params is encoded as
// JSON; nil sends none.
func (c *Call) Notify(method string, params any) error {
	raw, err := encodeParams(params)
	if err != nil {
		return err
	}
	c.c.Notify(method, raw)
	return nil
}

// SendRaw writes each line on the call's stream verbatim, as one message
// of its own (over HTTP, an event of the call's stream): what no encoder
// would send, such as a line that is not JSON, or a response to an id
// never sent. An mcpactor client skips what is not a message it
// expects, counts it (Client.Stats) and logs an excerpt at debug level;
// the call goes on. A line must not hold a newline.
func (c *Call) SendRaw(lines ...string) {
	raw := make([][]byte, len(lines))
	for i, l := range lines {
		raw[i] = []byte(l)
	}
	c.c.SendRaw(raw...)
}

// Stderr is the server's standard error: a Stdio child's goes to the
// client, which hands it to mcpactor.Options.StderrLine line by line and
// quotes its end in a crash's error; in this process (InProcess, Dial,
// StartHTTP) it is kept in Server.Stderr.
func (c *Call) Stderr() io.Writer { return c.c.Stderr() }

// Log sends notifications/message, a log message at level from logger
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).
// The server sends it whatever level the client set: level filtering is
// the client's business here.
func (c *Call) Log(level messages.LoggingLevel, logger string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return c.Notify("notifications/message", messages.LoggingMessageParams{Level: level, Logger: logger, Data: raw})
}

// Ask sends the client a request and decodes its result into result
// (nil discards it). The client's JSON-RPC error comes back as an
// *RPCError (a client without a handler for method answers -32601); ctx
// ending first returns ctx's error. CreateMessage, Elicit and ListRoots
// are its typed forms.
func (c *Call) Ask(ctx context.Context, method string, params, result any) error {
	raw, err := encodeParams(params)
	if err != nil {
		return err
	}
	res, err := c.c.Ask(ctx, method, raw)
	var rpcErr *testserver.RPCError
	if errors.As(err, &rpcErr) {
		return &RPCError{Code: rpcErr.Code, Message: rpcErr.Message, Data: rpcErr.Data}
	}
	if err != nil || result == nil {
		return err
	}
	return json.Unmarshal(res, result)
}

// CreateMessage asks the client to sample its language model
// (sampling/createMessage,
// https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
func (c *Call) CreateMessage(ctx context.Context, p messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
	var res messages.CreateMessageResult
	if err := c.Ask(ctx, "sampling/createMessage", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Elicit asks the client's user for input (elicitation/create,
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).
func (c *Call) Elicit(ctx context.Context, p messages.ElicitParams) (*messages.ElicitResult, error) {
	var res messages.ElicitResult
	if err := c.Ask(ctx, "elicitation/create", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots asks the client for its roots (roots/list,
// https://modelcontextprotocol.io/specification/2025-11-25/client/roots).
func (c *Call) ListRoots(ctx context.Context) ([]messages.Root, error) {
	var res messages.ListRootsResult
	if err := c.Ask(ctx, "roots/list", struct{}{}, &res); err != nil {
		return nil, err
	}
	return res.Roots, nil
}
