package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/mcpactor/mcpactor/messages"
)

// The messages between members. protoactor's remote carries protobuf
// messages only, looked up by name in the global registry; rather than
// generating protobuf code for a handful of shapes, each message is a
// google.protobuf.BytesValue holding a tag byte and JSON. The MCP payloads
// are JSON already, so nothing is converted twice.
const (
	tagRequest  = 'q'
	tagResponse = 'r'
)

// Methods a request may name: the MCP method it runs on the owner
// (https://modelcontextprotocol.io/specification/2025-11-25/server), or
// methodInfo for the session's description.
const (
	methodCallTool      = "tools/call"
	methodListTools     = "tools/list"
	methodListResources = "resources/list"
	methodReadResource  = "resources/read"
	methodListPrompts   = "prompts/list"
	methodGetPrompt     = "prompts/get"
	methodInfo          = "cluster/info"
)

// request asks the owner of an identity to run one method.
type request struct {
	ID        uint64 `json:"id"`
	ReplyAddr string `json:"replyAddr"` // the caller's reply actor
	ReplyID   string `json:"replyId"`
	From      string `json:"from"` // the caller's member name
	Server    string `json:"server"`
	Tenant    string `json:"tenant,omitempty"`
	Method    string `json:"method"`
	// Timeout is what is left of the caller's deadline: a duration, not a
	// time, so that members' clocks need not agree.
	Timeout    time.Duration     `json:"timeout"`
	Name       string            `json:"name,omitempty"` // tool or prompt
	Args       json.RawMessage   `json:"args,omitempty"`
	URI        string            `json:"uri,omitempty"`
	PromptArgs map[string]string `json:"promptArgs,omitempty"`
	// Trace carries the caller's trace context (W3C traceparent and
	// tracestate) so that the owner's spans join the caller's trace.
	Trace map[string]string `json:"trace,omitempty"`
}

func (r *request) identity() Identity { return Identity{Server: r.Server, Tenant: r.Tenant} }

// response answers one request.
type response struct {
	ID         uint64          `json:"id"`
	Member     string          `json:"member"`               // who answered
	Generation int64           `json:"generation,omitempty"` // the owner's fencing revision
	Result     json.RawMessage `json:"result,omitempty"`
	Err        *wireError      `json:"err,omitempty"`
}

// wireError is an error crossing the hop. Kinds with a type of their own
// are rebuilt as that type (decodeError); the rest become *RemoteError.
type wireError struct {
	Kind    string          `json:"kind"`
	Message string          `json:"message"`
	Owner   string          `json:"owner,omitempty"`
	Code    int64           `json:"code,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	Method  string          `json:"method,omitempty"`
	State   string          `json:"state,omitempty"` // kindUnavailable: the server's state
}

const (
	kindRPC           = "rpc"
	kindNotOwner      = "not-owner"
	kindUnknownServer = "unknown-server"
	kindStopped       = "stopped"
	kindFenced        = "fenced"
	kindDeadline      = "deadline"
	kindUnavailable   = "unavailable"
	kindOther         = "other"
)

func encode(tag byte, v any) (*wrapperspb.BytesValue, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+1)
	out = append(out, tag)
	return wrapperspb.Bytes(append(out, b...)), nil
}

// decode reads a message; tag is 0 for one that is not ours.
func decode(msg any) (tag byte, req *request, resp *response, err error) {
	bv, ok := msg.(*wrapperspb.BytesValue)
	if !ok || len(bv.GetValue()) == 0 {
		return 0, nil, nil, nil
	}
	b := bv.GetValue()
	switch b[0] {
	case tagRequest:
		req = new(request)
		err = json.Unmarshal(b[1:], req)
	case tagResponse:
		resp = new(response)
		err = json.Unmarshal(b[1:], resp)
	default:
		return 0, nil, nil, fmt.Errorf("unknown message tag %q", b[0])
	}
	return b[0], req, resp, err
}

// encodeError turns an owner-side error into its wire form.
func encodeError(err error) *wireError {
	var rpc *messages.RPCError
	var notOwner *NotOwnerError
	var unknown *UnknownServerError
	var unavailable *messages.ServerUnavailableError
	switch {
	case errors.As(err, &notOwner):
		return &wireError{Kind: kindNotOwner, Message: notOwner.Reason, Owner: notOwner.Owner}
	case errors.As(err, &unknown):
		return &wireError{Kind: kindUnknownServer, Message: err.Error()}
	case errors.As(err, &unavailable): // before rpc: it wraps its last error
		w := &wireError{Kind: kindUnavailable, State: unavailable.State}
		if unavailable.Err != nil {
			w.Message = unavailable.Err.Error()
		}
		return w
	case errors.As(err, &rpc):
		return &wireError{Kind: kindRPC, Message: rpc.Message, Code: rpc.Code, Data: rpc.Data, Method: rpc.Method}
	case errors.Is(err, ErrStopped):
		return &wireError{Kind: kindStopped, Message: err.Error()}
	default:
		return &wireError{Kind: kindOther, Message: err.Error(), Method: fmt.Sprintf("%T", err)}
	}
}

// decodeError rebuilds the error a response carries, naming the member
// that answered and the method.
func (w *wireError) decode(id Identity, member, method string) error {
	switch w.Kind {
	case kindNotOwner:
		return &NotOwnerError{Identity: id, Member: member, Method: method, Owner: w.Owner, Reason: w.Message}
	case kindUnknownServer:
		return &UnknownServerError{Server: id.Server, Member: member, Method: method}
	case kindRPC:
		return &messages.RPCError{Server: id.String(), Method: w.Method, Code: w.Code, Message: w.Message, Data: w.Data}
	case kindUnavailable:
		// The owner's manager cannot run the server now (its breaker is
		// open, say): named by the identity, its last error as text.
		e := &messages.ServerUnavailableError{Server: id.String(), State: w.State}
		if w.Message != "" {
			e.Err = errors.New(w.Message)
		}
		return e
	case kindStopped:
		return &MemberLostError{Identity: id, Member: member, Method: method, Reason: "member stopping"}
	case kindFenced:
		return &MemberLostError{Identity: id, Member: member, Method: method, Reason: "its lease could not be renewed in time"}
	default:
		return &RemoteError{Identity: id, Member: member, Method: method, Kind: w.Method, Message: w.Message}
	}
}
