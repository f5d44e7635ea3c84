package messages

import (
	"fmt"
	"strconv"
	"strings"
)

// Is makes errors.Is(err, ErrInvalidResult) true.
func (e *InvalidResultError) Is(target error) bool { return target == ErrInvalidResult }

// Is makes errors.Is(err, ErrPagination) true.
func (e *PaginationError) Is(target error) bool { return target == ErrPagination }

// Is makes errors.Is(err, ErrConfig) true.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Is makes errors.Is(err, ErrIncompleteClose) true.
func (e *IncompleteCloseError) Is(target error) bool { return target == ErrIncompleteClose }

// Is makes errors.Is(err, ErrReplaced) true.
func (e *ReplacedError) Is(target error) bool { return target == ErrReplaced }

// ConfigError lists what is wrong with a server configuration, in the
// words users of other MCP clients know.
type ConfigError struct {
	Server   string
	Problems []string
}

// Error lists the problems, separated by "; ".
func (e *ConfigError) Error() string { return strings.Join(e.Problems, "; ") }

// FallbackError reports an http server that neither transport could reach:
// the Streamable HTTP POST was answered as a legacy server would answer it
// (400, 404 or 405), and the legacy HTTP+SSE transport tried next failed
// too (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility).
// A URL that is simply wrong fails both ways; both answers are kept, and
// errors.Is/As see each.
type FallbackError struct {
	Server     string
	URL        string // credentials masked
	Streamable error  // the Streamable HTTP attempt's failure
	Legacy     error  // the legacy HTTP+SSE attempt's failure
}

// Error reads "<the legacy attempt's error> (as legacy HTTP+SSE, after
// Streamable HTTP failed: <its error>)": each names the server and the URL
// (credentials masked) itself.
func (e *FallbackError) Error() string {
	return e.Legacy.Error() + " (as legacy HTTP+SSE, after Streamable HTTP failed: " + e.Streamable.Error() + ")"
}

// Unwrap returns both failures, the legacy one first: it is the last word.
func (e *FallbackError) Unwrap() []error { return []error{e.Legacy, e.Streamable} }

// PaginationError reports a listing that was cut short: the server repeated
// a cursor, or the page limit was reached. The items read so far are still
// returned alongside it.
type PaginationError struct {
	Server string
	Method string
	Cursor string
	Pages  int
	Reason string
}

// Error reads `MCP server "<server>": <method> stopped after <n> pages:
// <reason>`.
func (e *PaginationError) Error() string {
	return fmt.Sprintf("MCP server %q: %s stopped after %d pages: %s", e.Server, e.Method, e.Pages, e.Reason)
}

// ReplacedError is the cause given to the calls of a generation that was
// replaced by a newer one (Client.Reconnect, a repair) while they waited.
type ReplacedError struct {
	Server     string
	Generation uint64 // the generation that was replaced
	Next       uint64 // the one that replaced it
}

// Error reads `MCP server "<server>": connection replaced by a new one
// (generation <next>)`.
func (e *ReplacedError) Error() string {
	return "MCP server " + strconv.Quote(e.Server) + ": connection replaced by a new one (generation " + strconv.FormatUint(e.Next, 10) + ")"
}

// IncompleteCloseError reports a Close whose context ended before the
// teardown did. The server has been killed; what remains (reaping it,
// abandoned callbacks) goes on without the caller.
type IncompleteCloseError struct {
	Server string
	Err    error // the context's cause
}

// Error reads `mcpactor: close of MCP server "<server>" did not finish:
// <cause>`.
func (e *IncompleteCloseError) Error() string {
	return "mcpactor: close of MCP server " + strconv.Quote(e.Server) + " did not finish: " + e.Err.Error()
}

// Unwrap returns the context's cause: context.DeadlineExceeded,
// context.Canceled, or the cause its canceller gave.
func (e *IncompleteCloseError) Unwrap() error { return e.Err }

// InvalidResultError reports a result that does not decode as the method's
// result type.
type InvalidResultError struct {
	Server string
	Method string
	Err    error
	Body   string // the first bytes of the result
}

// Error reads `MCP server "<server>": invalid <method> result: <cause>
// (result starts "<body>")`.
func (e *InvalidResultError) Error() string {
	return fmt.Sprintf("MCP server %q: invalid %s result: %v (result starts %q)", e.Server, e.Method, e.Err, e.Body)
}

// Unwrap returns the decoding error.
func (e *InvalidResultError) Unwrap() error { return e.Err }

// UnsupportedError reports a method the protocol version a connection
// speaks does not have.
type UnsupportedError struct {
	Server  string
	Method  string
	Version string
}

// Error reads `MCP server "<server>": <method> is not part of protocol
// version <version>`.
func (e *UnsupportedError) Error() string {
	return "MCP server " + strconv.Quote(e.Server) + ": " + e.Method + " is not part of protocol version " + e.Version
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }
