package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	"github.com/mcpactor/mcpactor/internal/rawjson"
	"github.com/mcpactor/mcpactor/messages"
)

// Lines built to stress the scanner: a result too large to care about, and
// junk nested twice as deep as encoding/json allows, some of it made of
// "id" members that must never be taken for the top-level one.
var (
	hugeText   = strings.Repeat(`x{}[]\"id\":1,`, 80000) // ~1 MB of string content
	deepArrays = strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	deepIDs    = strings.Repeat(`{"id":`, 20000) + "1" + strings.Repeat("}", 20000)
)

type salvageCase struct {
	name    string
	line    string
	id      messages.ID
	problem string
	ok      bool
}

var salvageCases = []salvageCase{
	// Well-formed lines: SalvageResponse finds nothing wrong.
	{"valid result", `{"jsonrpc":"2.0","id":7,"result":{}}`, messages.Int64ID(7), "", true},
	{"valid error", `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`, messages.Int64ID(7), "", true},
	{"null error beside a result", `{"jsonrpc":"2.0","id":7,"result":{},"error":null}`, messages.Int64ID(7), "", true},
	{"spaces everywhere", " { \"jsonrpc\" : \"2.0\" ,\t\"id\" : 7 , \"result\" : [ ] } \r\n", messages.Int64ID(7), "", true},
	{"null method", `{"jsonrpc":"2.0","method":null,"id":7,"result":1}`, messages.Int64ID(7), "", true},

	// The reasons a response is rejected.
	{"both result and error", `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"m"}}`, messages.Int64ID(7), "both result and error", true},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"result":{}}`, messages.Int64ID(7), `jsonrpc is not "2.0"`, true},
	{"no jsonrpc", `{"id":7,"result":{}}`, messages.Int64ID(7), `jsonrpc is not "2.0"`, true},
	{"jsonrpc a number", `{"jsonrpc":2,"id":7,"result":{}}`, messages.Int64ID(7), `jsonrpc is not "2.0"`, true},
	{"error a string", `{"jsonrpc":"2.0","id":7,"error":"boom"}`, messages.Int64ID(7), "invalid error object", true},
	{"error code a string", `{"jsonrpc":"2.0","id":7,"error":{"code":"-32000","message":"m"}}`, messages.Int64ID(7), "invalid error object", true},
	{"error code a fraction", `{"jsonrpc":"2.0","id":7,"error":{"code":1.5,"message":"m"}}`, messages.Int64ID(7), "invalid error object", true},
	{"error code too large", `{"jsonrpc":"2.0","id":7,"error":{"code":99999999999999999999}}`, messages.Int64ID(7), "invalid error object", true},
	{"error message a number", `{"jsonrpc":"2.0","id":7,"error":{"code":1,"Message":5}}`, messages.Int64ID(7), "invalid error object", true},
	{"error data anything", `{"jsonrpc":"2.0","id":7,"error":{"code":1,"data":{"code":"x","message":5}}}`, messages.Int64ID(7), "", true},

	// Ids in every form and place.
	{"id echoed as a string", `{"jsonrpc":"2.0","id":"7","result":{},"error":{}}`, messages.StringID("7"), "both result and error", true},
	{"id after the result", `{"jsonrpc":"2.0","result":{},"error":{},"id":-3}`, messages.Int64ID(-3), "both result and error", true},
	{"string id with escapes", `{"jsonrpc":"2.0","id":"a\"b\u00e9","result":{},"error":{}}`, messages.StringID(`a"bé`), "both result and error", true},
	{"last id wins", `{"jsonrpc":"2.0","id":7,"id":8,"result":{},"error":{}}`, messages.Int64ID(8), "both result and error", true},
	{"names as encoding/json matches them", `{"JSONRPC":"2.0","ID":7,"Result":{},"\u0065rror":{}}`, messages.Int64ID(7), "both result and error", true},
	{"nested ids are not the id",
		`{"jsonrpc":"2.0","result":{"id":1,"items":[{"id":2},{"id":"3"}]},"error":{"code":1,"message":"m","data":{"id":4}},"id":5}`,
		messages.Int64ID(5), "both result and error", true},
	{"escaped quotes and brackets in strings",
		`{"jsonrpc":"2.0","result":{"text":"he said \"}, \"id\": 1, {\" and left\\","id\\":"[{"},"id":"7","error":{}}`,
		messages.StringID("7"), "both result and error", true},

	// Not JSON, and still an answer.
	{"id before a huge truncated result", `{"jsonrpc":"2.0","id":7,"result":{"text":"` + hugeText, messages.Int64ID(7), "truncated JSON", true},
	{"id after a huge result", `{"jsonrpc":"2.0","result":{"text":"` + hugeText + `"},"error":{},"id":7}`, messages.Int64ID(7), "both result and error", true},
	{"deep junk before the id", `{"jsonrpc":"2.0","result":` + deepArrays + `,"id":7}`, messages.Int64ID(7), "nesting deeper than 10000 levels", true},
	{"deep junk after the id", `{"jsonrpc":"2.0","id":7,"result":` + deepArrays + `}`, messages.Int64ID(7), "nesting deeper than 10000 levels", true},
	{"deep ids before the id", `{"jsonrpc":"2.0","result":` + deepIDs + `,"id":7}`, messages.Int64ID(7), "nesting deeper than 10000 levels", true},
	{"deep ids after the id", `{"jsonrpc":"2.0","id":7,"error":` + deepIDs + `}`, messages.Int64ID(7), "nesting deeper than 10000 levels", true},
	{"truncated in the result", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hel`, messages.Int64ID(7), "truncated JSON", true},
	{"truncated after a string id", `{"jsonrpc":"2.0","result":{},"id":"7"`, messages.StringID("7"), "truncated JSON", true},
	{"bad literal after the id", `{"jsonrpc":"2.0","id":7,"result":{"a":tru},"x":1}`, messages.Int64ID(7), "invalid JSON after the id", true},
	{"trailing comma before the id", `{"jsonrpc":"2.0","result":{"a":[1,2,]},"id":7}`, messages.Int64ID(7), "invalid JSON before the id", true},
	{"stray bracket before the id", `{"jsonrpc":"2.0","result":[1]],"id":7}`, messages.Int64ID(7), "invalid JSON before the id", true},
	{"missing colon before the id", `{"jsonrpc":"2.0","result" {"id":1},"id":7}`, messages.Int64ID(7), "invalid JSON before the id", true},
	{"bad escape before the id", `{"jsonrpc":"2.0","result":"\x\"},\"id\":1,","id":7}`, messages.Int64ID(7), "invalid JSON before the id", true},
	{"control character before the id", "{\"jsonrpc\":\"2.0\",\"result\":\"a\x01\\\"b\",\"id\":7}", messages.Int64ID(7), "invalid JSON before the id", true},
	{"junk after the id's number", `{"jsonrpc":"2.0","result":1,"id":7x}`, messages.Int64ID(7), "invalid JSON after the id", true},
	{"data after the object", `{"jsonrpc":"2.0","id":7,"result":{}} {"id":8}`, messages.Int64ID(7), "data after the JSON object", true},

	// Not an answer to one of our requests.
	{"server request", `{"jsonrpc":"2.0","id":7,"method":"roots/list"}`, messages.ID{}, "", false},
	{"server request with a result", `{"jsonrpc":"2.0","id":7,"method":"roots/list","result":{}}`, messages.ID{}, "", false},
	{"method after the result", `{"jsonrpc":"2.0","id":7,"result":{},"method":5}`, messages.ID{}, "", false},
	{"method in a broken value", `{"jsonrpc":"2.0","id":7,"result":{},"method":nul}`, messages.ID{}, "", false},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":7}}`, messages.ID{}, "", false},
	{"no id", `{"jsonrpc":"2.0","result":{},"error":{}}`, messages.ID{}, "", false},
	{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, messages.ID{}, "", false},
	{"last id null", `{"jsonrpc":"2.0","id":7,"id":null,"result":{},"error":{}}`, messages.ID{}, "", false},
	{"object id", `{"jsonrpc":"2.0","id":{"id":7},"result":{}}`, messages.ID{}, "", false},
	{"boolean id", `{"jsonrpc":"2.0","id":true,"result":{}}`, messages.ID{}, "", false},
	{"fractional id", `{"jsonrpc":"2.0","id":7.5,"result":{}}`, messages.ID{}, "", false},
	{"id too large", `{"jsonrpc":"2.0","id":99999999999999999999,"result":{}}`, messages.ID{}, "", false},
	{"id too long", `{"jsonrpc":"2.0","id":"` + strings.Repeat("7", 200) + `","result":{},"error":{}}`, messages.ID{}, "", false},
	{"broken id", `{"jsonrpc":"2.0","id":"7\x","result":{}}`, messages.ID{}, "", false},
	{"surrogate in the name", `{"jsonrpc":"2.0","id\ud800":7,"result":{}}`, messages.ID{}, "", false},
	{"id cut off", `{"jsonrpc":"2.0","result":{},"id":7`, messages.ID{}, "", false},
	{"neither result nor error", `{"jsonrpc":"2.0","id":7,"error":null}`, messages.ID{}, "", false},
	{"id only inside the junk", `{"jsonrpc":"2.0","result":` + deepIDs, messages.ID{}, "", false},
	{"batch", `[{"jsonrpc":"2.0","id":7,"result":{}}]`, messages.ID{}, "", false},
	{"string", `"{\"id\":7,\"result\":1}"`, messages.ID{}, "", false},
	{"number", `7`, messages.ID{}, "", false},
	{"null", `null`, messages.ID{}, "", false},
	{"empty", ``, messages.ID{}, "", false},
	{"text", `Error: connection refused {"id":7,"result":1}`, messages.ID{}, "", false},
}

