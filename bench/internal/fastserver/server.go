// Package fastserver is a fast MCP server over stdio (and, with
// NewHTTPHandler, over Streamable HTTP) that writes each answer on its
// own, as most servers do: one goroutine reads stdin line by line, and
// every answer goes to its output with its own write system call (never
// several answers in one write). It is the server the reference clients
// of bench/internal/refclient, the hand-written net/http client of
// cmd/httpbench and the runtime are measured on when the server's own
// cost should be small and known: its CPU time is reported as the
// server's share, so it decodes only the fields it needs with a small
// scanner and answers from reused buffers.
//
// It speaks the session era (initialize, then anything): initialize
// answers with the client's protocolVersion if it is one of 2024-11-05,
// 2025-03-26, 2025-06-18 and 2025-11-25, else 2025-11-25; notifications
// are ignored; ping answers {}; tools/list lists three tools:
//
//   - echo {"message": string}: its text is the message, answered at once
//     on the reading goroutine (the message's JSON string is copied as it
//     came, so the text is the same string, escaped as the client escaped
//     it);
//   - big {"bytes": int}: one text of that many 'x', at once;
//   - sleep {"ms": number}: "slept <ms>ms" after that many milliseconds,
//     from a timer (no goroutine waits per call).
//
// An unknown tool is the JSON-RPC error -32602, an unknown method
// (server/discover included) -32601, and arguments a tool cannot use a
// result with isError. Ids are echoed verbatim, numbers or strings. It
// exits 0 when stdin closes, without waiting for sleeps still running.
//
// ServeStateless is Serve for a server that speaks the 2026-07-28
// revision as well (https://modelcontextprotocol.io/specification/2026-07-28/server/discover):
// server/discover lists 2026-07-28 and the session-era versions, and
// echo's results carry resultType "complete" and the server's identity
// in their _meta, as the go-sdk's server sends them (a server
// SHOULD put io.modelcontextprotocol/serverInfo on every result). A
// request's own _meta is not read: the server keeps no state, and the
// answers are the same whichever era the client speaks.
//
// NewHTTPHandler serves the same answers over Streamable HTTP
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http),
// as leanly: one POST is one JSON-RPC message, handled on net/http's
// goroutine with a reused scratch (no goroutine of its own; a sleep's
// answer comes from its timer, which the handler waits for until the
// request's context ends). A request is answered 200 with
// application/json, the one response and its Content-Length; a
// notification or a response 202 with no body; a body that is not JSON
// 400 with the parse error; a body over MaxHTTPBody 413. With sessions,
// initialize assigns an Mcp-Session-Id (random, at most MaxSessions live;
// beyond them 503) that every later message must carry: without one 400,
// with an unknown one 404; DELETE ends it (204). server/discover needs no
// session and is answered -32601, so that a dual-era client falls back to
// initialize. Stateless (the 2026-07-28 revision), no session is assigned
// or needed and the answers are ServeStateless's. GET, which would open
// the stream of the server's own messages, is answered 405, as the spec
// allows; an MCP-Protocol-Version the server does not know 400; an Origin
// that is not a loopback host 403.
//
// It does nothing else: no resources, prompts, logging, sampling or
// cancellation, no check that initialize came first, and no validation of
// a request beyond the fields it reads.
package fastserver

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// Serve serves the requests read from r until r ends, writing each answer
// to w with a write of its own.
func Serve(r io.Reader, w io.Writer) error { return newServer(w).serve(r) }

// ServeStateless is Serve offering 2026-07-28 too (see the package doc).
func ServeStateless(r io.Reader, w io.Writer) error {
	s := newServer(w)
	s.stateless = true
	return s.serve(r)
}

// maxLine bounds a request line; a longer one is answered with a parse
// error and skipped.
const maxLine = 32 << 20

// maxBig bounds big's bytes.
const maxBig = 256 << 20

// maxSleepMs bounds sleep's ms (a year), well inside a time.Duration.
const maxSleepMs = 365 * 24 * 3600e3

type server struct {
	// out takes each answer in one Write, from the reading goroutine or
	// from a sleep's timer: it must be safe for concurrent use.
	out       io.Writer
	stateless bool // server/discover offers 2026-07-28; results carry _meta

	// Owned by the reading goroutine (over HTTP, by the request's).
	buf     []byte // the answer being built
	long    []byte // a line longer than the bufio buffer, put together
	bigN    int    // the size whose answer body bigBody is
	bigBody []byte // big's answer from after the id to the newline
}

func newServer(out io.Writer) *server { return &server{out: &lockedWriter{w: out}, bigN: -1} }

