package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpactor/mcpactor/internal/jsonrpc"
)

// sseItem is what Next returned once: an event, or (TooLarge > 0) the size
// of a skipped one, with ID its last event id.
type sseItem struct {
	Type, Data, ID string
	HasID          bool
	TooLarge       int64
}

// sseRun is everything a reader yielded over a whole stream.
type sseRun struct {
	Items    []sseItem
	Heads    []jsonrpc.FrameHead // of the skipped events, in order
	End      error
	LastID   string
	Retry    string // time.Duration's String, "" while no retry took effect
	Received int64
}

func sseReadAll(r io.Reader, limit int) sseRun {
	return sseReadAllSize(r, limit, sseReadBufferSize)
}

func sseReadAllSize(r io.Reader, limit, bufSize int) sseRun {
	sr := newSSEReaderSize(r, limit, bufSize)
	var run sseRun
	for {
		ev, err := sr.Next()
		var tl *sseEventTooLargeError
		switch {
		case errors.As(err, &tl):
			run.Items = append(run.Items, sseItem{ID: tl.ID, TooLarge: tl.Size})
			run.Heads = append(run.Heads, tl.Head)
			continue
		case err != nil:
			run.End, run.LastID, run.Received = err, sr.LastEventID, sr.Received()
			if sr.RetrySet {
				run.Retry = sr.Retry.String()
			}
			return run
		}
		run.Items = append(run.Items, sseItem{Type: ev.Type, Data: string(ev.Data), ID: ev.ID, HasID: ev.HasID})
	}
}

// sseReaders returns the same stream cut every way that matters: whole,
// one byte per Read (every line split everywhere at once), in two pieces
// at each position (a CR ending one Read and its LF starting the next, a
// BOM cut in two), and with io.EOF arriving together with the last bytes.
func sseReaders(in string) map[string]io.Reader {
	rs := map[string]io.Reader{
		"whole":    strings.NewReader(in),
		"one byte": iotest.OneByteReader(strings.NewReader(in)),
		"data+EOF": iotest.DataErrReader(strings.NewReader(in)),
		"halves":   iotest.HalfReader(strings.NewReader(in)),
	}
	for i := 1; i < len(in); i++ {
		rs["split at "+strconv.Itoa(i)] = io.MultiReader(strings.NewReader(in[:i]), strings.NewReader(in[i:]))
	}
	return rs
}

func sseMsg(data string) sseItem { return sseItem{Type: "message", Data: data} }

