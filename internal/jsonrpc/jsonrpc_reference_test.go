package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/messages"
)

// This file keeps the encoding/json-based DecodeMessage that envelope_scan.go
// replaced, verbatim but for names, as the reference the differential fuzz
// test (FuzzDecodeMessageMatchesReference) holds the hand-written scanner to.
// One rule was added to both since: requests with an id no request may
// have (ErrInvalidRequestID), written here independently of the scanner.

// referenceWireMessage is the JSON shape; pointers tell "absent" from "empty".
type referenceWireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  *string         `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *messages.Error `json:"error,omitempty"`
}

// referenceDecodeMessage is DecodeMessage as it was.
func referenceDecodeMessage(data []byte) (Message, error) {
	var w referenceWireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return Message{}, fmt.Errorf("%w: field %q has the wrong type", messages.ErrNotJSONRPC, ute.Field)
		}
		return Message{}, err
	}
	return w.message()
}

func (w *referenceWireMessage) message() (Message, error) {
	if w.JSONRPC != "2.0" {
		return Message{}, fmt.Errorf("%w: jsonrpc is %q, want \"2.0\"", messages.ErrNotJSONRPC, w.JSONRPC)
	}
	// Added after the replacement: a method with a null, object, array,
	// boolean or non-integer id is an invalid request (JSON-RPC 2.0 §4,
	// MCP basic#requests), no longer a notification or a plain
	// ErrNotJSONRPC. The id's kind comes from encoding/json's own view of
	// it here, not from its first byte as in the scanner.
	if w.Method != nil && *w.Method != "" && w.ID != nil {
		if what := referenceInvalidRequestID(w.ID); what != "" {
			return Message{Method: *w.Method}, fmt.Errorf("%w: %w (%s)", messages.ErrNotJSONRPC, messages.ErrInvalidRequestID, what)
		}
	}
	var m Message
	if w.ID != nil {
		if err := referenceUnmarshalID(&m.ID, w.ID); err != nil {
			return Message{}, fmt.Errorf("%w: %v", messages.ErrNotJSONRPC, err)
		}
	}
	if w.Method != nil {
		if *w.Method == "" {
			return Message{}, fmt.Errorf("%w: empty method", messages.ErrNotJSONRPC)
		}
		if w.Result != nil || w.Error != nil {
			return Message{}, fmt.Errorf("%w: method together with result or error", messages.ErrNotJSONRPC)
		}
		m.Method = *w.Method
		m.Params = w.Params
		return m, nil
	}
	switch {
	case w.Result != nil && w.Error != nil:
		return Message{}, fmt.Errorf("%w: both result and error", messages.ErrNotJSONRPC)
	case w.Result == nil && w.Error == nil:
		return Message{}, fmt.Errorf("%w: neither method, result nor error", messages.ErrNotJSONRPC)
	case w.Error != nil:
		m.Error = w.Error
	default:
		m.Result = w.Result
	}
	return m, nil
}

// errBadID is what messages.ID.UnmarshalJSON says of an id that is
// neither an integer nor a string; the decoder's errors are compared by
// their text.
var errBadID = errors.New("jsonrpc: id must be an integer or a string")

// referenceUnmarshalID is ID.UnmarshalJSON as it was.
func referenceUnmarshalID(id *messages.ID, data []byte) error {
	data = bytes.TrimSpace(data)
	*id = messages.ID{}
	switch {
	case len(data) == 0:
		return errBadID
	case string(data) == "null":
		return nil
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*id = messages.StringID(s)
		return nil
	default:
		n, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			return errBadID
		}
		*id = messages.Int64ID(n)
		return nil
	}
}

// referenceInvalidRequestID is invalidRequestID by way of encoding/json.
func referenceInvalidRequestID(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "" // not reached: raw was decoded from valid JSON
	}
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "a number that is not an integer"
		}
	}
	return ""
}