func TestSalvageResponse(t *testing.T) {
	for _, tc := range salvageCases {
		t.Run(tc.name, func(t *testing.T) {
			id, problem, ok := SalvageResponse([]byte(tc.line))
			if id != tc.id || problem != tc.problem || ok != tc.ok {
				t.Errorf("SalvageResponse = %#v, %q, %v; want %#v, %q, %v", id, problem, ok, tc.id, tc.problem, tc.ok)
			}
			// The problem names why DecodeMessage rejects the line.
			if _, err := DecodeMessage([]byte(tc.line)); ok && (err == nil) != (problem == "") {
				t.Errorf("problem %q, but DecodeMessage: %v", problem, err)
			}
		})
	}
}

// TestSalvageStringID: a string echo of our integer id still finds it.
func TestSalvageStringID(t *testing.T) {
	id, _, ok := SalvageResponse([]byte(`{"jsonrpc":"2.0","id":"7","result":{},"error":{}}`))
	if n, isInt := id.Int64(); !ok || !isInt || n != 7 {
		t.Fatalf("got %#v, %v", id, ok)
	}
}

func TestFrameHeadFacts(t *testing.T) {
	for _, tc := range []struct {
		line string
		want FrameHead
	}{
		{`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`, FrameHead{ID: messages.StringID("s1"), Method: true}},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, FrameHead{ID: messages.Int64ID(1), Result: true}},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1},"error":null}`, FrameHead{ID: messages.Int64ID(1)}},
		{`{"jsonrpc":"2.0","method":"a","method":null,"result":{}`, FrameHead{Result: true, Problem: "truncated JSON"}},
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[`, FrameHead{ID: messages.Int64ID(7), Result: true, Problem: "truncated JSON"}},
		{`{"jsonrpc":"2.0","id":7,"x":1]`, FrameHead{ID: messages.Int64ID(7), Problem: "invalid JSON after the id"}},
		{`{"x":[1,]`, FrameHead{Problem: "invalid JSON"}},
		{`[1]`, FrameHead{Problem: "not a JSON object"}},
	} {
		var s FrameHeadScanner
		s.Write([]byte(tc.line))
		if got := s.Head(); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
}