// lockedWriter makes one answer one write, whichever goroutine writes it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes b with one write call. A client that went away makes the
// write fail; the server then ends when stdin does.
func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// handled is what handle made of a message.
type handled int

const (
	// handledNone: a notification, or an answer to a request of ours (we
	// make none): nothing is answered.
	handledNone handled = iota
	// handledRequest: a request, answered now or, for a sleep, later.
	handledRequest
	// handledMalformed: not a JSON object, answered with a parse error.
	handledMalformed
)

// serve reads requests until r ends, answering each.
func (s *server) serve(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		tooLong := false
		if err == bufio.ErrBufferFull {
			s.long = append(s.long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				if len(s.long)+len(line) > maxLine {
					tooLong = true
					s.long = s.long[:0]
				} else if !tooLong {
					s.long = append(s.long, line...)
				}
			}
			line = s.long
		}
		switch {
		case tooLong:
			s.answer([]byte("null"), errorBody(-32700, "Parse error: the message is too long"))
		case len(bytes.TrimSpace(line)) > 0:
			s.handle(line)
		}
		if cap(s.long) > 1<<20 {
			s.long = nil // do not keep a huge buffer for one huge request
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// handle answers one message, and says what it was.
func (s *server) handle(line []byte) handled {
	var id, method, params []byte
	end := jsonscan.ScanObject(line, 0, func(k []byte, v int) int {
		switch {
		case jsonscan.KeyIs(k, "id"):
			e := jsonscan.SkipValue(line, v)
			if e > 0 {
				id = line[v:e]
			}
			return e
		case jsonscan.KeyIs(k, "method"):
			if v < len(line) && line[v] == '"' {
				e := jsonscan.StrEnd(line, v)
				if e > 0 {
					method = line[v+1 : e-1]
				}
				return e
			}
		case jsonscan.KeyIs(k, "params"):
			e := jsonscan.SkipValue(line, v)
			if e > 0 {
				params = line[v:e]
			}
			return e
		}
		return jsonscan.Skip
	})
	if end < 0 {
		s.answer([]byte("null"), errorBody(-32700, "Parse error"))
		return handledMalformed
	}
	if method == nil || id == nil {
		return handledNone
	}
	m := string(method) // does not allocate in the switch
	if bytes.IndexByte(method, '\\') >= 0 {
		m, _ = jsonscan.Unescape(method)
	}
	switch m {
	case "initialize":
		s.answer(id, initializeBody(stringField(params, "protocolVersion")))
	case "ping":
		s.answer(id, pingBody)
	case "tools/list":
		s.answer(id, toolsListBody)
	case "tools/call":
		s.call(id, params)
	case "server/discover":
		if s.stateless {
			s.answer(id, discoverBody)
		} else {
			s.answer(id, methodNotFoundBody)
		}
	default:
		s.answer(id, methodNotFoundBody)
	}
	return handledRequest
}

// The bodies of answers: everything after the id.
var (
	pingBody           = []byte(`,"result":{}}` + "\n")
	methodNotFoundBody = errorBody(-32601, "Method not found")
	toolsListBody      = []byte(`,"result":{"tools":[` +
		`{"name":"echo","description":"Answers with the message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}},` +
		`{"name":"big","description":"Answers with a text of that many x characters.","inputSchema":{"type":"object","properties":{"bytes":{"type":"integer","minimum":0}},"required":["bytes"]}},` +
		`{"name":"sleep","description":"Answers after that many milliseconds.","inputSchema":{"type":"object","properties":{"ms":{"type":"number","minimum":0}},"required":["ms"]}}` +
		`]}}` + "\n")
)

// The stateless server's identity, in the _meta of every result, and its
// server/discover answer.
const resultMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastserver","version":"0"}},`

var discoverBody = []byte(`,"result":{` + resultMeta + `"resultType":"complete",` +
	`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],` +
	`"capabilities":{"tools":{}}}}` + "\n")

func errorBody(code int, msg string) []byte {
	return []byte(`,"error":{"code":` + strconv.Itoa(code) + `,"message":` + strconv.Quote(msg) + `}}` + "\n")
}

var initializeBodies = map[string][]byte{}

func init() {
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		initializeBodies[v] = []byte(`,"result":{"protocolVersion":"` + v +
			`","capabilities":{"tools":{}},"serverInfo":{"name":"fastserver","version":"0"}}}` + "\n")
	}
}

func initializeBody(requested []byte) []byte {
	if b, ok := initializeBodies[string(requested)]; ok {
		return b
	}
	return initializeBodies["2025-11-25"]
}

// call answers a tools/call.
func (s *server) call(id, params []byte) {
	var name, args []byte
	nameOK := false
	if params != nil {
		jsonscan.ScanObject(params, 0, func(k []byte, v int) int {
			switch {
			case jsonscan.KeyIs(k, "name"):
				if v < len(params) && params[v] == '"' {
					e := jsonscan.StrEnd(params, v)
					if e > 0 {
						name, nameOK = params[v+1:e-1], true
					}
					return e
				}
			case jsonscan.KeyIs(k, "arguments"):
				e := jsonscan.SkipValue(params, v)
				if e > 0 {
					args = params[v:e]
				}
				return e
			}
			return jsonscan.Skip
		})
	}
	if !nameOK {
		s.answer(id, errorBody(-32602, "Invalid params: no tool name"))
		return
	}
	n := string(name)
	if bytes.IndexByte(name, '\\') >= 0 {
		n, _ = jsonscan.Unescape(name)
	}
	switch n {
	case "echo":
		msg, ok := rawField(args, "message")
		if !ok || len(msg) < 2 || msg[0] != '"' {
			s.answer(id, toolErrorBody("echo: message must be a string"))
			return
		}
		// The message's JSON string as it came is the text's.
		b := append(s.buf[:0], `{"jsonrpc":"2.0","id":`...)
		b = append(b, id...)
		b = append(b, `,"result":{`...)
		if s.stateless {
			b = append(b, resultMeta+`"resultType":"complete",`...)
		}
		b = append(b, `"content":[{"type":"text","text":`...)
		b = append(b, msg...)
		b = append(b, "}]}}\n"...)
		s.buf = b
		s.write(b)
	case "big":
		raw, _ := rawField(args, "bytes")
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f < 0 || f > maxBig || f != math.Trunc(f) {
			s.answer(id, toolErrorBody("big: bytes must be an integer from 0 to "+strconv.Itoa(maxBig)))
			return
		}
		s.answer(id, s.bigAnswer(int(f)))
	case "sleep":
		raw, _ := rawField(args, "ms")
		ms, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || ms < 0 || ms > maxSleepMs {
			s.answer(id, toolErrorBody("sleep: ms must be a number, 0 or more"))
			return
		}
		body := []byte(`,"result":{"content":[{"type":"text","text":"slept ` +
			strconv.FormatFloat(ms, 'f', -1, 64) + `ms"}]}}` + "\n")
		d := time.Duration(ms * float64(time.Millisecond))
		if d <= 0 {
			s.answer(id, body)
			return
		}
		id := bytes.Clone(id) // the line is reused before the timer fires
		out := s.out          // over HTTP, the server is another request's by then
		time.AfterFunc(d, func() {
			_, _ = out.Write(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), body...))
		})
	default:
		// The name is copied as it came: it is valid JSON string content.
		s.answer(id, []byte(`,"error":{"code":-32602,"message":"Unknown tool: `+string(name)+`"}}`+"\n"))
	}
}

