package messages

import (
	"encoding/json"
	"math"
	"strconv"
)

// Meta is the _meta object of params, results and protocol objects
// (basic/index, "General fields: _meta").
type Meta map[string]any

// Reserved _meta keys.
const (
	// MetaKeyProgressToken asks for notifications/progress (basic/utilities/progress).
	MetaKeyProgressToken = "progressToken"
	// MetaKeyTraceparent carries the W3C Trace Context traceparent.
	MetaKeyTraceparent = "traceparent"
	// MetaKeyTracestate carries the W3C Trace Context tracestate.
	MetaKeyTracestate = "tracestate"
	// MetaKeyBaggage carries W3C Baggage.
	MetaKeyBaggage = "baggage"
	// MetaKeyRelatedTask ties a message to a task (basic/utilities/tasks, 2025-11-25).
	MetaKeyRelatedTask = "io.modelcontextprotocol/related-task"

	// MetaKeyProtocolVersion is the per-request protocol version (2026-07-28 draft).
	MetaKeyProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaKeyClientCapabilities is the per-request ClientCapabilities (2026-07-28 draft).
	MetaKeyClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaKeyClientInfo is the per-request client Implementation (2026-07-28 draft).
	MetaKeyClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaKeyLogLevel is the per-request LoggingLevel (2026-07-28 draft).
	MetaKeyLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaKeyServerInfo is the server Implementation on results (2026-07-28 draft).
	MetaKeyServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaKeySubscriptionID names the subscriptions/listen stream a
	// notification belongs to (2026-07-28 draft).
	MetaKeySubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// ProgressToken returns the progress token, if m holds one that is a string
// or a number (basic/utilities/progress).
func (m Meta) ProgressToken() (any, bool) {
	tok, ok := m[MetaKeyProgressToken]
	if !ok {
		return nil, false
	}
	if _, valid := ProgressTokenKey(tok); !valid {
		return nil, false
	}
	return tok, true
}

// SetProgressToken sets the progress token, allocating m if it is nil. A
// nil tok removes it.
func (m *Meta) SetProgressToken(tok any) {
	if tok == nil {
		delete(*m, MetaKeyProgressToken)
		return
	}
	if *m == nil {
		*m = Meta{}
	}
	(*m)[MetaKeyProgressToken] = tok
}

// ProgressTokenKey turns a progress token into a comparable key. Strings and
// numbers stay distinct ("s:5" for "5", "n:5" for 5), while the Go number
// types that decode from the same JSON number agree (int 5, int64 5,
// float64 5 and json.Number "5" all give "n:5"). It reports false for a
// value that is neither a string nor a number.
func ProgressTokenKey(tok any) (string, bool) {
	switch v := tok.(type) {
	case string:
		return "s:" + v, true
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return "n:" + strconv.FormatInt(n, 10), true
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return "", false
		}
		return floatTokenKey(f)
	case float64:
		return floatTokenKey(v)
	case float32:
		return floatTokenKey(float64(v))
	case int:
		return "n:" + strconv.FormatInt(int64(v), 10), true
	case int8:
		return "n:" + strconv.FormatInt(int64(v), 10), true
	case int16:
		return "n:" + strconv.FormatInt(int64(v), 10), true
	case int32:
		return "n:" + strconv.FormatInt(int64(v), 10), true
	case int64:
		return "n:" + strconv.FormatInt(v, 10), true
	case uint:
		return "n:" + strconv.FormatUint(uint64(v), 10), true
	case uint8:
		return "n:" + strconv.FormatUint(uint64(v), 10), true
	case uint16:
		return "n:" + strconv.FormatUint(uint64(v), 10), true
	case uint32:
		return "n:" + strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return "n:" + strconv.FormatUint(v, 10), true
	}
	return "", false
}

func floatTokenKey(f float64) (string, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
		return "n:" + strconv.FormatInt(int64(f), 10), true
	}
	return "n:" + strconv.FormatFloat(f, 'g', -1, 64), true
}