func TestSSEReaderRules(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	for _, tc := range []struct {
		name   string
		in     string
		limit  int // 0: the default
		want   []sseItem
		end    error // nil: io.EOF
		lastID string
		retry  string
	}{
		// Dispatch and the event type.
		{name: "one event", in: "data: hello\n\n", want: []sseItem{sseMsg("hello")}},
		{name: "type defaults to message", in: "event:\ndata: x\n\n", want: []sseItem{sseMsg("x")}},
		{name: "event sets the type", in: "event: ping\ndata: x\n\n", want: []sseItem{{Type: "ping", Data: "x"}}},
		{name: "type lasts one event", in: "event: a\ndata: 1\n\ndata: 2\n\nevent: a\ndata: 3\n\n",
			want: []sseItem{{Type: "a", Data: "1"}, sseMsg("2"), {Type: "a", Data: "3"}}},
		{name: "type reset by a blank line without data", in: "event: a\n\ndata: 2\n\n", want: []sseItem{sseMsg("2")}},
		{name: "last event field wins", in: "event: a\nevent: b\ndata: x\n\n", want: []sseItem{{Type: "b", Data: "x"}}},
		{name: "no data, no event", in: "event: x\n\n\n\nid\n\nfoo\n\n:c\n\n"},
		{name: "empty stream", in: ""},

		// Data.
		{name: "data lines joined with LF", in: "data: a\ndata: b\ndata\ndata:c\n\n", want: []sseItem{sseMsg("a\nb\n\nc")}},
		{name: "one leading space dropped", in: "data:  two\ndata:none\ndata:\ttab\n\n", want: []sseItem{sseMsg(" two\nnone\n\ttab")}},
		{name: "colons in the value kept", in: "data: a:b: c\n\n", want: []sseItem{sseMsg("a:b: c")}},
		{name: "field without colon: empty value", in: "data\n\n", want: []sseItem{sseMsg("")}},
		{name: "two empty data lines", in: "data\ndata:\n\n", want: []sseItem{sseMsg("\n")}},
		{name: "trailing spaces kept", in: "data: x  \n\n", want: []sseItem{sseMsg("x  ")}},

		// Comments and unknown fields.
		{name: "comments ignored", in: ": hi\ndata: x\n: mid\n:\n\n", want: []sseItem{sseMsg("x")}},
		{name: "comment alone dispatches nothing", in: ": keep-alive\n\n: again\n\n"},
		{name: "unknown fields ignored", in: "foo: bar\nDATA: y\nData: z\ndat: q\ndatax: q\nidentity: 3\nretryx: 5\nlonger-than-any: 1\ndata: x\n\n",
			want: []sseItem{sseMsg("x")}},
		{name: "space before the colon makes another field", in: "data : x\ndata: y\n\n", want: []sseItem{sseMsg("y")}},

		// Line endings.
		{name: "CRLF", in: "data: a\r\ndata: b\r\n\r\n", want: []sseItem{sseMsg("a\nb")}},
		{name: "lone CR", in: "data: a\rdata: b\r\r", want: []sseItem{sseMsg("a\nb")}},
		{name: "mixed", in: "data: a\rdata: b\r\n\ndata: c\r\r\ndata: d\n\r", want: []sseItem{sseMsg("a\nb"), sseMsg("c"), sseMsg("d")}},
		{name: "CR CR is two line ends", in: "data: a\r\rdata: b\r\n\r\n", want: []sseItem{sseMsg("a"), sseMsg("b")}},
		{name: "LF CR is two line ends", in: "data: a\n\rdata: b\n\n", want: []sseItem{sseMsg("a"), sseMsg("b")}},
		{name: "CRLF inside an event is one line end", in: "data: a\r\ndata: b\r\n\r\n", want: []sseItem{sseMsg("a\nb")}},

		// BOM.
		{name: "BOM stripped", in: bom + "data: x\n\n", want: []sseItem{sseMsg("x")}},
		{name: "BOM before a CR", in: bom + "\rdata: x\r\r", want: []sseItem{sseMsg("x")}},
		{name: "second BOM is part of the field name", in: bom + bom + "data: x\n\ndata: y\n\n", want: []sseItem{sseMsg("y")}},
		{name: "BOM only at the start", in: "data: x\n\n" + bom + "data: y\n\n", want: []sseItem{sseMsg("x")}},
		{name: "BOM in a value kept", in: "data: " + bom + "\n\n", want: []sseItem{sseMsg(bom)}},
		{name: "half a BOM is not one", in: "\xEF\xBBdata: x\n\ndata: y\n\n", want: []sseItem{sseMsg("y")}},
		{name: "BOM alone", in: bom},
		{name: "half a BOM then the end", in: "\xEF\xBB", end: io.ErrUnexpectedEOF},

		// id.
		{name: "id persists", in: "id: 1\ndata: a\n\ndata: b\n\n",
			want: []sseItem{{Type: "message", Data: "a", ID: "1", HasID: true}, {Type: "message", Data: "b", ID: "1"}}, lastID: "1"},
		{name: "id changes", in: "id: 1\ndata: a\n\nid: 2\ndata: b\n\n",
			want: []sseItem{{Type: "message", Data: "a", ID: "1", HasID: true}, {Type: "message", Data: "b", ID: "2", HasID: true}}, lastID: "2"},
		{name: "id with NUL ignored", in: "id: 1\n\nid: a\x00b\ndata: x\n\n",
			want: []sseItem{{Type: "message", Data: "x", ID: "1"}}, lastID: "1"},
		{name: "empty id resets", in: "id: 1\ndata: a\n\nid\ndata: b\n\nid: 3\n\nid:\ndata: c\n\n",
			want: []sseItem{{Type: "message", Data: "a", ID: "1", HasID: true}, {Type: "message", Data: "b", HasID: true}, {Type: "message", Data: "c", HasID: true}}},
		{name: "id set by an event with no data", in: "id: 7\n\ndata: x\n\n",
			want: []sseItem{{Type: "message", Data: "x", ID: "7"}}, lastID: "7"},
		{name: "id keeps all but one leading space", in: "id:  7 \ndata: x\n\n",
			want: []sseItem{{Type: "message", Data: "x", ID: " 7 ", HasID: true}}, lastID: " 7 "},
		{name: "last id field wins", in: "id: 1\nid: 2\ndata: x\n\n",
			want: []sseItem{{Type: "message", Data: "x", ID: "2", HasID: true}}, lastID: "2"},
		{name: "invalid UTF-8 passes through", in: "id: \xff\ndata: \xfe\xc0\n\n",
			want: []sseItem{{Type: "message", Data: "\xfe\xc0", ID: "\xff", HasID: true}}, lastID: "\xff"},

		// retry.
		{name: "retry sets the delay", in: "retry: 500\n\n", retry: "500ms"},
		{name: "retry zero", in: "retry:0\n\n", retry: "0s"},
		{name: "retry with a letter ignored", in: "retry: 10a\n\n"},
		{name: "retry kept when a later one is bad", in: "retry: 500\nretry: 10a\nretry: -1\nretry: 1.5\nretry: +5\nretry:  5\nretry\nretry:\n\n", retry: "500ms"},
		{name: "retry too large for a Duration ignored", in: "retry: 99999999999999999999\nretry: 9223372036855\n\n"},
		{name: "largest retry", in: "retry: 9223372036854\n\n", retry: (9223372036854 * time.Millisecond).String()},
		{name: "retry takes effect without dispatch", in: "retry: 500\n", end: io.ErrUnexpectedEOF, retry: "500ms"},

		// The end of the stream.
		{name: "partial event dropped", in: "data: a\n\ndata: b\n", want: []sseItem{sseMsg("a")}, end: io.ErrUnexpectedEOF},
		{name: "partial line dropped", in: "data: a\n\ndata: b", want: []sseItem{sseMsg("a")}, end: io.ErrUnexpectedEOF},
		{name: "id of a partial event does not count", in: "id: 1\ndata: a\n\nid: 2\ndata: b\n",
			want: []sseItem{{Type: "message", Data: "a", ID: "1", HasID: true}}, end: io.ErrUnexpectedEOF, lastID: "1"},
		{name: "ends after a comment", in: "data: a\n\n: bye\n", want: []sseItem{sseMsg("a")}},
		{name: "ends inside a comment", in: "data: a\n\n: by", want: []sseItem{sseMsg("a")}},
		{name: "ends on CR", in: "data: a\r\r", want: []sseItem{sseMsg("a")}},

		// MCP 2025-11-25's priming event: an id and an empty data field.
		// "data: " appends "" and a LF, so the data buffer is "\n", not
		// empty: the event is dispatched, with data "".
		{name: "priming event with empty data", in: "id: e1\nretry: 500\ndata: \n\n",
			want: []sseItem{{Type: "message", Data: "", ID: "e1", HasID: true}}, lastID: "e1", retry: "500ms"},
		// With no data line the buffer is empty: nothing is dispatched,
		// but the id and retry stand.
		{name: "priming event without a data line", in: "id: e1\nretry: 500\n\n", lastID: "e1", retry: "500ms"},

		// The size limit (8 bytes here).
		{name: "data at the limit", in: "data: 01234567\n\n", limit: 8, want: []sseItem{sseMsg("01234567")}},
		{name: "data over the limit skipped", in: "data: 012345678\n\ndata: ok\n\n", limit: 8,
			want: []sseItem{{TooLarge: 9}, sseMsg("ok")}},
		{name: "joined lines over the limit", in: "data: 0123\ndata: 4567\n\ndata: ok\n\n", limit: 8,
			want: []sseItem{{TooLarge: 9}, sseMsg("ok")}},
		{name: "an empty data line's joiner counts", in: "data: 01234567\ndata\n\ndata: ok\n\n", limit: 8,
			want: []sseItem{{TooLarge: 9}, sseMsg("ok")}},
		{name: "event type counts", in: "event: abcde\ndata: 0123\n\ndata: ok\n\n", limit: 8,
			want: []sseItem{{TooLarge: 9}, sseMsg("ok")}},
		{name: "every event value counts", in: "event: abcde\nevent: f\ndata: 012\n\ndata: ok\n\n", limit: 8,
			want: []sseItem{{TooLarge: 9}, sseMsg("ok")}},
		{name: "id of a skipped event stands", in: "id: ab\ndata: 0123456\n\ndata: ok\n\n", limit: 8,
			want: []sseItem{{ID: "ab", TooLarge: 9}, {Type: "message", Data: "ok", ID: "ab"}}, lastID: "ab"},
		{name: "id after the overflow stands", in: "data: 0123456\nid: 01234567\n\n", limit: 8,
			want: []sseItem{{ID: "01234567", TooLarge: 15}}, lastID: "01234567"},
		{name: "id longer than the limit ignored", in: "id: 1\n\nid: 012345678\ndata: x\n\ndata: ok\n\n", limit: 8,
			want: []sseItem{{ID: "1", TooLarge: 10}, {Type: "message", Data: "ok", ID: "1"}}, lastID: "1"},
		{name: "retry in a skipped event stands", in: "data: 012345678\nretry: 70\n\n", limit: 8,
			want: []sseItem{{TooLarge: 9}}, retry: "70ms"},
		{name: "long comments and unknown fields are free", in: ": " + strings.Repeat("c", 50) + "\nxyz: " + strings.Repeat("u", 50) + "\ndata: ok\n\n", limit: 8,
			want: []sseItem{sseMsg("ok")}},
		{name: "skipped event cut off by the end", in: "data: 012345678\n", limit: 8, end: io.ErrUnexpectedEOF},
		{name: "CRLF after a skipped event", in: "data: 012345678\r\n\r\ndata: ok\r\n\r\n", limit: 8,
			want: []sseItem{{TooLarge: 9}, sseMsg("ok")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end := tc.end
			if end == nil {
				end = io.EOF
			}
			for how, r := range sseReaders(tc.in) {
				bufSize := sseReadBufferSize
				if how == "whole" {
					how, bufSize = "whole, tiny buffer", 16 // lines outgrow it
				}
				got := sseReadAllSize(r, tc.limit, bufSize)
				if got.End != end {
					t.Errorf("%s: ended with %v, want %v", how, got.End, end)
				}
				if !reflect.DeepEqual(got.Items, tc.want) {
					t.Errorf("%s: got\n\t%+v\nwant\n\t%+v", how, got.Items, tc.want)
				}
				if got.LastID != tc.lastID || got.Retry != tc.retry {
					t.Errorf("%s: last id %q retry %q, want %q and %q", how, got.LastID, got.Retry, tc.lastID, tc.retry)
				}
				if got.Received != int64(len(tc.in)) {
					t.Errorf("%s: received %d bytes, want %d", how, got.Received, len(tc.in))
				}
			}
		})
	}
}

func TestSSEReaderDefaultLimit(t *testing.T) {
	if sr := newSSEReader(strings.NewReader(""), 0); sr.max != defaultMaxFrameSize {
		t.Fatalf("limit %d, want defaultMaxFrameSize", sr.max)
	}
}

// A CR that ends a blank line dispatches at once: the reader must not wait
// for the next byte to see whether it is a LF, since a server may send
// nothing more for a long time. The LF, when it comes, is not a second
// line end.
func TestSSEReaderDispatchesOnCRWithoutWaiting(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	sr := newSSEReader(pr, 0)
	type result struct {
		ev  sseEvent
		err error
	}
	results := make(chan result, 8) // never blocks the reader, even if the test fails early
	go func() {
		for {
			ev, err := sr.Next()
			ev.Data = bytes.Clone(ev.Data)
			results <- result{ev, err}
			if err != nil {
				return
			}
		}
	}()
	next := func() result {
		select {
		case r := <-results:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
			return result{}
		}
	}
	io.WriteString(pw, "data: a\r\r")
	if r := next(); r.err != nil || string(r.ev.Data) != "a" {
		t.Fatalf("got %q, %v", r.ev.Data, r.err)
	}
	io.WriteString(pw, "\ndata: b\r")
	io.WriteString(pw, "\ndata: c\r\n\r\n")
	if r := next(); r.err != nil || string(r.ev.Data) != "b\nc" {
		t.Fatalf("got %q, %v", r.ev.Data, r.err)
	}
	pw.Close()
	if r := next(); r.err != io.EOF {
		t.Fatalf("ended with %v", r.err)
	}
}

// Received moves with every byte, comments included, and can be read from
// another goroutine while Next blocks.
func TestSSEReaderReceivedShowsLiveness(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	sr := newSSEReader(pr, 0)
	done := make(chan error, 1)
	go func() {
		_, err := sr.Next()
		done <- err
	}()
	io.WriteString(pw, ": ping\n")
	deadline := time.Now().Add(10 * time.Second)
	for sr.Received() != 7 {
		if time.Now().After(deadline) {
			t.Fatalf("received %d, want 7", sr.Received())
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Next returned on a comment: %v", err)
	default:
	}
	pw.Close()
	if err := <-done; err != io.EOF {
		t.Fatalf("ended with %v", err)
	}
}

func TestSSEReaderReadErrorIsSticky(t *testing.T) {
	boom := errors.New("boom")
	sr := newSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)), 0)
	if ev, err := sr.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("%q, %v", ev.Data, err)
	}
	for range 2 {
		if _, err := sr.Next(); err != boom {
			t.Fatalf("want the read error, got %v", err)
		}
	}
	sr = newSSEReader(strings.NewReader("data: a\n\n"), 0)
	sr.Next()
	for range 2 {
		if _, err := sr.Next(); err != io.EOF {
			t.Fatalf("want io.EOF, got %v", err)
		}
	}
}

