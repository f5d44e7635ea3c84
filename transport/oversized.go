package transport

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/mcpactor/mcpactor/messages"
)

// oversizedResponse tells the actor that the answer to id was discarded for
// exceeding the frame cap, so that its caller fails at once with a clear
// error instead of waiting for the timeout.
type oversizedResponse struct {
	id    int64
	size  int64
	limit int
}

func (oversizedResponse) IgnoreDeadLetterLogging() {}

// responseIDFromHead reads the id of a JSON-RPC response from the first
// bytes of a frame too large to decode. It answers only when the head shows
// a response: an "id" and a "result" or "error" key at the top level, and no
// "method" (a server request has ids of its own space, which must not be
// mistaken for ours). Anything else, including a head cut off before that is
// clear, gives ok == false.
func responseIDFromHead(head []byte) (id int64, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, false
	}
	haveID := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0, false
		}
		key, isKey := tok.(string)
		if !isKey {
			return 0, false
		}
		switch key {
		case "method":
			return 0, false
		case "result", "error":
			return id, haveID
		case "id":
			v, err := dec.Token()
			if err != nil {
				return 0, false
			}
			switch v := v.(type) {
			case json.Number:
				id, err = strconv.ParseInt(string(v), 10, 64)
			case string:
				id, err = strconv.ParseInt(v, 10, 64)
			default:
				return 0, false
			}
			haveID = err == nil
			continue
		}
		if !skipValue(dec) {
			return 0, false
		}
	}
}

// skipValue consumes one JSON value from dec.
func skipValue(dec *json.Decoder) bool {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return true
		}
	}
}

// failOversized ends the call whose answer was discarded, if it is ours
// and still pending.
func (r *rpcCore) failOversized(m oversizedResponse) {
	c, ok := r.pending[m.id]
	if !ok {
		return
	}
	r.resolve(m.id, outcome{err: &messages.FrameTooLargeError{
		Server: r.server, Method: c.method, ID: messages.Int64ID(m.id), Size: m.size, Limit: m.limit}})
}
