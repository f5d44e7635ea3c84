package messages

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchToolResult is what the stdio benchmark's echo tool returns
// (internal/testserver textResult): the hot path of a client's callers.
var benchToolResult = []byte(`{"content":[{"type":"text","text":"hello-117-48213"}]}`)

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

// BenchmarkDecodeEscapedText is a 64 KiB text with an escape every 40
// bytes: each escape ends a plain run, and the next run must not search
// for the closing quote again (which was quadratic).
func BenchmarkDecodeEscapedText(b *testing.B) {
	text := strings.Repeat(strings.Repeat("y", 38)+`\n`, 64<<10/40)
	result := []byte(`{"content":[{"type":"text","text":"` + text + `"}]}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		var r CallToolResult
		if err := r.UnmarshalJSON(result); err != nil || len(r.Content) != 1 {
			b.Fatal(r, err)
		}
	}
}