// A read error met while the first bytes might still be a BOM is reported
// after those bytes are parsed.
func TestSSEReaderErrorInsideTheBOM(t *testing.T) {
	boom := errors.New("boom")
	sr := newSSEReader(io.MultiReader(strings.NewReader("\xEF\xBB"), iotest.ErrReader(boom)), 0)
	if _, err := sr.Next(); err != boom {
		t.Fatalf("want the read error, got %v", err)
	}
}

// sseFlood serves head, then units copies of unit, then tail, without
// holding them whole.
type sseFlood struct {
	head, unit, tail string
	units            int
	part, off        int // in head (0), the units (1 to units) or tail (units+1)
	onRead           func()
}

func (f *sseFlood) Read(p []byte) (int, error) {
	if f.onRead != nil {
		f.onRead()
	}
	n := 0
	for n < len(p) {
		var src string
		switch {
		case f.part == 0:
			src = f.head
		case f.part <= f.units:
			src = f.unit
		case f.part == f.units+1:
			src = f.tail
		default:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		c := copy(p[n:], src[f.off:])
		n += c
		if f.off += c; f.off == len(src) {
			f.part, f.off = f.part+1, 0
		}
	}
	return n, nil
}

// An event far larger than the limit is skipped without being held, and
// the stream goes on.
func TestSSEReaderHugeEventNotBufferedWhole(t *testing.T) {
	const limit = 1 << 20
	for _, tc := range []struct {
		name, head, unit string
	}{
		{"one line", "id: big\ndata: ", strings.Repeat("x", 4096)},
		{"many lines", "id: big\n", "data: " + strings.Repeat("x", 1000) + "\n"},
		{"endless id", "id: ", strings.Repeat("x", 4096)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &sseFlood{head: tc.head, unit: tc.unit, units: (64 << 20) / len(tc.unit),
				tail: "\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"}
			sr := newSSEReader(f, limit)
			peakLen, peakCap := 0, 0
			f.onRead = func() {
				// Reads happen inside Next, on this goroutine.
				peakLen = max(peakLen, len(sr.data)+sr.long.n+len(sr.typ)+len(sr.idv))
				peakCap = max(peakCap, cap(sr.data)+len(sr.long.chunks)*pieceSize, cap(sr.typ), cap(sr.idv))
			}
			_, err := sr.Next()
			var tl *sseEventTooLargeError
			if !errors.As(err, &tl) || tl.Limit != limit || tl.Size <= limit {
				t.Fatalf("got %v", err)
			}
			ev, err := sr.Next()
			if err != nil || !strings.Contains(string(ev.Data), `"id":1`) {
				t.Fatalf("event after the huge one: %q, %v", ev.Data, err)
			}
			if _, err := sr.Next(); err != io.EOF {
				t.Fatalf("ended with %v", err)
			}
			// Held: at most the limit; room: at most the limit rounded up
			// to a whole piece.
			if peakLen > limit+1 || peakCap > limit+pieceSize {
				t.Errorf("buffers held %d bytes, one had room for %d, for a %d-byte limit", peakLen, peakCap, limit)
			}
			if peakLen < limit/2 {
				t.Errorf("buffers peaked at %d bytes: the flood was not read through them", peakLen)
			}
			t.Logf("skipped %d bytes, peak %d held, %d room", tl.Size, peakLen, peakCap)
			if tc.name != "endless id" && tl.ID != "big" {
				t.Errorf("skipped event's id %q, want big", tl.ID)
			}
		})
	}
}