// TestFrameHeadScannerNestingLimit: the scanner refuses exactly the depth
// encoding/json refuses, the top-level object counting as one.
func TestFrameHeadScannerNestingLimit(t *testing.T) {
	for _, depth := range []int{rawjson.MaxNestingDepth - 1, rawjson.MaxNestingDepth, rawjson.MaxNestingDepth + 1} {
		inner := depth - 1
		line := []byte(`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`)
		var s FrameHeadScanner
		s.Write(line)
		if valid := !s.problemSeen && s.state == hsEnd; valid != json.Valid(line) {
			t.Errorf("depth %d: scanner valid=%v, json.Valid=%v", depth, valid, !valid)
		}
		if id, ok := s.Response(); !ok || id != messages.Int64ID(1) {
			t.Errorf("depth %d: %+v", depth, s.Head())
		}
	}
}

// TestFrameHeadScannerReset: one scanner serves frame after frame.
func TestFrameHeadScannerReset(t *testing.T) {
	var s FrameHeadScanner
	s.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":` + deepArrays))
	s.Reset()
	s.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	if id, ok := s.Response(); !ok || id != messages.Int64ID(2) || s.Head().Problem != "" {
		t.Fatalf("after Reset: %+v", s.Head())
	}
}

// headOf scans line in the pieces cut at the offsets given.
func headOf(line []byte, cuts ...int) FrameHead {
	var s FrameHeadScanner
	prev := 0
	for _, c := range cuts {
		s.Write(line[prev:c])
		prev = c
	}
	s.Write(line[prev:])
	return s.Head()
}

