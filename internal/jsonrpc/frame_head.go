package jsonrpc

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
)

// maxHeadID bounds the bytes of an id a FrameHeadScanner keeps. Our ids are
// integers of at most 20 characters, echoed as numbers or strings; an id
// longer than this cannot be one of ours and is treated as no id.
const maxHeadID = 128

// FrameHeadScanner reads one frame (one JSON text, a line on stdio) fed to
// it in pieces, and reports what its top level says about it: the "id"
// member and whether "method", "result" and "error" members are there. It
// never holds the frame: its state has a fixed size, under 2 KiB, whatever
// the frame's length or depth, so that a frame too large to buffer can
// still be recognised as the answer to one of our requests (JSON-RPC 2.0 §5,
// https://www.jsonrpc.org/specification#response_object).
//
// The scanner validates the frame as encoding/json does (RFC 8259, with
// encoding/json's limit of 10000 nested levels), and matches member names
// as DecodeMessage does (the last of repeated members wins, names match
// case-insensitively). A syntax error does not end the scan: the rest of
// the member it occurs in is skipped by counting brackets and quotes, and
// the scan goes on at the next top-level member, so an id written after a
// broken or too deeply nested result is still found. Only "id" members of
// the top-level object count; names inside params, result or error are
// never mistaken for them. What cannot be followed ends the search: after
// a string left open, or a stray '}' that closes the top-level object
// early, no further member is seen.
//
// For a frame that is discarded as it arrives, Write every piece of it and
// ask Response at its end; a frame's first bytes alone answer too, when
// the id comes before the result.
//
// The zero value is ready to use. A FrameHeadScanner is not safe for
// concurrent use.
type FrameHeadScanner struct {
	off   int64 // offset in the frame of the byte being read
	state headState
	depth int // objects and arrays open; may pass rawjson.MaxNestingDepth while skipping
	// kinds holds, at bit d, whether the container open at depth d is an
	// object (else an array), for depths up to rawjson.MaxNestingDepth: deeper is
	// a syntax error, after which brackets are only counted.
	kinds [rawjson.MaxNestingDepth/64 + 1]uint64

	// After a syntax error the rest of the member is skipped, seeing only
	// strings (so that brackets and commas inside them do not count) and
	// brackets, until a ',' or '}' at the top level.
	skipping, skipStr, skipEsc bool

	lit  string // the rest of the literal (true, false, null) being read
	hex  rune   // the \u escape read so far
	hexN uint8  // its hex digits read

	object bool  // the frame is a JSON object
	isKey  bool  // the string being read is a member name
	keyAt  int64 // where that name started
	capKey bool  // the name is decoded into key: a member we may care about
	capVal bool  // the value is copied into val: an id, jsonrpc or error code
	keyLen uint8
	valLen uint8
	// keyLong marks a name that cannot match one we look for: longer than
	// key, or holding a surrogate escape (never one of our ASCII names).
	keyLong bool
	valLong bool // the value did not fit in val
	key     [16]byte
	val     [maxHeadID]byte

	member   int  // envelope field (envelopeFields) of the top-level member being read
	topKind  byte // first byte of that member's value
	inErr    bool // depth 2 is the object of a top-level "error" member
	errField int  // errorFields index of the error object's member being read
	errKind  byte // first byte of that member's value

	// What the frame says so far.
	id          messages.ID
	idLong      bool  // the last id was a string or number too long to keep
	idAt        int64 // where the last "id" member started
	method      bool  // a top-level method member, last one not null
	result      bool  // a top-level result member
	errSeen     bool  // a top-level error member, last one not null
	rpcOK       bool  // the last string jsonrpc member is "2.0"
	rpcBad      bool  // a jsonrpc member is neither a string nor null
	errBad      bool  // an error member that encoding/json would not decode into Error
	problem     headProblem
	problemAt   int64 // where the first problem was found
	problemSeen bool
}

// headState is where the scanner stands in the JSON grammar (RFC 8259 §2-§7).
type headState uint8

