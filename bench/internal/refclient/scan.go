package refclient

import (
	"strconv"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// The few fields a client reads of an answer, found with package
// jsonscan: lenient enough never to index out of range and to find the
// right value, not to reject every invalid document, which is the
// server's business and not what is measured.

// answer is what a client reads of one message from the server. Byte
// slices alias the line.
type answer struct {
	id     []byte // raw id token; nil if absent
	method bool   // a request or notification from the server, not an answer

	result, isError bool
	textOK          bool   // the first content item is {"type":"text","text":...}
	text            []byte // that text, raw (still escaped), between the quotes
	proto           []byte // result.protocolVersion, raw, between the quotes

	rpcErr  bool
	code    int64
	message []byte // raw, between the quotes
}

// parseAnswer reads the fields of a message a client needs in one pass
// over the line. ok is false if the line is not a JSON object.
func parseAnswer(line []byte, a *answer) (ok bool) {
	*a = answer{}
	end := jsonscan.ScanObject(line, 0, func(k []byte, v int) int {
		switch {
		case jsonscan.KeyIs(k, "id"):
			e := jsonscan.SkipValue(line, v)
			if e > 0 {
				a.id = line[v:e]
			}
			return e
		case jsonscan.KeyIs(k, "method"):
			a.method = true
		case jsonscan.KeyIs(k, "result"):
			a.result = true
			return parseResult(line, v, a)
		case jsonscan.KeyIs(k, "error"):
			if v < len(line) && line[v] == '{' {
				a.rpcErr = true
				return parseError(line, v, a)
			}
		}
		return jsonscan.Skip
	})
	return end > 0
}

func parseResult(b []byte, v int, a *answer) int {
	if v >= len(b) || b[v] != '{' {
		return jsonscan.Skip // a result that is not an object: no content
	}
	return jsonscan.ScanObject(b, v, func(k []byte, v int) int {
		switch {
		case jsonscan.KeyIs(k, "content"):
			return parseContent(b, v, a)
		case jsonscan.KeyIs(k, "isError"):
			e := jsonscan.SkipValue(b, v)
			a.isError = e > 0 && string(b[v:e]) == "true"
			return e
		case jsonscan.KeyIs(k, "protocolVersion"):
			return jsonscan.StringInto(b, v, &a.proto)
		}
		return jsonscan.Skip
	})
}

// parseContent reads the first item of the content array at b[v] and
// skips the others.
func parseContent(b []byte, v int, a *answer) int {
	if v >= len(b) || b[v] != '[' {
		return jsonscan.Skip
	}
	i := jsonscan.WS(b, v+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	var typ, text []byte
	textSet := false
	i = jsonscan.ScanObject(b, i, func(k []byte, v int) int {
		if v >= len(b) || b[v] != '"' {
			return jsonscan.Skip
		}
		switch {
		case jsonscan.KeyIs(k, "type"):
			e := jsonscan.StrEnd(b, v)
			if e > 0 {
				typ = b[v+1 : e-1]
			}
			return e
		case jsonscan.KeyIs(k, "text"):
			e := jsonscan.StrEnd(b, v)
			if e > 0 {
				text, textSet = b[v+1:e-1], true
			}
			return e
		}
		return jsonscan.Skip
	})
	if i < 0 {
		return jsonscan.Bad
	}
	a.textOK = textSet && string(typ) == "text"
	a.text = text
	// The rest of the array.
	for {
		i = jsonscan.WS(b, i)
		if i >= len(b) {
			return jsonscan.Bad
		}
		switch b[i] {
		case ']':
			return i + 1
		case ',':
			i = jsonscan.SkipValue(b, jsonscan.WS(b, i+1))
			if i < 0 {
				return jsonscan.Bad
			}
		default:
			return jsonscan.Bad
		}
	}
}

func parseError(b []byte, v int, a *answer) int {
	return jsonscan.ScanObject(b, v, func(k []byte, v int) int {
		switch {
		case jsonscan.KeyIs(k, "code"):
			e := jsonscan.SkipValue(b, v)
			if e > 0 {
				a.code, _ = strconv.ParseInt(string(b[v:e]), 10, 64)
			}
			return e
		case jsonscan.KeyIs(k, "message"):
			return jsonscan.StringInto(b, v, &a.message)
		}
		return jsonscan.Skip
	})
}

// parseID reads a numeric id as the clients write them (a small
// non-negative integer); ok is false for anything else, e.g. the string
// id of a server's request.
func parseID(raw []byte) (id uint64, ok bool) {
	if len(raw) == 0 || len(raw) > 19 {
		return 0, false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + uint64(c-'0')
	}
	return id, true
}
