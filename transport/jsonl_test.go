package transport

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll returns every line and every error a lineReader yields until a
// non-oversized error (normally io.EOF).
func readAll(t *testing.T, lr *lineReader) (lines []string, oversized []*oversizedError, final error) {
	t.Helper()
	for {
		line, err := lr.next()
		var over *oversizedError
		switch {
		case errors.As(err, &over):
			oversized = append(oversized, over)
		case err != nil:
			return lines, oversized, err
		default:
			lines = append(lines, string(line))
		}
	}
}

func TestLineReaderSplitsLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"plain", "a\nbb\nccc\n", []string{"a", "bb", "ccc"}},
		{"crlf", "a\r\nbb\r\n", []string{"a", "bb"}},
		{"blank lines", "\n\na\n\r\n \t \nb\n\n", []string{"a", "b"}},
		{"final line without newline", "a\nlast", []string{"a", "last"}},
		{"final crlf-less line after blank", "a\n\nz", []string{"a", "z"}},
		{"empty input", "", nil},
		{"only blanks", "\n\r\n\n", nil},
		{"spaces kept (JSON ignores them)", "  {\"a\": 1}  \n", []string{`  {"a": 1}  `}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One byte per Read: every line is split across reads.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				lines, over, err := readAll(t, newLineReader(r, 100))
				if !errors.Is(err, io.EOF) || len(over) != 0 {
					t.Fatalf("ended with %v, oversized %v", err, over)
				}
				if strings.Join(lines, "|") != strings.Join(tc.want, "|") || len(lines) != len(tc.want) {
					t.Errorf("lines %q, want %q", lines, tc.want)
				}
			}
		})
	}
}

func TestLineReaderLongLinesBelowCap(t *testing.T) {
	// Lines longer than the read buffer, split across many reads, are
	// returned whole: no "token too long" below the cap.
	long := strings.Repeat("x", 3*readBufferSize+17)
	in := "short\n" + long + "\n" + long + "\r\nend\n"
	lines, over, err := readAll(t, newLineReader(iotest.HalfReader(strings.NewReader(in)), 4*readBufferSize))
	if !errors.Is(err, io.EOF) || len(over) != 0 {
		t.Fatalf("ended with %v, oversized %v", err, over)
	}
	if len(lines) != 4 || lines[0] != "short" || lines[1] != long || lines[2] != long || lines[3] != "end" {
		t.Fatalf("got %d lines", len(lines))
	}
}

func TestLineReaderCap(t *testing.T) {
	for _, limit := range []int{10, readBufferSize - 1, readBufferSize, readBufferSize + 1, 3 * readBufferSize} {
		at := strings.Repeat("a", limit)
		over := strings.Repeat("b", limit+1)
		for _, tc := range []struct {
			name string
			in   string
			want []string
			drop []int64
		}{
			{"exactly at the cap", at + "\nnext\n", []string{at, "next"}, nil},
			{"at the cap with crlf", at + "\r\nnext\n", []string{at, "next"}, nil},
			{"one byte over", over + "\nnext\n", []string{"next"}, []int64{int64(limit + 1)}},
			{"final line at the cap", "x\n" + at, []string{"x", at}, nil},
			{"final line one byte over", "x\n" + over, []string{"x"}, []int64{int64(limit + 1)}},
			{"two oversized in a row", over + "\n" + over + "\nok\n", []string{"ok"}, []int64{int64(limit + 1), int64(limit + 1)}},
		} {
			lines, got, err := readAll(t, newLineReader(strings.NewReader(tc.in), limit))
			if !errors.Is(err, io.EOF) {
				t.Fatalf("limit %d, %s: ended with %v", limit, tc.name, err)
			}
			if strings.Join(lines, "|") != strings.Join(tc.want, "|") {
				t.Errorf("limit %d, %s: lines of lengths %v, want %v", limit, tc.name, lens(lines), lens(tc.want))
			}
			if len(got) != len(tc.drop) {
				t.Errorf("limit %d, %s: %d oversized, want %d", limit, tc.name, len(got), len(tc.drop))
				continue
			}
			for i, o := range got {
				if o.Limit != limit || o.Dropped != tc.drop[i] {
					t.Errorf("limit %d, %s: oversized %+v, want dropped %d", limit, tc.name, o, tc.drop[i])
				}
			}
		}
	}
}

func lens(lines []string) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		out[i] = len(l)
	}
	return out
}