const (
	hsBegin       headState = iota // before the frame's value
	hsKeyOrClose                   // after '{': a name or '}'
	hsKey                          // after ',' in an object: a name
	hsColon                        // after a name: ':'
	hsValue                        // after ':', or ',' in an array: a value
	hsElemOrClose                  // after '[': a value or ']'
	hsAfter                        // after a value: ',' or the container's close
	hsStr                          // in a string
	hsEsc                          // after a backslash in a string
	hsHex                          // in the hex digits of a \u escape
	hsNeg                          // after a number's minus sign
	hsZero                         // after a number's leading 0
	hsInt                          // in a number's integer digits
	hsDot                          // after the decimal point
	hsFrac                         // in the fraction digits
	hsExp                          // after 'e' or 'E'
	hsExpSign                      // after the exponent's sign
	hsExpDigit                     // in the exponent digits
	hsLit                          // in true, false or null
	hsEnd                          // after the top-level object: whitespace only
	hsDone                         // nothing more to learn
)

// headProblem is the first reason the frame is not valid JSON.
type headProblem uint8

const (
	hpSyntax   headProblem = iota // a byte the grammar does not allow there
	hpDepth                       // deeper than rawjson.MaxNestingDepth
	hpTrailing                    // data after the top-level object
)

// Write feeds the next piece of the frame; pieces may split it anywhere,
// inside strings, escapes and numbers too. It always consumes all of p and
// returns len(p), nil, so that the scanner can be an io.Writer (a tee of
// the bytes being discarded, say).
func (s *FrameHeadScanner) Write(p []byte) (int, error) {
	base := s.off
	for i := 0; i < len(p) && s.state != hsDone; i++ {
		// Most of a large frame is string content: skip runs of it
		// without going through the state machine byte by byte.
		switch {
		case s.skipping:
			if s.skipStr && !s.skipEsc {
				for i < len(p) && p[i] != '"' && p[i] != '\\' {
					i++
				}
			}
		case s.state == hsStr && !s.capKey && !s.capVal:
			for i < len(p) && (rawjson.IsPlain(p[i]) || p[i] >= utf8.RuneSelf) {
				i++
			}
		}
		if i == len(p) {
			break
		}
		s.off = base + int64(i)
		s.step(p[i])
	}
	s.off = base + int64(len(p))
	return len(p), nil
}

// Reset makes the scanner ready for a new frame.
func (s *FrameHeadScanner) Reset() { *s = FrameHeadScanner{} }

