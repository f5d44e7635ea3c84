package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// Fault is how a tool call goes wrong, in Tool.Fault or, for every call,
// Server.Fault. The zero Fault is none. Each field names the error an
// mcpactor client returns when it meets the fault.
type Fault struct {
	// Delay holds the answer back this long. A client whose timeout
	// (ServerConfig.RequestTimeout, CallOptions.Timeout) is shorter
	// returns an *mcpactor.Error matching mcpactor.ErrTimeout
	// and cancels the call, which ends the wait: the server records the
	// cancellation (Cancellations) and never answers.
	Delay time.Duration
	// Hang never answers: the client returns mcpactor.ErrTimeout when its
	// timeout passes, or its context's error when that ends first; either
	// way the server records the cancellation.
	Hang bool
	// Crash ends the server when the call arrives, unanswered.
	Crash *Crash
	// Garbage precedes the answer with three lines that are no answer: a
	// line that is not JSON, a JSON object that is not JSON-RPC, and an
	// answer to an id never sent. The client skips and counts them
	// (Client.Stats) and the call succeeds.
	Garbage bool
	// Oversized pads the answer's text to this many bytes. Over
	// ServerConfig.MaxFrameSize (the longest line over InProcess and
	// Stdio, JSON body or SSE event over HTTP, legacy SSE included), the
	// client fails the call at once with mcpactor.ErrBadResponse
	// (Error.Size over Error.Limit), and the connection lives on.
	Oversized int
}

// Crash is a server exit on a tool call: Stderr is written to stderr,
// then the server ends with exit status Code. Over InProcess, Stdio and
// legacy SSE the client fails every call in flight with an error matching
// mcpactor.ErrTransportClosed; from a
// Stdio child its text holds the exit status and an excerpt of Stderr.
// Over Streamable HTTP, where each call is a request of its own, the
// call's event stream breaks, the client's attempt to resume it meets
// the ended session, and the call fails with mcpactor.ErrHTTP
// (no response received); with Faults.HTTPJSONAnswers the aborted
// request fails it with mcpactor.ErrHTTP (unreachable) instead; in the
// 2026-07-28 revision (Server.Stateless), which has no session to resume
// in, with mcpactor.ErrHTTP (the response stream broke). A
// manager restarts the server by its ServerConfig.Restart policy:
// InProcess and HTTP servers come back as fresh connections to the same
// Server.
type Crash struct {
	Code   int
	Stderr string
	// Times, when > 0, crashes only the first Times calls that meet this
	// Crash, counted by the Server across its connections (a Stdio child
	// counts in its own process, which a crash ends). 0 crashes every
	// one.
	Times int
}

// Faults are a Server's faults beyond single calls.
type Faults struct {
	// OutOfOrder answers tool calls in reverse order, two at a time (a
	// lone one after 20ms). The client matches answers by id: no error.
	OutOfOrder bool
	// SlowReads pauses this long before reading each message (InProcess
	// and Stdio): the client's writes back up (InProcess at once, the pipe
	// being unbuffered; Stdio once the pipe's buffer is full), and its
	// callers wait for room in ServerConfig.MaxWriteBytes. A write blocked
	// longer than ServerConfig.WriteStallTimeout fails the connection, and
	// every call on it, with an error matching mcpactor.ErrTransportClosed
	// whose cause is the write stall.
	SlowReads time.Duration
	// SlowInitialize delays the initialize answer: with a shorter
	// ServerConfig.ConnectTimeout, Connect returns
	// mcpactor.ErrTimeout ("Connection to MCP server ... timed out").
	SlowInitialize time.Duration
	// IgnorePing leaves pings unanswered, as a server alive but stuck:
	// Client.Ping returns mcpactor.ErrTimeout when its timeout passes. A
	// manager whose ServerConfig.Keepalive is set waits one interval for
	// each ping; after three in a row unanswered it turns the server
	// mcpactor.StateUnhealthy (the ManagerEvent's Err wraps
	// context.DeadlineExceeded) and restarts it by its Restart policy: a
	// new connection to the same Server, whose pings go unanswered too.
	IgnorePing bool
	// Banner is written on the stream before anything else (InProcess and
	// Stdio), as servers that greet do; the client skips it.
	Banner string
	// IgnoreSIGTERM makes a Stdio child ignore SIGTERM and go on after
	// its stdin ends: only SIGKILL ends it. A client closing it (Close,
	// Runtime.Stop, a failed Connect) closes stdin, waits
	// ServerConfig.CloseGrace, sends SIGTERM, waits TermGrace, then kills
	// it; no error. It does nothing to a server in this process.
	IgnoreSIGTERM bool

	// HTTPFailCalls answers the first HTTPFailCalls tools/call POSTs with
	// HTTPFailStatus (500 when 0) without handling them: the call fails
	// with mcpactor.ErrHTTP (Error.Status).
	HTTPFailCalls  int
	HTTPFailStatus int
	// HTTPExpireSessionAfter ends a Streamable HTTP session once it has
	// answered this many tool calls: its id is answered 404 from then on
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
	// The client meets the 404 on its next request, initializes a new
	// session and sends the request again there, so the call succeeds;
	// only a request refused on the new session too fails, with
	// mcpactor.ErrHTTP ("session expired").
	HTTPExpireSessionAfter int
	// HTTPJSONAnswers answers every request with one JSON body rather
	// than an event stream of its own. What a call sends before its answer
	// (progress, notifications, requests to the client) then goes on the
	// session's GET stream, in no order with the answer: progress may
	// reach the client after the call has returned, and be dropped
	// (Client.Stats.DroppedProgress). Both shapes are correct
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
	HTTPJSONAnswers bool
	// HTTPNoGetStream answers the GET that would open a session's stream
	// 405 Method Not Allowed, as a server that offers none may
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).
	// The client goes on without it, hearing the server only in the
	// answers to its POSTs: no error. What would go on that stream
	// (Server.Notify, the Set* methods' notifications, and with
	// HTTPJSONAnswers what a call sends) is never delivered.
	HTTPNoGetStream bool
}