// patternReader produces n bytes of 'x' then the tail, and records the
// most the lineReader ever held in its accumulation buffer while reading.
type patternReader struct {
	n, read int64 // n < 0: endless
	tail    *strings.Reader
	lr      *lineReader
	maxBuf  int
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.lr != nil {
		p.maxBuf = max(p.maxBuf, len(p.lr.long.chunks)*pieceSize)
	}
	if p.n < 0 || p.read < p.n {
		k := len(b)
		if p.n >= 0 {
			k = int(min(int64(k), p.n-p.read))
		}
		for i := range b[:k] {
			b[i] = 'x'
		}
		p.read += int64(k)
		return k, nil
	}
	return p.tail.Read(b)
}

func TestLineReaderHugeLineNotBufferedWhole(t *testing.T) {
	const limit = 16 << 20
	const huge = 20 << 20
	src := &patternReader{n: huge, tail: strings.NewReader("\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")}
	lr := newLineReader(src, limit)
	src.lr = lr
	line, err := lr.next()
	var over *oversizedError
	if !errors.As(err, &over) || over.Dropped != huge || over.Limit != limit {
		t.Fatalf("first frame: %q, %v; want an oversizedError of %d bytes", line, err, huge)
	}
	if src.read != huge {
		t.Errorf("read %d bytes of the huge line, want all %d (discarded, not left behind)", src.read, huge)
	}
	// At most the cap (plus one read buffer) was ever held, never the
	// whole line; and the memory is let go once the line is dropped.
	if src.maxBuf > limit+readBufferSize {
		t.Errorf("held up to %d bytes for a %d-byte line with a %d cap", src.maxBuf, huge, limit)
	}
	if len(lr.long.chunks) != 0 || lr.long.n != 0 {
		t.Errorf("still holding %d pieces (%d bytes) after discarding the line", len(lr.long.chunks), lr.long.n)
	}
	// Resync: the next line is delivered intact.
	line, err = lr.next()
	if err != nil || string(line) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("after the huge line: %q, %v", line, err)
	}
	if _, err := lr.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("want EOF, got %v", err)
	}
}

// endlessReader yields 'x' forever and stops the test's reader after n
// bytes by failing, reporting the accumulation buffer's size on the way.
type endlessReader struct {
	read, stopAt int64
	lr           *lineReader
	capAtStop    int
	maxAfterCap  int // largest buffer seen once the cap was passed
	limit        int
}

var errEnough = errors.New("enough")

func (e *endlessReader) Read(b []byte) (int, error) {
	if e.read > int64(e.limit)+readBufferSize {
		e.maxAfterCap = max(e.maxAfterCap, len(e.lr.long.chunks)*pieceSize)
	}
	if e.read >= e.stopAt {
		e.capAtStop = len(e.lr.long.chunks) * pieceSize
		return 0, errEnough
	}
	for i := range b {
		b[i] = 'x'
	}
	e.read += int64(len(b))
	return len(b), nil
}

func TestLineReaderEndlessLine(t *testing.T) {
	// The reader keeps discarding an endless line: it reads far past the
	// cap without holding more than the cap, and holds nothing once it
	// knows the line is oversized.
	const limit = 1 << 20
	src := &endlessReader{stopAt: 64 << 20, limit: limit}
	lr := newLineReader(src, limit)
	src.lr = lr
	_, err := lr.next()
	if !errors.Is(err, errEnough) {
		t.Fatalf("want the source's error at the end, got %v", err)
	}
	if src.read < src.stopAt {
		t.Fatalf("stopped reading after %d bytes", src.read)
	}
	if src.maxAfterCap > readBufferSize || src.capAtStop > readBufferSize {
		t.Errorf("buffer of %d bytes (%d at the end) kept while discarding an endless line", src.maxAfterCap, src.capAtStop)
	}
}

func TestLineReaderResyncAfterOversized(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("{\"a\":1}\n")
	in.WriteString(strings.Repeat("y", 5000))
	in.WriteString("\n{\"b\":2}\n")
	in.WriteString(strings.Repeat("z", 5000) + "\r\n")
	in.WriteString("{\"c\":3}")
	lines, over, err := readAll(t, newLineReader(iotest.HalfReader(&in), 1000))
	if !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if strings.Join(lines, " ") != `{"a":1} {"b":2} {"c":3}` || len(over) != 2 {
		t.Errorf("lines %q, oversized %d", lines, len(over))
	}
}

