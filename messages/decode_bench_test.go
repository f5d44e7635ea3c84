package messages

import (
	"encoding/json"
	"testing"
)

// The lines below are what the stdio benchmark's echo tool sends back
// (internal/testserver textResult inside appendResponse): the hot path of a
// client's reader and of its callers.
var (
	benchResponseLine = []byte(`{"jsonrpc":"2.0","id":123456,"result":{"content":[{"type":"text","text":"hello-117-48213"}]}}`)
	benchToolResult   = []byte(`{"content":[{"type":"text","text":"hello-117-48213"}]}`)
)

// BenchmarkDecodeMessage is the reader goroutine's cost per response line.
func BenchmarkDecodeMessage(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchResponseLine)))
	for b.Loop() {
		m, err := DecodeMessage(benchResponseLine)
		if err != nil || m.Result == nil {
			b.Fatal(m, err)
		}
	}
}

// BenchmarkDecodeCallToolResult is the caller's cost per tools/call result,
// decoded the way actors.Client.call decodes it.
func BenchmarkDecodeCallToolResult(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchToolResult)))
	for b.Loop() {
		var r CallToolResult
		if err := json.Unmarshal(benchToolResult, &r); err != nil || len(r.Content) != 1 {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkAppendRequest is the writer's cost per tools/call request.
func BenchmarkAppendRequest(b *testing.B) {
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello-117-48213"}}`)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendRequest(buf[:0], 123456, MethodToolsCall, params)
	}
}

// BenchmarkCallToolResultUnmarshalJSON is BenchmarkDecodeCallToolResult for
// a caller that calls UnmarshalJSON directly, without json.Unmarshal's own
// validation and skipping passes.
func BenchmarkCallToolResultUnmarshalJSON(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchToolResult)))
	for b.Loop() {
		var r CallToolResult
		if err := r.UnmarshalJSON(benchToolResult); err != nil || len(r.Content) != 1 {
			b.Fatal(r, err)
		}
	}
}
