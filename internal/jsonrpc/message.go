package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
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
	ID     messages.ID     // requests and responses
	Method string          // requests and notifications
	Params json.RawMessage // requests and notifications; may be nil
	Result json.RawMessage // successful responses
	Error  *messages.Error // failed responses
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
		return nil, nil, fmt.Errorf("%w: empty batch", messages.ErrNotJSONRPC)
	}
	msgs = make([]Message, len(raws))
	errs = make([]error, len(raws))
	for i, raw := range raws {
		msgs[i], errs[i] = DecodeMessage(raw)
	}
	return msgs, errs, nil
}

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
	b = rawjson.AppendString(b, method)
	b = append(b, `,"params":`...)
	if len(params) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, params...)
	}
	return append(b, '}')
}

// AppendResult appends a successful response to the request id.
func AppendResult(b []byte, id messages.ID, result json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"result":`...)
	if len(result) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, result...)
	}
	return append(b, '}')
}

// AppendError appends an error response to the request id.
func AppendError(b []byte, id messages.ID, e *messages.Error) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"error":`...)
	enc, err := json.Marshal(e)
	if err != nil { // only a Data that is not valid JSON gets here
		enc, _ = json.Marshal(&messages.Error{Code: e.Code, Message: e.Message})
	}
	b = append(b, enc...)
	return append(b, '}')
}

// appendID appends the id as messages.ID.MarshalJSON encodes it: a JSON
// number or string, null when invalid.
func appendID(b []byte, id messages.ID) []byte {
	switch {
	case !id.IsValid():
		return append(b, "null"...)
	case id.IsString():
		return rawjson.AppendString(b, id.String())
	}
	n, _ := id.Int64()
	return strconv.AppendInt(b, n, 10)
}
