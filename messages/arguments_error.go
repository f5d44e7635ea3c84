package messages

import "strconv"

// ArgumentsError refuses a request whose arguments cannot be sent, before
// anything is sent: a tools/call's arguments that do not encode as a JSON
// object (the protocol has them be one,
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools,
// and a server would refuse them anyway, less clearly), or arguments
// (a tool call's, its _meta, a method's params) that do not encode as
// JSON at all (a channel, a function, a cycle), as Err says.
type ArgumentsError struct {
	Server string
	Method string // set when the arguments are not a tool call's
	Tool   string
	Got    string // what they encode as: "a JSON array", "a JSON string", ...
	Err    error  // why they do not encode, when they do not
}

// Error reads `MCP server "<server>": tool "<tool>": arguments must be a
// JSON object, not <got> (nothing was sent)`, or says that the arguments
// (a method's params, when Method is set) cannot be encoded as JSON and
// why; the server prefix only when known.
func (e *ArgumentsError) Error() string {
	var s string
	switch {
	case e.Err != nil && e.Tool != "":
		s = "tool " + strconv.Quote(e.Tool) + ": arguments cannot be encoded as JSON (nothing was sent): " + e.Err.Error()
	case e.Err != nil:
		s = e.Method + ": params cannot be encoded as JSON (nothing was sent): " + e.Err.Error()
	default:
		s = "tool " + strconv.Quote(e.Tool) + ": arguments must be a JSON object, not " + e.Got + " (nothing was sent)"
	}
	if e.Server != "" {
		s = "MCP server " + strconv.Quote(e.Server) + ": " + s
	}
	return s
}

// Unwrap returns why the arguments do not encode (a
// *json.UnsupportedTypeError, ...), if that is the problem.
func (e *ArgumentsError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalidArguments) true.
func (e *ArgumentsError) Is(target error) bool { return target == ErrInvalidArguments }
