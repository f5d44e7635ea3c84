package transport

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// quietFor sets readerIdle for one test.
func quietFor(t *testing.T, d time.Duration) {
	was := readerIdle
	t.Cleanup(func() { readerIdle = was })
	readerIdle = d
}

// pipeLines returns a line reader over a pipe, and a function that writes
// to the pipe's other end: each string in turn, pausing for the duration
// given after it (0: none).
func pipeLines(t *testing.T, max int) (*lineReader, func(parts ...any)) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	write := func(parts ...any) {
		go func() {
			for _, p := range parts {
				switch p := p.(type) {
				case string:
					if _, err := w.WriteString(p); err != nil {
						return
					}
				case time.Duration:
					time.Sleep(p)
				}
			}
		}()
	}
	return newLineReader(r, max), write
}

// nextLine is what the stdio reader's loop does for a line: wait while
// the stream is quiet, then read.
func nextLine(lr *lineReader) ([]byte, error) {
	for {
		lr.wait()
		line, err := lr.next()
		if err != errQuiet {
			return line, err
		}
	}
}

// A reader gives its buffer back when the server is quiet, and takes one
// again when it speaks: lines before, across and after the quiet spells
// come whole, and a quiet reader holds 16 bytes, not 4 or 64 KiB.
func TestQuietReaderGivesBackItsBuffer(t *testing.T) {
	quietFor(t, 40*time.Millisecond)
	lr, write := pipeLines(t, defaultMaxFrameSize)
	pause := 150 * time.Millisecond
	long := strings.Repeat("L", initialReadBuffer+500)
	huge := strings.Repeat("H", readBufferSize*2+7)
	mid := strings.Repeat("m", 3000)
	// "par" comes with the line before it, so the reader is waiting with
	// a buffer when the server goes quiet in the middle of a line.
	write(long+"\n", pause, "hi\n", pause, mid+"\npar", pause, "tial\n", pause, huge+"\n", "after\n")

	for _, want := range []struct {
		line string
		size int // the buffer after the line
	}{
		{long, readBufferSize},
		{"hi", restReadBuffer},
		{mid, initialReadBuffer},
		{"partial", restReadBuffer},
		{huge, readBufferSize},
		{"after", readBufferSize},
	} {
		line, err := nextLine(lr)
		if err != nil {
			t.Fatalf("reading %.10q: %v", want.line, err)
		}
		if string(line) != want.line {
			t.Fatalf("got %d bytes %.10q, want %d bytes %.10q", len(line), line, len(want.line), want.line)
		}
		if lr.r.Size() != want.size {
			t.Errorf("after %.10q the buffer is %d bytes, want %d", want.line, lr.r.Size(), want.size)
		}
	}
}

// A line over the cap that stalls mid-way is still discarded as one line,
// and the reader goes on with the next.
func TestQuietReaderDiscardsAStalledOversizedLine(t *testing.T) {
	quietFor(t, 40*time.Millisecond)
	lr, write := pipeLines(t, 1000)
	write(`{"id":7,"result":"`+strings.Repeat("x", 600), 150*time.Millisecond, strings.Repeat("y", 600)+`"}`+"\n", "ok\n")
	_, err := nextLine(lr)
	var over *oversizedError
	if !errors.As(err, &over) {
		t.Fatalf("first line: %v, want an oversized frame", err)
	}
	if id, ok := responseID(over.Head); !ok || id != 7 {
		t.Errorf("the oversized frame's id: %v %v, want 7", id, ok)
	}
	if line, err := nextLine(lr); err != nil || string(line) != "ok" {
		t.Fatalf("next line: %q, %v", line, err)
	}
}

// The stderr drain keeps every byte across quiet spells, and gives its
// buffer back meanwhile.
func TestQuietStderrKeepsEveryLine(t *testing.T) {
	quietFor(t, 40*time.Millisecond)
	sys := harness.ActorSystem(t)
	done := make(chan stderrDone, 1)
	pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if m, ok := c.Message().(stderrDone); ok {
			done <- m
		}
	}))
	t.Cleanup(func() { sys.Root.Stop(pid) })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := &harness.Lines{}
	cfg := &StdioConfig{StderrLimit: 64 << 10, StderrLine: got.Add}
	p := &process{stats: &Counters{}, stderr: r}
	go newStderrDrain(p, cfg, sys.Root, pid).run()
	mid := strings.Repeat("z", 900)
	for _, s := range []string{"starting\n", "half a ", "line\n", mid + "\n", "bye\n"} {
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.Close()
	select {
	case d := <-done:
		if !strings.Contains(d.tail, "half a line") || !strings.HasSuffix(strings.TrimSpace(d.tail), "bye") {
			t.Errorf("the tail %q misses a line", d.tail)
		}
	case <-time.After(harness.Bound):
		t.Fatal("the drain did not end at EOF")
	}
	want := []string{"starting", "half a line", mid, "bye"}
	harness.WaitFor(t, "every stderr line", func() bool { return got.Count() >= int64(len(want)) })
	if all := got.All(); !slices.Equal(all, want) {
		t.Errorf("stderr lines %.40q, want %.40q", all, want)
	}
}