// TestSSEReaderLongEvents checks events whose data outgrows one piece: the
// same events as the model gives, however the stream is cut, each long
// one in a buffer of its own (Owned) that later events leave alone; and a
// long event costs about its own size in allocations, not a buffer grown
// by doubling.
func TestSSEReaderLongEvents(t *testing.T) {
	var in strings.Builder
	for _, n := range []int{pieceSize - 2, pieceSize - 1, pieceSize, pieceSize + 1, 3*pieceSize + 5} {
		fmt.Fprintf(&in, "id: %d\ndata: %s\n\n", n, strings.Repeat("a", n))
		// Two data lines, the joining LF falling on either side of a
		// piece's end.
		fmt.Fprintf(&in, "data: %s\ndata: %s\n\n", strings.Repeat("b", n-7), strings.Repeat("c", 9))
	}
	in.WriteString("data: short\n\n")
	want := sseModel([]byte(in.String()))
	for how, r := range map[string]io.Reader{
		"whole":    strings.NewReader(in.String()),
		"halves":   iotest.HalfReader(strings.NewReader(in.String())),
		"data+EOF": iotest.DataErrReader(strings.NewReader(in.String())),
		"one byte": iotest.OneByteReader(strings.NewReader(in.String())),
	} {
		if got := sseReadAll(r, 1<<20); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the reader and the model differ (%d and %d items)", how, len(got.Items), len(want.Items))
		}
	}

	sr := newSSEReader(strings.NewReader(in.String()), 1<<20)
	var kept [][]byte
	var copies []string
	for {
		ev, err := sr.Next()
		if err != nil {
			break
		}
		if ev.Owned != (len(ev.Data) >= pieceSize) {
			t.Errorf("%d bytes of data: owned %v", len(ev.Data), ev.Owned)
		}
		if ev.Owned {
			if cap(ev.Data) != len(ev.Data)+1 {
				t.Errorf("an owned event of %d bytes in a buffer of %d", len(ev.Data), cap(ev.Data))
			}
			kept, copies = append(kept, ev.Data), append(copies, string(ev.Data))
		}
	}
	for i, d := range kept {
		if string(d) != copies[i] {
			t.Fatalf("an owned event's data changed after later events: %.20q...", d)
		}
	}

	const long = 1 << 20
	event := []byte("data: " + strings.Repeat("w", long) + "\n\n")
	src := bytes.NewReader(nil)
	sr = newSSEReader(src, 4<<20)
	bytesPer := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			src.Reset(event)
			sr.err = nil
			if ev, err := sr.Next(); err != nil || len(ev.Data) != long {
				b.Fatalf("%d bytes, %v", len(ev.Data), err)
			}
		}
	}).AllocedBytesPerOp()
	// Doubling cost about four times the event. (The race detector's
	// pool drops some chunks it is given back, which are made again.)
	if bytesPer > long+long/2 {
		t.Errorf("a %d-byte event cost %d bytes of allocations, want about its own size", long, bytesPer)
	}
}