func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	lr := newLineReader(io.MultiReader(strings.NewReader("ok\npartial"), iotest.ErrReader(boom)), 100)
	if line, err := lr.next(); err != nil || string(line) != "ok" {
		t.Fatalf("%q, %v", line, err)
	}
	if _, err := lr.next(); !errors.Is(err, boom) {
		t.Fatalf("want the read error, got %v", err)
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\r\n\n ccc"), uint8(2))
	f.Add([]byte("0123456789\n01234\n"), uint8(5))
	f.Add([]byte("\r\r\n\r"), uint8(1))
	f.Add(bytes.Repeat([]byte("x"), 300), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		max := int(limit%64) + 1
		lr := newLineReader(iotest.HalfReader(bytes.NewReader(data)), max)
		for range len(data) + 2 {
			line, err := lr.next()
			var over *oversizedError
			switch {
			case errors.As(err, &over):
				if over.Dropped <= int64(max) {
					t.Fatalf("oversized error for %d bytes with cap %d", over.Dropped, max)
				}
				continue
			case errors.Is(err, io.EOF):
				return
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line %q holds a newline", line)
			}
			if len(line) > max {
				t.Fatalf("line of %d bytes with cap %d: %q", len(line), max, line)
			}
			if len(bytes.TrimSpace(line)) == 0 {
				t.Fatalf("blank line %q returned", line)
			}
		}
		t.Fatal("reader did not reach EOF")
	})
}

// TestReadBufferGrowsOnce: short lines keep the small buffer; the first
// line that does not fit it moves the reader to the large one at once,
// losing nothing that was buffered behind that line. (A reader that
// cannot be bounded in time, as here, keeps the large one.)
func TestReadBufferGrowsOnce(t *testing.T) {
	long := strings.Repeat("y", initialReadBuffer+100)
	in := "a\nb\n" + long + "\nc\nd\n" + long + "\ne\n"
	lr := newLineReader(iotest.HalfReader(strings.NewReader(in)), defaultMaxFrameSize)
	var got []string
	for {
		line, err := lr.next()
		if err != nil {
			break
		}
		got = append(got, string(line))
		if len(got) == 2 && lr.r.Size() != initialReadBuffer {
			t.Errorf("after short lines the buffer is %d bytes, want %d", lr.r.Size(), initialReadBuffer)
		}
	}
	want := []string{"a", "b", long, "c", "d", long, "e"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %d lines, want %d, or different ones", len(got), len(want))
	}
	if lr.r.Size() != readBufferSize {
		t.Errorf("after a long line the buffer is %d bytes, want %d", lr.r.Size(), readBufferSize)
	}
}

// TestLineReaderLongLineGiven checks a line longer than the read buffer:
// it comes whole, in a buffer of its exact size that the caller keeps
// (given), which the next lines do not write over; and putting it
// together costs that buffer and little else, not a buffer grown by
// doubling.
func TestLineReaderLongLineGiven(t *testing.T) {
	const long = 1 << 20
	data := strings.Repeat("y", long) + "\r\nshort\n" + strings.Repeat("z", long) + "\n"
	lr := newLineReader(iotest.HalfReader(strings.NewReader(data)), 4<<20)
	first, err := lr.next()
	if err != nil || len(first) != long || strings.Trim(string(first), "y") != "" {
		t.Fatalf("first line: %d bytes, %v", len(first), err)
	}
	if !lr.given || cap(first) != long+2 {
		t.Fatalf("first line given %v, capacity %d; want its own buffer of %d", lr.given, cap(first), long+2)
	}
	if line, err := lr.next(); err != nil || string(line) != "short" || lr.given {
		t.Fatalf("second line: %q, %v, given %v", line, err, lr.given)
	}
	if line, err := lr.next(); err != nil || len(line) != long || line[0] != 'z' {
		t.Fatalf("third line: %d bytes, %v", len(line), err)
	}
	if strings.Trim(string(first), "y") != "" {
		t.Fatal("a later line wrote over a given one")
	}
	if len(lr.long.chunks) != 0 {
		t.Errorf("%d pieces kept after the line was put together", len(lr.long.chunks))
	}

	line := []byte(strings.Repeat("w", long) + "\n")
	src := bytes.NewReader(nil)
	lr = newLineReader(src, 4<<20)
	lr.next() // the first long line grows the read buffer, once
	allocs := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			src.Reset(line)
			if l, err := lr.next(); err != nil || len(l) != long {
				b.Fatalf("%d bytes, %v", len(l), err)
			}
		}
	}).AllocedBytesPerOp()
	// About the line itself: growing one buffer by doubling cost four
	// times that. (The race detector's pool drops some pieces it is
	// given back, which then are made again.)
	if allocs > long+long/2 {
		t.Errorf("a %d-byte line cost %d bytes of allocations, want about its own size", long, allocs)
	}
}
