package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

// benchResponseLine is what the stdio benchmark's echo tool sends back
// (internal/testserver textResult inside appendResponse): the hot path of a
// client's reader.
var benchResponseLine = []byte(`{"jsonrpc":"2.0","id":123456,"result":{"content":[{"type":"text","text":"hello-117-48213"}]}}`)

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

// BenchmarkAppendRequest is the writer's cost per tools/call request.
func BenchmarkAppendRequest(b *testing.B) {
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello-117-48213"}}`)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendRequest(buf[:0], 123456, messages.MethodToolsCall, params)
	}
}

// benchBigResult is a 64 KiB text result (the stdio benchmark's
// big-65536 load): its cost is the string scans, not the structure.
var benchBigResult = []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 64<<10) + `"}]}`)

// BenchmarkDecodeBigResult is the reader's and the caller's cost for a
// 64 KiB result: the envelope skips the result, the caller decodes it.
func BenchmarkDecodeBigResult(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"result":` + string(benchBigResult) + `}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m, err := DecodeMessage(line)
		if err != nil || m.Result == nil {
			b.Fatal(m, err)
		}
		var r messages.CallToolResult
		if err := r.UnmarshalJSON(m.Result); err != nil || len(r.Content) != 1 {
			b.Fatal(r, err)
		}
	}
}
