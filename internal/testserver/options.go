package testserver

import (
	"strconv"
	"time"
)

// Identity and protocol constants the server answers with, exported so that
// tests can assert on them without repeating the literals.
const (
	// ServerName is serverInfo.name in the initialize result.
	ServerName = "mcpactor-testserver"
	// ServerVersion is serverInfo.version in the initialize result.
	ServerVersion = "0.1.0"
	// LatestProtocolVersion is the version answered when the client offers
	// one this server does not know.
	LatestProtocolVersion = "2025-11-25"
	// UnknownResponseID is the id of the stray response written by the
	// NoiseEvery fault; no client request ever uses it.
	UnknownResponseID = 999999
)

// supportedVersions are the protocol revisions whose offer is echoed back.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Options selects the tools' behaviour and the faults to inject.
//
// The zero value is a well-behaved server: every field switches one knob or
// one fault on. Options.Args renders the same settings as the flags Main
// parses, so a test can start a child process with exactly these options.
type Options struct {
	// PageSize splits tools/list (and the other */list methods) into pages
	// of at most this many entries. 0 returns everything in one page.
	PageSize int
	// EndlessCursor makes every list page carry the same non-empty
	// nextCursor, and that cursor yields the first page again, so a client
	// that follows cursors blindly never stops.
	EndlessCursor bool
	// ToolWithoutSchema adds the tool "no-schema", whose definition lacks
	// the (required) inputSchema.
	ToolWithoutSchema bool
	// ReportCancels writes "cancelled <id> <reason>" to stderr for every
	// notifications/cancelled received, <id> being the requestId's JSON.
	ReportCancels bool
	// SilentOnUnknown leaves requests for methods the server does not know
	// unanswered, as some servers do, instead of answering -32601; each is
	// reported on stderr as "ignored <method>".
	SilentOnUnknown bool
	// IgnorePing leaves ping requests unanswered while everything else is
	// served: a server alive but stuck, as keepalive must notice.
	IgnorePing bool
	// RequireInitialized answers every request but initialize and ping
	// with -32602 "Received request before initialization was complete"
	// until notifications/initialized has arrived, as servers built on
	// the Python SDK do.
	RequireInitialized bool
	// FailToolsList answers the first N tools/list requests with an
	// internal error (-32603), as a server still warming up may: a
	// client that lists once offers no tools for the connection's life.
	FailToolsList int

	// Banner is written to stdout (with a trailing newline added if it has
	// none) before anything else, as servers that print a greeting do.
	Banner string
	// NoiseEvery, when N > 0, follows every N-th response with three lines a
	// client must skip: a non-JSON line, a JSON line that is not JSON-RPC,
	// and a response whose id (UnknownResponseID) was never requested.
	NoiseEvery int
	// HugeFrameBytes, when > 0, precedes the answer to the first tools/call
	// with one valid JSON-RPC notification line of exactly that many bytes
	// (not counting its newline).
	HugeFrameBytes int
	// EndlessLine makes the first tools/call start a line that never ends:
	// stdout receives bytes without a newline until the server is stopped
	// or stdout breaks.
	EndlessLine bool
	// StderrFloodBytes, when > 0, writes that many bytes of text lines to
	// stderr before serving; a client that does not drain stderr leaves the
	// server blocked there, never answering initialize.
	StderrFloodBytes int
	// ExitAfterRequests, when N > 0, makes the N-th tools/call received end
	// the server instead of being answered: StderrOnExit is written to
	// stderr and the process exits with ExitCode.
	ExitAfterRequests int
	// ExitCode is the exit status used by ExitAfterRequests and ExitAtStart.
	ExitCode int
	// StderrOnExit is written to stderr just before an ExitAfterRequests or
	// ExitAtStart exit.
	StderrOnExit string
	// IgnoreSIGTERM makes Main ignore SIGTERM and makes the server keep
	// running after stdin ends, so that only SIGKILL (or, for Serve, the
	// cancellation of its context) ends it.
	IgnoreSIGTERM bool
	// NeverAnswer leaves every tools/call unanswered; other requests are
	// still answered and cancellations still reported.
	NeverAnswer bool
	// OutOfOrder holds tools/call responses back and releases them in
	// reverse order, in batches: as soon as two are waiting, or
	// OutOfOrderHold (default 20ms) after the first one when it stays
	// alone.
	OutOfOrder bool
	// OutOfOrderHold is how long OutOfOrder holds a lone response; a test
	// that needs two answers reversed whatever the machine's load sets it
	// longer than its own wait.
	OutOfOrderHold time.Duration
	// StringIDs answers numeric request ids as JSON strings (7 -> "7").
	StringIDs bool
	// SlowInitialize delays the initialize answer by this long.
	SlowInitialize time.Duration
	// ProtocolVersion, when set, is answered to initialize whatever the
	// client offered (e.g. "1999-01-01" to test a client's refusal).
	ProtocolVersion string
	// Stateless makes the server speak the 2026-07-28 revision beside the
	// session protocol: server/discover offers it, subscriptions/listen is
	// held open, and a tool that asks the client for input in a request
	// of that protocol does so by a multi round-trip (input_required, then the
	// client's retry) rather than a request of its own. initialize still
	// works, for session-era clients. Over HTTP, requests without
	// Mcp-Session-Id are served by one server without session, and a
	// client closing a request's stream before its answer cancels it,
	// as a 2026-07-28 client cancels over HTTP.
	Stateless bool
	// CacheTTLMs, when > 0, is the ttlMs (and CacheScope the cacheScope)
	// of the stateless protocol's cacheable results: the lists and
	// resources/read
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
	CacheTTLMs int
	CacheScope string
	// ReadDelay, when > 0, pauses this long before reading each line of
	// stdin: a server that reads slowly, so that the client's writes
	// back up into the pipe and its write budget (backpressure).
	ReadDelay time.Duration
	// ExitAtStart ends the server before it writes or reads anything:
	// StderrOnExit is written to stderr and the exit status is ExitCode.
	// (It is a bool rather than a code so that the zero Options stays a
	// well-behaved server; the flag form is -exit-at-start=CODE.)
	ExitAtStart bool

	// HTTP. NewHTTPHandler serves the same tools over Streamable HTTP and
	// the legacy HTTP+SSE transport; HTTPAddr makes Main do so as a child
	// process. The options above that act on requests (PageSize,
	// NeverAnswer, ExitAfterRequests, HugeFrameBytes, SlowInitialize...)
	// work over HTTP too; Banner, NoiseEvery, EndlessLine, OutOfOrder and
	// StderrFloodBytes are stdio faults, and the fields below are HTTP
	// ones. The HTTP faults act on tools/call requests, as
	// ExitAfterRequests does, so that the handshake still works.

	// HTTPAddr, when set, makes Main serve HTTP on this address (e.g.
	// "127.0.0.1:0") instead of stdio: its first line on stdout is the URL
	// of the Streamable HTTP endpoint (ReadURL reads it).
	HTTPAddr string
	// HTTPStream answers every request with an SSE stream (what its
	// handling sends, progress and requests to the client included, then
	// the response) instead of one JSON body; with JSON answers, those
	// messages go to the GET stream.
	HTTPStream bool
	// HTTPNoEventIDs gives SSE events no id and sends no priming event, so
	// that no stream can be resumed.
	HTTPNoEventIDs bool
	// HTTPRetry, when > 0, is sent as the retry: field (in milliseconds,
	// rounded up) at the start of every event stream.
	HTTPRetry time.Duration
	// HTTPGetStatus, when set, answers the GET listener with this status
	// instead of a stream: 405 (the specified "no GET stream"), 404, or
	// 200 with a JSON body. Resumption with Last-Event-ID still works.
	HTTPGetStatus int
	// HTTPExpireAfter, when N > 0, ends a session once it has answered N
	// tools/call: every request carrying its id gets 404 from then on.
	HTTPExpireAfter int
	// HTTPSessionRefusal400 answers a session id the server does not
	// know (expired, ended, or from before a restart) as the reference
	// TypeScript server does: 400 with the JSON-RPC error "Bad Request:
	// No valid session ID provided", where the specification says 404.
	HTTPSessionRefusal400 bool
	// HTTPFailCalls, when N > 0, answers the first N tools/call POSTs with
	// HTTPFailStatus and a JSON-RPC error body, without handling them; the
	// later ones are served normally.
	HTTPFailCalls int
	// HTTPFailStatus is HTTPFailCalls's status; 0 means 500.
	HTTPFailStatus int
	// HTTPDropStreams, when N > 0 and with HTTPStream, closes the SSE
	// stream of each of the first N tools/call just before its response
	// (after the priming event and what came before the response). The
	// response stays buffered: a GET with Last-Event-ID gets it, unless
	// HTTPNoEventIDs left the client nothing to resume from.
	HTTPDropStreams int
	// HTTPNotJSON answers every tools/call with 200, Content-Type
	// application/json, and an HTML body.
	HTTPNotJSON bool
	// HTTPSlowBody answers every tools/call with 200 and a body that
	// starts like a response and then trickles a byte at a time, forever.
	HTTPSlowBody bool
	// HTTPIgnoreBodyOver, when N > 0, leaves every POST whose body is
	// longer than N bytes unread and unanswered (until Close).
	HTTPIgnoreBodyOver int
	// HTTPLegacyOtherOrigin makes the legacy transport's endpoint event
	// name a URL on another origin (the same port, another host name).
	HTTPLegacyOtherOrigin bool
	// HTTPGetCloseAfter, when N > 0, closes each GET stream after N
	// events (the connection, not the stream: 2025-11-25's polling), so
	// that the client must reconnect, and resume with Last-Event-ID.
	HTTPGetCloseAfter int
	// HTTPNotifyDelay, when > 0, handles every POSTed notification (and
	// answers its 202) only after this delay, as if it had been slow on
	// the network: a request POSTed after it arrives first.
	HTTPNotifyDelay time.Duration
}

// ExitError is returned by Serve when a fault or the crash tool would have
// ended the process; Main exits with Code instead of returning.
type ExitError struct {
	// Code is the exit status the process would have had.
	Code int
}

// Error implements error.
func (e *ExitError) Error() string {
	return "testserver: exit status " + strconv.Itoa(e.Code)
}