// step reads one byte of the frame.
func (s *FrameHeadScanner) step(c byte) {
	for {
		if s.skipping {
			s.skip(c)
			return
		}
		switch s.state {
		case hsBegin:
			switch {
			case isJSONSpace(c):
			case c == '{':
				s.object = true
				s.push(c)
			default:
				s.state = hsDone // not an object: not a JSON-RPC message
			}
			return
		case hsKeyOrClose, hsKey:
			switch {
			case isJSONSpace(c):
				return
			case c == '"':
				s.beginKey()
				return
			case c == '}' && s.state == hsKeyOrClose:
				s.close()
				return
			}
		case hsColon:
			switch {
			case isJSONSpace(c):
				return
			case c == ':':
				s.state = hsValue
				return
			}
		case hsValue, hsElemOrClose:
			switch {
			case isJSONSpace(c):
				return
			case c == ']' && s.state == hsElemOrClose:
				s.close()
				return
			case s.beginValue(c):
				return
			}
		case hsAfter:
			obj := s.inObject()
			switch {
			case isJSONSpace(c):
				return
			case c == ',' && obj:
				s.state = hsKey
				return
			case c == ',':
				s.state = hsValue
				return
			case c == '}' && obj, c == ']' && !obj:
				s.close()
				return
			}
		case hsStr:
			switch {
			case c == '"':
				s.endString()
				return
			case c == '\\':
				s.capture(c)
				s.state = hsEsc
				return
			case c >= 0x20: // RFC 8259 §7: control characters must be escaped
				s.capture(c)
				s.keyByte(c)
				return
			}
		case hsEsc:
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.capture(c)
				s.keyByte(rawjson.Unescape(c))
				s.state = hsStr
				return
			case 'u':
				s.capture(c)
				s.hex, s.hexN = 0, 0
				s.state = hsHex
				return
			}
		case hsHex:
			if d := hexDigit(c); d >= 0 {
				s.capture(c)
				s.hex = s.hex<<4 | d
				if s.hexN++; s.hexN == 4 {
					s.keyRune(s.hex)
					s.state = hsStr
				}
				return
			}
		case hsNeg:
			switch {
			case c == '0':
				s.capture(c)
				s.state = hsZero
				return
			case '1' <= c && c <= '9':
				s.capture(c)
				s.state = hsInt
				return
			}
		case hsZero, hsInt, hsFrac:
			switch {
			case isDigit(c) && s.state != hsZero:
				s.capture(c)
				return
			case c == '.' && s.state != hsFrac:
				s.capture(c)
				s.state = hsDot
				return
			case c == 'e' || c == 'E':
				s.capture(c)
				s.state = hsExp
				return
			}
			s.endValue() // the number ended; c comes after it
			continue
		case hsDot:
			if isDigit(c) {
				s.capture(c)
				s.state = hsFrac
				return
			}
		case hsExp:
			switch {
			case c == '+' || c == '-':
				s.capture(c)
				s.state = hsExpSign
				return
			case isDigit(c):
				s.capture(c)
				s.state = hsExpDigit
				return
			}
		case hsExpSign:
			if isDigit(c) {
				s.capture(c)
				s.state = hsExpDigit
				return
			}
		case hsExpDigit:
			if isDigit(c) {
				s.capture(c)
				return
			}
			s.endValue()
			continue
		case hsLit:
			if c == s.lit[0] {
				if s.lit = s.lit[1:]; s.lit == "" {
					s.endValue()
				}
				return
			}
		case hsEnd:
			if !isJSONSpace(c) {
				s.found(hpTrailing)
				s.state = hsDone
			}
			return
		case hsDone:
			return
		}
		// c is a syntax error; skip the rest of the member, c included.
		if !s.skipping {
			s.startSkipping(hpSyntax)
		}
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// hexDigit returns the value of the hex digit c, or -1.
func hexDigit(c byte) rune {
	switch {
	case isDigit(c):
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// found records the first problem and where it was.
func (s *FrameHeadScanner) found(p headProblem) {
	if !s.problemSeen {
		s.problem, s.problemAt, s.problemSeen = p, s.off, true
	}
}

// startSkipping gives up on the member being read. Its facts stay as its
// name set them (no id; a method, a result or an error present), which is
// what a member with a broken value should count as. Skipping starts in a
// string if the error is in one, so that its closing quote is seen as such.
func (s *FrameHeadScanner) startSkipping(p headProblem) {
	s.found(p)
	s.skipping = true
	s.skipStr = s.state == hsStr || s.state == hsEsc || s.state == hsHex
	s.skipEsc = false
	s.capKey, s.capVal = false, false
}

// skip reads a byte of a member being skipped. A ']' where the top-level
// object would close is ignored: it cannot close an object, and ignoring
// it keeps the members after it in reach.
func (s *FrameHeadScanner) skip(c byte) {
	switch {
	case s.skipEsc:
		s.skipEsc = false
	case s.skipStr:
		s.skipEsc = c == '\\'
		s.skipStr = c != '"'
	case c == '"':
		s.skipStr = true
	case c == '{' || c == '[':
		s.depth++
	case (c == '}' || c == ']') && s.depth > 1:
		s.depth--
	case c == '}':
		s.skipping, s.depth, s.state = false, 0, hsEnd
	case c == ',' && s.depth == 1:
		s.skipping, s.state, s.inErr = false, hsKey, false
	}
}

// push opens an object or array, or reports false (and starts skipping)
// when that would nest deeper than encoding/json allows.
func (s *FrameHeadScanner) push(c byte) bool {
	if s.depth == rawjson.MaxNestingDepth {
		s.startSkipping(hpDepth)
		return false
	}
	s.depth++
	w, bit := &s.kinds[s.depth/64], uint64(1)<<(s.depth%64)
	if c == '{' {
		*w |= bit
		s.state = hsKeyOrClose
	} else {
		*w &^= bit
		s.state = hsElemOrClose
	}
	return true
}

func (s *FrameHeadScanner) inObject() bool {
	return s.kinds[s.depth/64]>>(s.depth%64)&1 == 1
}

// close ends the innermost object or array.
func (s *FrameHeadScanner) close() {
	if s.depth--; s.depth == 0 {
		s.state = hsEnd
		return
	}
	s.endValue()
}

// inErrObject reports whether the scanner is directly inside the object of
// a top-level error member, whose members it checks.
func (s *FrameHeadScanner) inErrObject() bool { return s.depth == 2 && s.inErr }

func (s *FrameHeadScanner) beginKey() {
	s.isKey = true
	s.keyAt = s.off
	s.keyLen, s.keyLong = 0, false
	s.capKey = s.depth == 1 || s.inErrObject()
	switch {
	case s.depth == 1:
		s.member = -1 // until the name is read whole
	case s.inErrObject():
		s.errField = -1
	}
	s.state = hsStr
}

// beginValue starts the value whose first byte is c, or reports false if
// no value starts with c.
func (s *FrameHeadScanner) beginValue(c byte) bool {
	top, inErr := s.depth == 1, s.inErrObject()
	switch {
	case c == '{' || c == '[':
		if !s.push(c) {
			return false
		}
	case c == '"':
		s.isKey = false
		s.state = hsStr
	case c == '-':
		s.state = hsNeg
	case c == '0':
		s.state = hsZero
	case '1' <= c && c <= '9':
		s.state = hsInt
	case c == 't':
		s.lit, s.state = "rue", hsLit
	case c == 'f':
		s.lit, s.state = "alse", hsLit
	case c == 'n':
		s.lit, s.state = "ull", hsLit
	default:
		return false
	}
	scalar := c == '"' || c == '-' || isDigit(c)
	s.capVal = false
	switch {
	case top:
		s.topKind = c
		s.capVal = scalar && s.member == envID || c == '"' && s.member == envJSONRPC
		if c == '{' && s.member == envError {
			s.inErr = true
		}
	case inErr:
		s.errKind = c
		s.capVal = scalar && c != '"' && s.errField == errCode
	}
	s.valLen, s.valLong = 0, false
	s.capture(c)
	return true
}

// endString ends the string being read at its closing quote.
func (s *FrameHeadScanner) endString() {
	if !s.isKey {
		s.capture('"')
		s.endValue()
		return
	}
	s.state = hsColon
	if !s.capKey {
		return
	}
	s.capKey = false
	names := envelopeFields
	if s.depth != 1 {
		names = errorFields
	}
	field := -1
	if !s.keyLong {
		field = rawjson.FieldIndex(s.key[:s.keyLen], names)
	}
	if s.depth != 1 {
		s.errField = field
		return
	}
	s.member = field
	// The name alone decides what a member whose value never ends (a
	// frame cut short, a syntax error) counts as: no id, and a method or
	// error present.
	switch field {
	case envID:
		s.id, s.idLong, s.idAt = messages.ID{}, false, s.keyAt
	case envMethod:
		s.method = true
	case envResult:
		s.result = true
	case envError:
		s.errSeen = true
	}
}

// endValue ends the value being read, after its last byte.
func (s *FrameHeadScanner) endValue() {
	switch {
	case s.depth == 1:
		s.endMember()
	case s.inErrObject():
		s.endErrField()
	}
	s.capVal = false
	s.state = hsAfter
}

// capture copies a byte of the value being kept.
func (s *FrameHeadScanner) capture(c byte) {
	if !s.capVal {
		return
	}
	if int(s.valLen) == len(s.val) {
		s.valLong = true
		return
	}
	s.val[s.valLen] = c
	s.valLen++
}

// keyByte appends a decoded byte of the member name being kept.
func (s *FrameHeadScanner) keyByte(c byte) {
	if !s.capKey {
		return
	}
	if int(s.keyLen) == len(s.key) {
		s.keyLong = true
		return
	}
	s.key[s.keyLen] = c
	s.keyLen++
}

// keyRune appends the rune of a \u escape to the name being kept. A
// surrogate, paired or not, decodes to a rune outside the Basic
// Multilingual Plane or to U+FFFD, neither of which folds to an ASCII
// letter, so the name can no longer match.
func (s *FrameHeadScanner) keyRune(r rune) {
	if !s.capKey {
		return
	}
	if utf16.IsSurrogate(r) {
		s.keyLong = true
		return
	}
	var b [utf8.UTFMax]byte
	for _, c := range b[:utf8.EncodeRune(b[:], r)] {
		s.keyByte(c)
	}
}
