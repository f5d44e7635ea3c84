package testserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Frames written by the HugeFrameBytes and EndlessLine faults. They use
// notification methods no client knows, which clients must ignore: the
// point is only to test how a client's reader copes with the line, not to
// make it act on (or log) twenty megabytes of data.
const (
	hugeFramePrefix   = `{"jsonrpc":"2.0","method":"notifications/testserver/huge_frame","params":{"data":"`
	hugeFrameSuffix   = `"}}`
	endlessLinePrefix = `{"jsonrpc":"2.0","method":"notifications/testserver/endless_line","params":{"data":"`
)

// fillChunk is a block of 'x' bytes written repeatedly by the size faults.
var fillChunk = bytes.Repeat([]byte{'x'}, 64<<10)

// writeBanner writes the Banner fault's text to stdout, before anything.
func (s *server) writeBanner() {
	if s.opts.Banner == "" {
		return
	}
	s.out.withLock(func(w *bufio.Writer) error {
		_, err := w.WriteString(withNewline(s.opts.Banner))
		return err
	})
}

// floodStderr writes StderrFloodBytes bytes of numbered text lines to
// stderr. It runs before the first request is read, on purpose: when the
// client does not drain stderr the pipe fills, this write blocks, and the
// server never answers initialize, which is the symptom the fault exists
// to expose.
func (s *server) floodStderr() { s.writeStderrLines(s.opts.StderrFloodBytes) }

// writeStderrLines writes n bytes of numbered 80-byte lines to stderr,
// stopping early if the server stops.
func (s *server) writeStderrLines(n int) {
	const lineLen = 80
	var buf []byte
	for line := 1; n > 0; line++ {
		l := fmt.Sprintf("testserver stderr flood line %08d ", line)
		l += strings.Repeat("-", lineLen-1-len(l)) + "\n"
		if len(l) > n {
			l = l[:n]
		}
		buf = append(buf, l...)
		n -= len(l)
		if len(buf) >= 64<<10 || n == 0 {
			s.errOut.write(buf)
			buf = buf[:0]
			if s.ctx.Err() != nil {
				return
			}
		}
	}
}

// writeHugeFrame writes the HugeFrameBytes fault's line to out: a valid
// notification exactly HugeFrameBytes long (or as short as the envelope
// allows), streamed to stdout without building it in memory. Over HTTP it
// is one message (an SSE event, or on the GET stream beside a JSON answer),
// built whole: HTTP tests use caps of their own, far below the stdio one.
func (s *server) writeHugeFrame(out outlet) {
	fill := s.opts.HugeFrameBytes - len(hugeFramePrefix) - len(hugeFrameSuffix)
	if fill < 0 {
		fill = 0
	}
	if out != outlet(s.out) {
		b := make([]byte, 0, len(hugeFramePrefix)+fill+len(hugeFrameSuffix))
		b = append(b, hugeFramePrefix...)
		b = append(b, bytes.Repeat([]byte{'x'}, fill)...)
		out.send(false, append(b, hugeFrameSuffix...))
		return
	}
	s.out.withLock(func(w *bufio.Writer) error {
		if _, err := w.WriteString(hugeFramePrefix); err != nil {
			return err
		}
		for fill > 0 {
			n := min(fill, len(fillChunk))
			if _, err := w.Write(fillChunk[:n]); err != nil {
				return err
			}
			fill -= n
		}
		_, err := w.WriteString(hugeFrameSuffix + "\n")
		return err
	})
}

// endlessLine reports whether req is to be answered with the EndlessLine
// fault's line: a stdio fault (HTTP has HTTPSlowBody instead).
func (s *server) endlessLine(req *request) bool {
	return s.opts.EndlessLine && req.out == outlet(s.out)
}

// writeEndlessLine implements EndlessLine: it starts a notification line
// and then writes 'x' bytes with no newline until ctx ends or stdout fails.
// It holds the output lock throughout, so nothing else reaches stdout.
func (s *server) writeEndlessLine(ctx context.Context) {
	s.out.withLock(func(w *bufio.Writer) error {
		if _, err := w.WriteString(endlessLinePrefix); err != nil {
			return err
		}
		for ctx.Err() == nil {
			if _, err := w.Write(fillChunk); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		return nil
	})
}

// cancelLine is the ReportCancels fault's stderr line for a cancellation.
// The reason is flattened to one line so that tests can match line by line.
func cancelLine(requestID json.RawMessage, reason string) string {
	id := string(requestID)
	if id == "" {
		id = "null"
	}
	reason = strings.Join(strings.Fields(reason), " ")
	if reason == "" {
		return "cancelled " + id + "\n"
	}
	return "cancelled " + id + " " + reason + "\n"
}

// withNewline returns s ending with a newline.
func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