func toolErrorBody(text string) []byte {
	return []byte(`,"result":{"content":[{"type":"text","text":` + strconv.Quote(text) + `}],"isError":true}}` + "\n")
}

// bigAnswer is big's answer body for n bytes, built once per size in a
// buffer kept for the next call.
func (s *server) bigAnswer(n int) []byte {
	if n != s.bigN {
		const head = `,"result":{"content":[{"type":"text","text":"`
		const tail = `"}]}}` + "\n"
		b := append(s.bigBody[:0], head...)
		b = append(b, bytes.Repeat([]byte{'x'}, n)...)
		s.bigBody = append(b, tail...)
		s.bigN = n
	}
	return s.bigBody
}

// answer writes one answer, on the reading goroutine: the envelope, id
// and body put together in the reused buffer, then one write.
func (s *server) answer(id, body []byte) {
	b := append(s.buf[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, body...)
	s.buf = b
	s.write(b)
}

// write hands one whole answer to the output in one Write.
func (s *server) write(b []byte) { _, _ = s.out.Write(b) }

// rawField returns the raw value of the member key of the object obj.
func rawField(obj []byte, key string) ([]byte, bool) {
	var val []byte
	found := false
	if obj == nil {
		return nil, false
	}
	jsonscan.ScanObject(obj, 0, func(k []byte, v int) int {
		if found || !jsonscan.KeyIs(k, key) {
			return jsonscan.Skip
		}
		e := jsonscan.SkipValue(obj, v)
		if e > 0 {
			val, found = obj[v:e], true
		}
		return e
	})
	return val, found
}

// stringField returns the raw contents of the string member key of obj,
// or nil.
func stringField(obj []byte, key string) []byte {
	v, ok := rawField(obj, key)
	if !ok || len(v) < 2 || v[0] != '"' {
		return nil
	}
	return v[1 : len(v)-1]
}
