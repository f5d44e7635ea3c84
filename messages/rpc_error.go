package messages

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/internal/errkind"
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

// Is makes errors.Is(err, mcpactor.ErrRPC) true.
func (e *RPCError) Is(target error) bool { return target == errkind.ErrRPC }

// writeRequestPrefix writes `MCP server "<name>": <method> (id <id>): `,
// each part only when known, before the text of an error about a request:
// a log line then says which server and which request, whoever reads it.
func writeRequestPrefix(b *strings.Builder, server, method string, id ID) {
	if server != "" {
		b.WriteString("MCP server ")
		b.WriteString(strconv.Quote(server))
		b.WriteString(": ")
	}
	if method = shownMethod(method); method == "" {
		return
	}
	b.WriteString(method)
	if id.IsValid() {
		b.WriteString(" (id ")
		b.WriteString(id.String())
		b.WriteString(")")
	}
	b.WriteString(": ")
}

// shownMethod is the method an error names: the one the user's call sent.
// The stateless protocol's server/discover is the runtime's own probe at
// connect time, which the user never asked for; an error during it names
// the server and its URL only.
func shownMethod(method string) string {
	if method == MethodServerDiscover {
		return ""
	}
	return method
}
