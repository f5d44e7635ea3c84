package messages

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind tells the three JSON-RPC 2.0 message shapes apart.
type Kind uint8

// The message kinds. KindInvalid is never returned with a nil error.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Message is one decoded JSON-RPC 2.0 message. Params and Result stay raw so
// that the decoding of the MCP payload happens in the goroutine that asked for
// it, not in the reader or the transport actor.
type Message struct {
	ID     ID              // requests and responses
	Method string          // requests and notifications
	Params json.RawMessage // requests and notifications; may be nil
	Result json.RawMessage // successful responses
	Error  *Error          // failed responses
}

// Kind reports which of the three shapes m is.
func (m *Message) Kind() Kind {
	switch {
	case m.Method != "" && m.ID.IsValid():
		return KindRequest
	case m.Method != "":
		return KindNotification
	case m.Result != nil || m.Error != nil:
		return KindResponse
	}
	return KindInvalid
}

// ErrNotJSONRPC wraps every reason a syntactically valid JSON value is not a
// JSON-RPC 2.0 message.
var ErrNotJSONRPC = errors.New("not a JSON-RPC 2.0 message")

// ErrInvalidRequestID marks a message with a method (a server's request)
// whose "id" member is null, an object, an array, a boolean or a number not
// written as an integer. JSON-RPC 2.0 §4 allows only strings, numbers and
// null (and says numbers SHOULD NOT have fractions), MCP forbids null
// (https://modelcontextprotocol.io/specification/2025-11-25/basic#requests),
// and a notification has no id member at all, so such a message is neither:
// JSON-RPC 2.0 §5 has it answered with Invalid Request (-32600) and a null
// id (https://www.jsonrpc.org/specification#error_object). DecodeMessage
// wraps it together with ErrNotJSONRPC.
var ErrInvalidRequestID = errors.New("invalid request id")

// IsBatch reports whether data is a JSON array, i.e. a JSON-RPC batch.
func IsBatch(data []byte) bool {
	// A loop, not bytes.TrimLeft: this runs for every frame read, and
	// TrimLeft builds its set of characters on every call.
	for _, c := range data {
		if !isJSONSpace(c) {
			return c == '['
		}
	}
	return false
}

// DecodeBatch decodes a JSON-RPC batch (JSON-RPC 2.0 §6; MCP 2025-03-26 only).
// Each element is decoded on its own: one bad element yields its error in
// errs at the same index and does not spoil the others.
func DecodeBatch(data []byte) (msgs []Message, errs []error, err error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, nil, err
	}
	if len(raws) == 0 {
		return nil, nil, fmt.Errorf("%w: empty batch", ErrNotJSONRPC)
	}
	msgs = make([]Message, len(raws))
	errs = make([]error, len(raws))
	for i, raw := range raws {
		msgs[i], errs[i] = DecodeMessage(raw)
	}
	return msgs, errs, nil
}

// Error is the error object of a JSON-RPC response (JSON-RPC 2.0 §5.1).
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error formats the error as the reference system does: "MCP error <code>: <message>".
// A message that already starts so (servers built on the TypeScript SDK
// send their errors formatted this way) is not prefixed a second time.
func (e *Error) Error() string {
	prefix := "MCP error " + strconv.FormatInt(e.Code, 10) + ": "
	if strings.HasPrefix(e.Message, prefix) {
		return e.Message
	}
	return prefix + e.Message
}

// JSON-RPC 2.0 error codes (§5.1) and the ones MCP adds.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeResourceNotFound: server/resources "Error Handling".
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired: client/elicitation, URL mode (2025-11-25).
	CodeURLElicitationRequired = -32042
)

// AppendRequest appends the encoding of a request to b. params must be a
// valid JSON object (or nil, which is sent as {}: MCP requests always carry
// params). Building the frame by appending avoids a reflective Marshal of the
// envelope on the hot path.
func AppendRequest(b []byte, id int64, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	return appendMethodParams(b, method, params)
}

// AppendNotification appends the encoding of a notification to b.
func AppendNotification(b []byte, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	return appendMethodParams(b, method, params)
}

func appendMethodParams(b []byte, method string, params json.RawMessage) []byte {
	b = append(b, `,"method":`...)
	b = appendString(b, method)
	b = append(b, `,"params":`...)
	if len(params) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, params...)
	}
	return append(b, '}')
}

// AppendResult appends a successful response to the request id.
func AppendResult(b []byte, id ID, result json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.appendJSON(b)
	b = append(b, `,"result":`...)
	if len(result) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, result...)
	}
	return append(b, '}')
}

// AppendError appends an error response to the request id.
func AppendError(b []byte, id ID, e *Error) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.appendJSON(b)
	b = append(b, `,"error":`...)
	enc, err := json.Marshal(e)
	if err != nil { // only a Data that is not valid JSON gets here
		enc, _ = json.Marshal(&Error{Code: e.Code, Message: e.Message})
	}
	b = append(b, enc...)
	return append(b, '}')
}

// appendString appends s as a JSON string. Plain ASCII (every MCP method
// name) takes the fast path; anything else goes through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		// Anything encoding/json would escape (including its HTML-safe
		// '<', '>', '&') takes the slow path, so the output is the same.
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			return appendStringSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendStringSlow is appendString's encoding/json path, a frame of its
// own: inlined, its call's temporaries would make every appendString's
// frame, on the way of every tools/call's name and arguments, three times
// as large.
//
//go:noinline
func appendStringSlow(b []byte, s string) []byte {
	enc, _ := json.Marshal(s)
	return append(b, enc...)
}
