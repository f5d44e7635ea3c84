package transport

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestStderrRingKeepsNewestBytes(t *testing.T) {
	// Writes of every size against a small ring, checked against the plain
	// answer: the last limit bytes of everything written.
	const limit = 16
	for _, sizes := range [][]int{
		{1, 2, 3},
		{5, 5, 5, 5},           // wraps inside a write
		{16},                   // exactly the limit
		{10, 6, 1},             // fills exactly, then wraps by one
		{3, 40, 2},             // a write larger than the ring
		{15, 15, 15, 15, 15},   // repeated wrap-around
		{1, 1, 1, 1, 1, 1, 31}, // small, then huge
	} {
		r := newStderrRing(limit)
		var all []byte
		for i, n := range sizes {
			p := bytes.Repeat([]byte{byte('a' + i)}, n)
			for j := range p {
				p[j] += byte(j % 3) // vary within a write too
			}
			if got, err := r.Write(p); got != n || err != nil {
				t.Fatalf("Write(%d) = %d, %v", n, got, err)
			}
			all = append(all, p...)
		}
		want := all[max(0, len(all)-limit):]
		if got := r.bytes(); !bytes.Equal(got, want) {
			t.Errorf("sizes %v: kept %q, want %q", sizes, got, want)
		}
		if cap(r.buf) > limit {
			t.Errorf("sizes %v: ring grew to %d bytes, limit %d", sizes, cap(r.buf), limit)
		}
		if r.total != int64(len(all)) {
			t.Errorf("sizes %v: total %d, want %d", sizes, r.total, len(all))
		}
	}
}

func TestStderrRingGrowsOnlyAsNeeded(t *testing.T) {
	r := newStderrRing(64 << 10)
	if cap(r.buf) != 0 {
		t.Fatalf("a quiet server costs %d bytes", cap(r.buf))
	}
	r.Write([]byte("one line\n"))
	if cap(r.buf) > 1<<10 {
		t.Errorf("one line costs %d bytes", cap(r.buf))
	}
}

func TestStderrRingBoundedUnderFlood(t *testing.T) {
	const limit = 64 << 10
	r := newStderrRing(limit)
	line := []byte(strings.Repeat("-", 79) + "\n")
	chunk := bytes.Repeat(line, 400) // 32000 bytes, like the drain's reads
	for written := 0; written < 10<<20; written += len(chunk) {
		r.Write(chunk)
		if cap(r.buf) > limit {
			t.Fatalf("ring of %d bytes after %d written, limit %d", cap(r.buf), written, limit)
		}
	}
	if len(r.bytes()) != limit {
		t.Errorf("kept %d bytes, want %d", len(r.bytes()), limit)
	}
}

func TestStderrRingHugeSingleWrite(t *testing.T) {
	const limit = 1024
	r := newStderrRing(limit)
	r.Write([]byte("old\n"))
	huge := make([]byte, 10<<20)
	for i := range huge {
		huge[i] = byte('a' + i%26)
	}
	r.Write(huge)
	if got := r.bytes(); !bytes.Equal(got, huge[len(huge)-limit:]) {
		t.Errorf("kept the wrong %d bytes", len(got))
	}
	if cap(r.buf) > limit {
		t.Errorf("ring of %d bytes, limit %d", cap(r.buf), limit)
	}
	r.Write([]byte("new\n"))
	if got := string(r.bytes()); !strings.HasSuffix(got, "new\n") || len(got) != limit {
		t.Errorf("after wrapping: %d bytes ending %q", len(got), got[max(0, len(got)-8):])
	}
}

