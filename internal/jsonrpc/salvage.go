package jsonrpc

import (
	"strconv"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
)

// A line that DecodeMessage rejects is dropped, but it may still carry the
// id of a request we are waiting for: a server that puts both result and
// error in its answer, nests a result too deeply, or is cut off mid-line
// has answered, just badly. Failing that request at once, with the reason,
// beats letting its caller wait for the timeout. FrameHeadScanner
// (frame_head.go) follows the frame's JSON; this file says what its
// top-level members mean, by DecodeMessage's rules, and answers from them.

// The members of a JSON-RPC error object (JSON-RPC 2.0 §5.1), matched as
// encoding/json matches the fields of Error.
const (
	errCode = iota
	errMessage
)

var errorFields = []string{"code", "message", "data"}

// Response reports whether the frame read so far is an answer to one of
// our requests, and to which: its top level has an "id" that is an integer
// or a string, a "result" or a non-null "error", and no "method" (a server
// request carries an id of the server's own, which must never be taken for
// ours). It says nothing of whether the frame is well formed: ask Head for
// that.
func (s *FrameHeadScanner) Response() (messages.ID, bool) {
	h := s.Head()
	return h.ID, h.IsResponse()
}

// FrameHead is what a FrameHeadScanner has learnt of a frame's top level.
type FrameHead struct {
	// ID is the last top-level "id" member when it is an integer or a
	// string of at most 128 bytes as written, else the zero ID. An id is
	// taken only once its value has ended: a number at the very end of
	// the bytes read may go on in the next piece.
	ID     messages.ID
	Method bool // a top-level "method" member whose last value is not null
	Result bool // a top-level "result" member, null included
	Error  bool // a top-level "error" member whose last value is not null

	// Problem names what keeps the frame from decoding with
	// DecodeMessage, as if the bytes read so far were all of it (so a
	// frame still being fed reads as "truncated JSON"), or is empty when
	// nothing does. It is meant for frames that IsResponse: for requests
	// and notifications it does not check everything DecodeMessage
	// checks.
	Problem string
}

// IsResponse reports whether h is the head of an answer to one of our
// requests; see FrameHeadScanner.Response.
func (h FrameHead) IsResponse() bool {
	return h.ID.IsValid() && !h.Method && (h.Result || h.Error)
}

// Head returns what the frame read so far says.
func (s *FrameHeadScanner) Head() FrameHead {
	return FrameHead{ID: s.id, Method: s.method, Result: s.result, Error: s.errSeen, Problem: s.problemText()}
}

// SalvageResponse reports whether line, which DecodeMessage rejected, is
// still recognisably the answer to one of our requests (see
// FrameHeadScanner.Response), so that the request can fail at once with
// the reason instead of waiting for its timeout. problem names what is
// wrong with the line; it is empty for a line DecodeMessage accepts, and
// when ok is false.
//
// It finds the top-level id wherever the top-level structure can be
// followed: before or after a syntax error or a too deeply nested value,
// or in a line cut short. Nothing is allocated but a string id.
func SalvageResponse(line []byte) (id messages.ID, problem string, ok bool) {
	var s FrameHeadScanner
	s.Write(line)
	h := s.Head()
	if !h.IsResponse() {
		return messages.ID{}, "", false
	}
	return h.ID, h.Problem, true
}

// problemText names the first reason DecodeMessage would reject the frame,
// in the order DecodeMessage finds them: not JSON first (encoding/json's
// validation came before any decoding), then the members.
func (s *FrameHeadScanner) problemText() string {
	switch {
	case !s.object:
		return "not a JSON object"
	case s.problemSeen && s.problem == hpDepth:
		return "nesting deeper than 10000 levels"
	case s.problemSeen && s.problem == hpTrailing:
		return "data after the JSON object"
	case s.problemSeen && !s.id.IsValid():
		return "invalid JSON"
	case s.problemSeen && s.problemAt < s.idAt:
		return "invalid JSON before the id"
	case s.problemSeen:
		return "invalid JSON after the id"
	case s.state != hsEnd:
		return "truncated JSON"
	case s.rpcBad || !s.rpcOK:
		return `jsonrpc is not "2.0"`
	case s.errBad:
		return "invalid error object"
	case s.result && s.errSeen:
		return "both result and error"
	}
	return ""
}

// endMember takes in the value of a top-level member as DecodeMessage
// does: the last id, jsonrpc, method and error win, and null clears a
// method or an error but leaves jsonrpc as it was.
func (s *FrameHeadScanner) endMember() {
	val := s.val[:s.valLen]
	switch s.member {
	case envID:
		s.idLong = s.valLong
		if !s.valLong {
			s.id = scannedID(s.topKind, val)
		}
	case envJSONRPC:
		switch s.topKind {
		case '"':
			s.rpcOK = !s.valLong && string(unquoted(val)) == "2.0"
		case 'n':
		default:
			s.rpcBad = true
		}
	case envMethod:
		if s.topKind == 'n' {
			s.method = false
		}
	case envError:
		switch s.topKind {
		case 'n':
			s.errSeen = false
		case '{':
			s.inErr = false
		default:
			s.errBad = true
		}
	}
}

// endErrField checks a member of an error object as encoding/json decodes
// it into Error: code must be null or an integer that fits an int64,
// message null or a string.
func (s *FrameHeadScanner) endErrField() {
	switch k := s.errKind; s.errField {
	case errCode:
		switch {
		case k == 'n':
		case k == '-' || isDigit(k):
			if _, ok := int64Of(s.val[:s.valLen]); !ok || s.valLong {
				s.errBad = true
			}
		default:
			s.errBad = true
		}
	case errMessage:
		if k != '"' && k != 'n' {
			s.errBad = true
		}
	}
}

// scannedID decodes a kept id value (kind is its first byte) as
// ID.UnmarshalJSON does, without its error values: a string, or a number
// that is an int64 as written.
func scannedID(kind byte, raw []byte) messages.ID {
	switch {
	case kind == '"':
		if s, ok := unquotedOK(raw); ok {
			return messages.StringID(string(s))
		}
	case kind == '-' || isDigit(kind):
		if n, ok := int64Of(raw); ok {
			return messages.Int64ID(n)
		}
	}
	return messages.ID{}
}

// int64Of reads the number raw if it is written as an integer that fits an
// int64, as strconv.ParseInt (which encoding/json and ID.UnmarshalJSON use)
// does. No int64 takes more than 20 bytes; the bound keeps the conversion
// to a string off the heap.
func int64Of(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

// unquoted decodes a kept JSON string, or returns nil if it is not one.
func unquoted(raw []byte) []byte {
	s, _ := unquotedOK(raw)
	return s
}

func unquotedOK(raw []byte) ([]byte, bool) {
	r := rawjson.Reader{Data: raw}
	if r.Peek() != '"' {
		return nil, false
	}
	s := r.Str()
	r.End()
	return s, !r.Invalid
}