// The data of a skipped event is followed as it goes by, so that a
// response in it can fail its request; its joining LFs are JSON space.
func TestSSEReaderTooLargeShowsTheHead(t *testing.T) {
	in := "data: {\"jsonrpc\":\"2.0\",\n" +
		"data: \"result\":{\"text\":\"" + strings.Repeat("z", 200) + "\"},\n" +
		"data: \"id\":42}\n\n"
	for how, r := range sseReaders(in) {
		run := sseReadAll(r, 64)
		if len(run.Heads) != 1 || run.End != io.EOF {
			t.Fatalf("%s: %+v", how, run)
		}
		if id, ok := responseID(run.Heads[0]); !ok || id != 42 {
			t.Errorf("%s: head %+v, want the response to 42", how, run.Heads[0])
		}
	}
}

// sseLoop serves the same bytes over and over, for steady-state tests.
type sseLoop struct {
	b   []byte
	off int
}

func (l *sseLoop) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], l.b[l.off:])
		n += c
		l.off = (l.off + c) % len(l.b)
	}
	return n, nil
}

// Small events cost no allocation: the data is read in place into a
// reused buffer, the type string is reused while it does not change, and
// the id string too.
func TestSSEReaderSmallEventsDoNotAllocate(t *testing.T) {
	loop := &sseLoop{b: []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" +
		": keep-alive\r\nevent: other\r\nid: 5\r\ndata: {}\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":3,\"result\":{}}\n\n")}
	sr := newSSEReader(loop, 0)
	for range 10 {
		sr.Next()
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := sr.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per event", allocs)
	}
}

// sseChunks hands out b in pieces of pseudo-random length.
type sseChunks struct {
	b   []byte
	rng uint64
}