func TestStderrRingTail(t *testing.T) {
	r := newStderrRing(64 << 10)
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(r, "line %04d\n", i)
	}
	tail := r.tail(100)
	// The tail starts at a line boundary, not in the middle of a line.
	if !strings.HasPrefix(tail, "line ") || !strings.HasSuffix(tail, "line 1000") || len(tail) > 100 {
		t.Errorf("tail %q", tail)
	}
	for _, l := range strings.Split(tail, "\n") {
		if len(l) != len("line 0000") {
			t.Errorf("tail holds a cut line %q", l)
		}
	}

	// No newline near the end: the tail is cut, not empty.
	r = newStderrRing(64 << 10)
	r.Write([]byte(strings.Repeat("x", 500)))
	if got := r.tail(100); got != strings.Repeat("x", 100) {
		t.Errorf("tail of one long line: %q", got)
	}

	// Blank space around is trimmed; broken UTF-8 is made valid.
	r = newStderrRing(64 << 10)
	r.Write([]byte("\n\n  fatal: boom \xff\n\n"))
	if got := r.tail(100); got != "fatal: boom \uFFFD" {
		t.Errorf("tail %q", got)
	}
	if got := newStderrRing(10).tail(100); got != "" {
		t.Errorf("tail of nothing: %q", got)
	}
}

func TestStderrLineSplitter(t *testing.T) {
	var got []string
	emit := func(s string) { got = append(got, s) }
	var s lineSplitter
	s.feed([]byte("one\ntw"), emit)
	s.feed([]byte("o\r\n\nthree"), emit)
	s.feed([]byte(strings.Repeat("z", 2*maxStderrLine)), emit)
	s.feed([]byte("\nfour\n"), emit)
	s.feed([]byte("unterminated"), emit)
	s.flush(emit)
	if len(got) != 5 || got[0] != "one" || got[1] != "two" || got[3] != "four" || got[4] != "unterminated" {
		t.Fatalf("lines %q", got)
	}
	if !strings.HasPrefix(got[2], "three") || !strings.HasSuffix(got[2], " [truncated]") || len(got[2]) > maxStderrLine+len(" [truncated]") {
		t.Errorf("long line: %d bytes, %q...", len(got[2]), got[2][:20])
	}
	if cap(s.partial) > 2*maxStderrLine {
		t.Errorf("splitter holds %d bytes", cap(s.partial))
	}
}

func TestStderrRingNeverExceedsLimit(t *testing.T) {
	// append's own growth would overshoot a limit that is not one of the
	// allocator's size classes.
	const limit = 50000
	r := newStderrRing(limit)
	r.Write(make([]byte, 30000))
	r.Write(make([]byte, 19000))
	if cap(r.buf) > limit {
		t.Errorf("ring of %d bytes, limit %d", cap(r.buf), limit)
	}
}

func TestStderrExcerptKeepsTheCauseAndTheTail(t *testing.T) {
	// A server that fails at start prints its cause first and pages of
	// usage after: the excerpt shows both ends, marked where it was cut.
	r := newStderrRing(64 << 10)
	cause := "Error: failed to load kubeconfig: no configuration has been provided"
	r.Write([]byte(cause + "\n"))
	for i := range 400 {
		r.Write([]byte("      --flag-" + strconv.Itoa(i) + " string   a flag of the usage text\n"))
	}
	r.Write([]byte("Use \"server --help\" for more.\n"))
	got := r.excerpt(2 << 10)
	if !strings.HasPrefix(got, cause) {
		t.Errorf("the excerpt does not start with the cause:\n%.200s", got)
	}
	if !strings.HasSuffix(got, `Use "server --help" for more.`) {
		t.Errorf("the excerpt does not end with the last line:\n...%s", got[max(0, len(got)-200):])
	}
	if !strings.Contains(got, " bytes of stderr cut ...]") {
		t.Errorf("no cut mark in %q", got)
	}
	if len(got) > stderrHeadBytes+(2<<10)+64 {
		t.Errorf("excerpt of %d bytes: not bounded", len(got))
	}
	// Short output is shown whole, unmarked.
	short := newStderrRing(64 << 10)
	short.Write([]byte("one\ntwo\n"))
	if got := short.excerpt(2 << 10); got != "one\ntwo" {
		t.Errorf("short excerpt %q", got)
	}
}
