package messages

import (
	"encoding/json"
	"strings"
)

// RPCError is a JSON-RPC error response to one of our requests.
type RPCError struct {
	Server  string
	Method  string
	ID      ID
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error reads `MCP server "<name>": <method> (id <id>): MCP error <code>:
// <message>`, each part of the prefix only when known.
func (e *RPCError) Error() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, e.ID)
	b.WriteString((&Error{Code: e.Code, Message: e.Message}).Error())
	return b.String()
}

// Is makes errors.Is(err, ErrRPC) true.
func (e *RPCError) Is(target error) bool { return target == ErrRPC }
