package actors

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
