package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// maxInputRounds bounds the rounds of one multi round-trip request.
const maxInputRounds = 10

// roundReason is the reason of the EventRetry of a round after the first.
const roundReason = "input_required: the request is sent again with the input the server asked for"

// nextRound answers a result of type rt that is not complete: for
// input_required, the body of the next round (base with the input the
// server asked for); otherwise an error.
func (c *Client) nextRound(ctx context.Context, g *generation, method, rt string, base []byte, res json.RawMessage, round int) ([]byte, error) {
	switch rt {
	case messages.ResultTypeInputRequired:
		if !inputRequests(method) {
			return nil, callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: method, Cause: errors.New("input_required is not allowed for " + method), Body: snippet(res)})
		}
		if round >= maxInputRounds {
			return nil, callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: method, Cause: fmt.Errorf("still asking for input after %d rounds", round), Body: snippet(res)})
		}
		more, err := c.fulfil(ctx, g.sess.peer, res)
		if err != nil {
			return nil, err
		}
		return withMembers(base, more), nil
	default:
		return nil, callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: method, Cause: fmt.Errorf("unknown resultType %q", rt), Body: snippet(res)})
	}
}

// inputRequests reports whether method may answer input_required
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
func inputRequests(method string) bool {
	switch method {
	case messages.MethodToolsCall, messages.MethodPromptsGet, messages.MethodResourcesRead:
		return true
	}
	return false
}

// fulfil answers the input requests of an input_required result with the
// same handlers that answer session-protocol server requests, each under an
// INTERNAL span describing the server as peer, and returns the
// members the retry adds to the original params: inputResponses and, when
// the server gave one, requestState, byte for byte as it came (never
// invented when absent).
func (c *Client) fulfil(ctx context.Context, peer telemetry.Peer, res json.RawMessage) ([]byte, error) {
	var ir struct {
		InputRequests map[string]messages.InputRequest `json:"inputRequests"`
		RequestState  json.RawMessage                  `json:"requestState"`
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		return nil, callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: "input_required", Cause: err, Body: snippet(res)})
	}
	responses := make(map[string]json.RawMessage, len(ir.InputRequests))
	for key, req := range ir.InputRequests {
		run := handlerFor(&c.handlers, c.name, req.Method)
		if run == nil {
			return nil, callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: req.Method, Cause: errors.New("the server asked for input no handler answers"), Body: snippet(res)})
		}
		ictx, iop := c.tel.StartInternal(ctx, &telemetry.Request{Peer: peer, Method: req.Method})
		var result json.RawMessage
		var rpcErr *messages.Error
		if !c.callbacks.enter() {
			iop.End(errClientStopped, false)
			return nil, callerr.NewTransportClosed(&callerr.Error{Server: c.name, Closed: true})
		}
		var failure error
		result, rpcErr, failure = runHandler(ictx, run, transport.InboundRequest{Method: req.Method, Params: req.Params}, c.logger(), c.name, &c.panicked)
		c.callbacks.exit()
		if failure != nil {
			iop.End(failure, false)
		} else {
			iop.End(errOrNil(rpcErr), false)
		}
		if rpcErr != nil {
			// The input is not sent: the call ends here, and its caller
			// is the program whose handler failed, which reads why.
			msg := rpcErr.Message
			if failure != nil {
				msg = failure.Error()
			}
			return nil, &callerr.RPCError{Server: c.name, Method: req.Method, Code: rpcErr.Code, Message: msg, Data: rpcErr.Data}
		}
		responses[key] = result
	}
	enc, err := json.Marshal(responses)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`"inputResponses":`), enc...)
	if len(ir.RequestState) > 0 && string(ir.RequestState) != "null" {
		b = append(b, `,"requestState":`...)
		b = append(b, ir.RequestState...)
	}
	return b, nil
}

// withMembers adds members (the inside of an object) to the top level of
// params, which our own encoding made a JSON object.
func withMembers(params, members []byte) []byte {
	end := len(params) - 1
	for end > 0 && params[end] != '}' {
		end--
	}
	out := make([]byte, 0, len(params)+len(members)+1)
	out = append(out, params[:end]...)
	if inner := params[1:end]; len(trimSpace(inner)) > 0 {
		out = append(out, ',')
	}
	out = append(out, members...)
	return append(out, params[end:]...)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