func (c *sseChunks) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	c.rng = c.rng*6364136223846793005 + 1442695040888963407
	n := min(int(c.rng>>60)+1, len(p), len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// sseModel is the WHATWG algorithm written plainly over the whole input,
// with no size limit, for the fuzz target to check the streaming reader
// against.
func sseModel(in []byte) sseRun {
	var run sseRun
	run.Received = int64(len(in))
	in = bytes.TrimPrefix(in, sseBOM)
	var lines [][]byte
	partial := false
	for len(in) > 0 {
		i := bytes.IndexAny(in, "\r\n")
		if i < 0 {
			partial = in[0] != ':'
			break
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var data []byte
	var typ, idBuffer string
	hasID, pending := false, false
	for _, line := range lines {
		if len(line) == 0 {
			run.LastID = idBuffer
			if len(data) > 0 {
				if typ == "" {
					typ = "message"
				}
				run.Items = append(run.Items, sseItem{Type: typ, Data: string(data[:len(data)-1]), ID: idBuffer, HasID: hasID})
			}
			data, typ, hasID, pending = nil, "", false, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		pending = true
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], bytes.TrimPrefix(line[i+1:], []byte(" "))
		}
		switch string(name) {
		case "event":
			typ = string(value)
		case "data":
			data = append(append(data, value...), '\n')
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				idBuffer, hasID = string(value), true
			}
		case "retry":
			digits := len(value) > 0
			for _, c := range value {
				digits = digits && '0' <= c && c <= '9'
			}
			if ms, err := strconv.ParseInt(string(value), 10, 64); digits && err == nil && ms <= sseMaxRetry {
				run.Retry = (time.Duration(ms) * time.Millisecond).String()
			}
		}
	}
	run.End = io.EOF
	if pending || partial {
		run.End = io.ErrUnexpectedEOF
	}
	return run
}

func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("data: a\r\ndata: b\r\rid: 1\nevent: x\ndata\n\n"), uint8(4), uint64(1))
	f.Add([]byte("\xEF\xBB\xBFretry: 500\nid: e1\ndata: \n\n: c\r\n"), uint8(0), uint64(2))
	f.Add([]byte("id: a\x00\ndata:  {\"id\":1,\"result\":{}}\n\nretry: 10a\n\ndata: x"), uint8(9), uint64(3))
	f.Add([]byte("event: abcdef\nevent: g\ndata: 0123\n\r\nid: 0123456789\n\n"), uint8(7), uint64(4))
	f.Fuzz(func(t *testing.T, in []byte, limit uint8, seed uint64) {
		// With no limit in reach, the reader agrees with the model.
		// A 16-byte read buffer (bufio's least) keeps each run cheap and
		// makes lines outgrow it.
		whole := sseReadAllSize(bytes.NewReader(in), len(in)+1, 16)
		if model := sseModel(in); !reflect.DeepEqual(whole, model) {
			t.Fatalf("reader\n\t%+v\nmodel\n\t%+v", whole, model)
		}
		// With a small one, however the stream is cut, the same events,
		// ids, retry and skipped sizes come out.
		max := int(limit%32) + 1
		ref := sseReadAllSize(bytes.NewReader(in), max, 16)
		for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader(in)), &sseChunks{b: in, rng: seed}} {
			if got := sseReadAllSize(r, max, 16); !reflect.DeepEqual(got, ref) {
				t.Fatalf("split\n\t%+v\nwhole\n\t%+v", got, ref)
			}
		}
		for _, it := range ref.Items {
			switch {
			case it.TooLarge > 0:
				if it.TooLarge <= int64(max) {
					t.Fatalf("skipped an event of %d bytes with limit %d", it.TooLarge, max)
				}
			case len(it.Data) > max, it.Type == "", strings.ContainsAny(it.Data, "\r"), strings.ContainsAny(it.ID, "\r\n\x00"):
				t.Fatalf("bad event %+v with limit %d", it, max)
			}
		}
	})
}

// BenchmarkSSEReader parses 1,000 small JSON-RPC notifications: with LF
// line ends, with an id on each event (one string made per event), and
// with lone CRs (a LF, if any, is far off).
func BenchmarkSSEReader(b *testing.B) {
	for _, variant := range []string{"LF", "LF with ids", "CR"} {
		var buf bytes.Buffer
		for i := range 1000 {
			if variant == "LF with ids" {
				fmt.Fprintf(&buf, "id: %d\n", i)
			}
			fmt.Fprintf(&buf, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":%d,\"total\":1000}}\n\n", i, i)
		}
		in := buf.Bytes()
		if variant == "CR" {
			in = bytes.ReplaceAll(in, []byte("\n"), []byte("\r"))
		}
		b.Run("1000 events, "+variant, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			r := bytes.NewReader(in)
			for b.Loop() {
				r.Reset(in)
				sr := newSSEReader(r, 0)
				n := 0
				for {
					_, err := sr.Next()
					if err != nil {
						break
					}
					n++
				}
				if n != 1000 {
					b.Fatalf("%d events", n)
				}
			}
		})
	}
}