// TestFrameHeadScannerSplits feeds lines in pieces cut everywhere: at every
// pair of offsets for the short lines (every escape, number and name split
// every way), one and two bytes at a time for all, and checks that the
// answer is the one for the whole line, and that the answer after each
// prefix is that of the prefix whole.
func TestFrameHeadScannerSplits(t *testing.T) {
	for _, tc := range salvageCases {
		line := []byte(tc.line)
		whole := headOf(line)
		if len(line) <= 300 {
			for i := 0; i <= len(line); i++ {
				for j := i; j <= len(line); j++ {
					if got := headOf(line, i, j); got != whole {
						t.Fatalf("%s cut at %d and %d: %+v, whole %+v", tc.name, i, j, got, whole)
					}
				}
			}
			var s FrameHeadScanner
			for i := range line {
				s.Write(line[i : i+1])
				if got, want := s.Head(), headOf(line[:i+1]); got != want {
					t.Fatalf("%s after %d bytes one at a time: %+v, whole prefix %+v", tc.name, i+1, got, want)
				}
			}
		}
		for _, step := range []int{1, 2} {
			var s FrameHeadScanner
			for i := 0; i < len(line); i += step {
				s.Write(line[i:min(i+step, len(line))])
			}
			if got := s.Head(); got != whole {
				t.Fatalf("%s %d bytes at a time: %+v, whole %+v", tc.name, step, got, whole)
			}
		}
	}
}

