package messages

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

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
// id (https://www.jsonrpc.org/specification#error_object). The decoder
// wraps it together with ErrNotJSONRPC.
var ErrInvalidRequestID = errors.New("invalid request id")