// options translates Faults into the engine's switches.
func (s *Server) options() testserver.Options {
	f := s.Faults
	return testserver.Options{
		OutOfOrder:      f.OutOfOrder,
		ReadDelay:       f.SlowReads,
		SlowInitialize:  f.SlowInitialize,
		IgnorePing:      f.IgnorePing,
		Banner:          f.Banner,
		HTTPFailCalls:   f.HTTPFailCalls,
		HTTPFailStatus:  f.HTTPFailStatus,
		HTTPExpireAfter: f.HTTPExpireSessionAfter,
		HTTPStream:      !f.HTTPJSONAnswers,
		HTTPGetStatus:   noGetStream(f.HTTPNoGetStream),
		Stateless:       s.Stateless,
		CacheTTLMs:      cacheTTL(s),
		CacheScope:      s.CacheScope,
		PageSize:        s.PageSize,
	}
}

// noGetStream is HTTPNoGetStream's status.
func noGetStream(on bool) int {
	if on {
		return 405
	}
	return 0
}

// garbageLines are what Fault.Garbage sends before the answer.
var garbageLines = [][]byte{
	[]byte("this is not json"),
	[]byte(`{"hello":"world"}`),
	[]byte(`{"jsonrpc":"2.0","id":"mcptest-never-sent","result":{}}`),
}

// runner is the engine's form of t: the faults, then the Handler.
func (s *Server) runner(t *Tool) func(ctx context.Context, tc *testserver.Call) (json.RawMessage, error) {
	return func(ctx context.Context, tc *testserver.Call) (json.RawMessage, error) {
		f, where := merge(s.Fault, t.Fault, t.Name)
		if f.Crash != nil && s.crashNow(where, f.Crash.Times) {
			tc.Exit(f.Crash.Code, f.Crash.Stderr)
			return nil, testserver.ErrNoAnswer
		}
		if f.Hang {
			<-ctx.Done()
			return nil, testserver.ErrNoAnswer
		}
		if f.Delay > 0 {
			timer := time.NewTimer(f.Delay)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return nil, testserver.ErrNoAnswer
			}
		}
		if f.Garbage {
			tc.SendRaw(garbageLines...)
		}
		if f.Oversized > 0 {
			b := make([]byte, 0, f.Oversized+48)
			b = append(b, `{"content":[{"type":"text","text":"`...)
			b = append(b, bytes.Repeat([]byte{'x'}, f.Oversized)...)
			return append(b, `"}]}`...), nil
		}
		if t.Handler == nil {
			return json.RawMessage(`{"content":[]}`), nil
		}
		res, err := t.Handler(ctx, &Call{c: tc})
		var rpcErr *RPCError
		switch {
		case errors.As(err, &rpcErr):
			return nil, &testserver.RPCError{Code: rpcErr.Code, Message: rpcErr.Message, Data: rpcErr.Data}
		case err != nil:
			// A tool's failure is a result, for the model to see
			// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
			return json.RawMessage(`{"content":[{"type":"text","text":` + string(mustJSON(err.Error())) + `}],"isError":true}`), nil
		case res == nil:
			return json.RawMessage(`{"content":[]}`), nil
		}
		return json.Marshal(res)
	}
}

// merge lays the tool's fault over the server's: a field the tool sets
// wins. where names the Crash in force, for its count.
func merge(server, tool Fault, name string) (Fault, string) {
	f := server
	where := ""
	if tool.Delay > 0 {
		f.Delay = tool.Delay
	}
	f.Hang = f.Hang || tool.Hang
	if tool.Crash != nil {
		f.Crash, where = tool.Crash, "tool:"+name
	}
	f.Garbage = f.Garbage || tool.Garbage
	if tool.Oversized > 0 {
		f.Oversized = tool.Oversized
	}
	return f, where
}

// crashNow counts a call meeting the Crash declared at where and reports
// whether it crashes.
func (s *Server) crashNow(where string, times int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.crashes == nil {
		s.crashes = make(map[string]int)
	}
	s.crashes[where]++
	return times <= 0 || s.crashes[where] <= times
}

// cacheTTL is CacheTTL as the engine's ttlMs; 0 when unset.
func cacheTTL(s *Server) int {
	if s.CacheTTL <= 0 {
		return 0
	}
	return int(max(s.CacheTTL.Milliseconds(), 1))
}