// TestFrameHeadScannerMemory holds the scanner to its promise for frames
// too large to buffer: a fixed size, and nothing allocated while feeding
// it, however deep or long the frame.
func TestFrameHeadScannerMemory(t *testing.T) {
	if size := unsafe.Sizeof(FrameHeadScanner{}); size > 2048 {
		t.Errorf("FrameHeadScanner is %d bytes", size)
	}
	chunk := []byte(`{"text":"` + hugeText + `"},` + deepIDs + `,[` + deepArrays + `,1.5e3,true,null,"\u00e9"],`)
	var s FrameHeadScanner
	s.Write([]byte(`{"jsonrpc":"2.0","id":7,"result":[`))
	if n := testing.AllocsPerRun(5, func() { s.Write(chunk) }); n != 0 {
		t.Errorf("Write allocates %.0f times per chunk", n)
	}
	s.Write([]byte(`0],"error":{}}`))
	if id, ok := s.Response(); !ok || id != messages.Int64ID(7) {
		t.Errorf("after %d MB: %+v", s.off>>20, s.Head())
	}
	line := []byte(`{"jsonrpc":"1.0","id":123456,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	if n := testing.AllocsPerRun(100, func() { SalvageResponse(line) }); n != 0 {
		t.Errorf("SalvageResponse allocates %.0f times for an integer id", n)
	}
}

func FuzzFrameHeadScanner(f *testing.F) {
	for _, tc := range salvageCases {
		if len(tc.line) <= 1000 {
			f.Add([]byte(tc.line), uint16(len(tc.line)/3), uint16(len(tc.line)/2))
		}
	}
	for _, s := range envelopeSeeds {
		f.Add([]byte(s), uint16(5), uint16(9))
	}
	f.Fuzz(func(t *testing.T, data []byte, a, b uint16) {
		var s FrameHeadScanner
		s.Write(data) // must never panic
		whole := s.Head()

		// Streaming: any cut gives the whole line's answer.
		i, j := 0, 0
		if len(data) > 0 {
			i, j = int(a)%(len(data)+1), int(b)%(len(data)+1)
		}
		if got := headOf(data, min(i, j), max(i, j)); got != whole {
			t.Fatalf("%q cut at %d and %d: %+v, whole %+v", data, i, j, got, whole)
		}
		id, problem, ok := SalvageResponse(data)
		if ok != whole.IsResponse() || id != whole.ID && ok || ok && problem != whole.Problem {
			t.Fatalf("%q: SalvageResponse %#v %q %v, head %+v", data, id, problem, ok, whole)
		}

		// The scanner validates objects as encoding/json does.
		if s.object && (!s.problemSeen && s.state == hsEnd) != json.Valid(data) {
			t.Fatalf("%q: scanner valid=%v (%+v), json.Valid=%v", data, !s.problemSeen && s.state == hsEnd, whole, json.Valid(data))
		}

		// It finds the id of every response DecodeMessage accepts (bar
		// ids too long to keep), and for a response it finds, it names
		// a problem exactly when DecodeMessage rejects the line.
		m, err := DecodeMessage(data)
		if err == nil && m.Kind() == KindResponse && m.ID.IsValid() && !s.idLong {
			if !ok || id != m.ID || problem != "" {
				t.Fatalf("%q decodes to a response to %#v; SalvageResponse %#v %q %v", data, m.ID, id, problem, ok)
			}
		}
		if ok && (err == nil) != (problem == "") {
			t.Fatalf("%q: problem %q, DecodeMessage error %v", data, problem, err)
		}
		if ok && err == nil && (m.Kind() != KindResponse || m.ID != id) {
			t.Fatalf("%q: SalvageResponse %#v, DecodeMessage %s %#v", data, id, m.Kind(), m.ID)
		}
	})
}

// BenchmarkFrameHeadScanner is the cost of watching an oversized frame go
// by: mostly string content, which Write skips in runs.
func BenchmarkFrameHeadScanner(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + hugeText + `"}]}}`)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	var s FrameHeadScanner
	for b.Loop() {
		s.Reset()
		for i := 0; i < len(frame); i += 32 << 10 {
			s.Write(frame[i:min(i+32<<10, len(frame))])
		}
		if _, ok := s.Response(); !ok {
			b.Fatal(s.Head())
		}
	}
}

// BenchmarkSalvageResponse is the cost per malformed line.
func BenchmarkSalvageResponse(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":123456,"result":{"content":[{"type":"text","text":"hello-117-48213"}]},"error":{"code":1,"message":"m"}}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := SalvageResponse(line); !ok {
			b.Fatal("not salvaged")
		}
	}
}
