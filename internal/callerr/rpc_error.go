package callerr

import (
	"encoding/json"
	"strings"

	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

// RPCError is a JSON-RPC error response to one of our requests: the
// server's own code, message and data, with the server, method and id it
// answered.
type RPCError struct {
	Server  string
	Method  string
	ID      messages.ID
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error reads `MCP server "<name>": <method> (id <id>): MCP error <code>:
// <message>`, each part of the prefix only when known.
func (e *RPCError) Error() string {
	var b strings.Builder
	writeRequestPrefix(&b, e.Server, e.Method, e.ID)
	b.WriteString((&messages.Error{Code: e.Code, Message: e.Message}).Error())
	return b.String()
}

// Is makes errors.Is(err, mcpactor.ErrRPC) true.
func (e *RPCError) Is(target error) bool { return target == errkind.ErrRPC }
