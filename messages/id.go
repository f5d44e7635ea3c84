package messages

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/mcpactor/mcpactor/internal/rawjson"
)

// ID is a JSON-RPC request id: an integer or a string. The zero value is "no
// id", which is what notifications have.
//
// JSON-RPC 2.0 §4 allows string, number or null ids. We issue integers from a
// per-connection counter; the ids of server-to-client requests are echoed back
// exactly as they arrived.
type ID struct {
	str   string
	num   int64
	isStr bool
	valid bool
}

// Int64ID returns the integer id n.
func Int64ID(n int64) ID { return ID{num: n, valid: true} }

// StringID returns the string id s.
func StringID(s string) ID { return ID{str: s, isStr: true, valid: true} }

// IsValid reports whether id holds an id (the zero ID does not).
func (id ID) IsValid() bool { return id.valid }

// IsString reports whether the id was a JSON string.
func (id ID) IsString() bool { return id.isStr }

// Int64 returns the id as an integer. A string id made of decimal digits
// converts too, because peers echo our integer ids as strings (7 and "7" name
// the same request).
func (id ID) Int64() (int64, bool) {
	if !id.valid {
		return 0, false
	}
	if !id.isStr {
		return id.num, true
	}
	n, err := strconv.ParseInt(id.str, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != id.str {
		return 0, false
	}
	return n, true
}

// String returns the id in the string form OpenTelemetry's
// jsonrpc.request.id attribute uses.
func (id ID) String() string {
	switch {
	case !id.valid:
		return ""
	case id.isStr:
		return id.str
	default:
		return strconv.FormatInt(id.num, 10)
	}
}

// MarshalJSON encodes the id as a JSON number or string (null when invalid).
func (id ID) MarshalJSON() ([]byte, error) { return id.appendJSON(nil), nil }

func (id ID) appendJSON(b []byte) []byte {
	switch {
	case !id.valid:
		return append(b, "null"...)
	case id.isStr:
		return rawjson.AppendString(b, id.str)
	default:
		return strconv.AppendInt(b, id.num, 10)
	}
}

var errBadID = errors.New("jsonrpc: id must be an integer or a string")

// UnmarshalJSON decodes a number or a string; null leaves the id invalid.
// Fractional numbers are refused (JSON-RPC 2.0 §4: ids SHOULD NOT have them,
// and we could not echo them exactly).
func (id *ID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	*id = ID{}
	switch {
	case len(data) == 0:
		return errBadID
	case string(data) == "null":
		return nil
	case data[0] == '"':
		r := rawjson.Reader{Data: data}
		s := r.Str()
		r.End()
		if r.Invalid {
			return rawjson.SyntaxError(data)
		}
		*id = StringID(string(s))
		return nil
	default:
		n, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			return errBadID
		}
		*id = Int64ID(n)
		return nil
	}
}
