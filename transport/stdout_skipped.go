package transport

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// skippedStdout keeps the first and the last lines a stdio server wrote to
// stdout that were not JSON-RPC, and counts them all. A server that fails
// at start often prints its cause on stdout (a usage text, a stack trace, a
// "missing API key") and exits; those lines are skipped, since stdout is
// the protocol's channel
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio),
// but the error that ends the connection, or the connect timeout, shows
// them. Bounded: skippedKept lines at each end, each cut to
// skippedLineBytes. The reader adds, anyone reads; a mutex suffices (a
// skipped line is the exception).
type skippedStdout struct {
	secrets []string // the configuration's env values, masked in what is shown

	mu    sync.Mutex
	n     int64
	first []string
	last  []string // a ring of the newest, once first is full
	next  int      // where the next line goes in last
}

// How much of the skipped output is kept.
const (
	skippedKept      = 3
	skippedLineBytes = 256
)

func newSkippedStdout(env map[string]string) *skippedStdout {
	return &skippedStdout{secrets: redact.Values(env)}
}

// add records one skipped line.
func (s *skippedStdout) add(line []byte) {
	if s == nil {
		return
	}
	text := cutLine(line)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	switch {
	case len(s.first) < skippedKept:
		s.first = append(s.first, text)
	case len(s.last) < skippedKept:
		s.last = append(s.last, text)
	default:
		s.last[s.next] = text
		s.next = (s.next + 1) % skippedKept
	}
}

// secretValues returns the values masked in what is shown (none for nil).
func (s *skippedStdout) secretValues() []string {
	if s == nil {
		return nil
	}
	return s.secrets
}

// cutLine makes a line fit to show: valid UTF-8, no surrounding blank
// space, at most skippedLineBytes.
func cutLine(line []byte) string {
	line = bytes.TrimSpace(line)
	cut := len(line) > skippedLineBytes
	if cut {
		n := skippedLineBytes
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		line = line[:n]
	}
	s := string(bytes.ToValidUTF8(line, []byte("\uFFFD")))
	if cut {
		s += "..."
	}
	return s
}

// SkippedStdout reports how many lines a stdio server has written to stdout
// so far that were not JSON-RPC, and were skipped, and the first of them
// (cut to 256 bytes, the configuration's env values masked): what a connect
// timeout needs to say why the handshake never came. HTTP transports
// return 0 and "".
func (c *Conn) SkippedStdout() (n int64, first string) { return c.skipped.firstLine() }

// firstLine returns how many lines were skipped and the first of them,
// secrets masked.
func (s *skippedStdout) firstLine() (int64, string) {
	if s == nil {
		return 0, ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return 0, ""
	}
	return s.n, redact.Text(s.first[0], s.secrets...)
}

// excerpt is what the closing error shows: the first lines, a mark of how
// many were left out, and the last ones; secrets masked. "" when nothing
// was skipped.
func (s *skippedStdout) excerpt() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return ""
	}
	lines := append([]string(nil), s.first...)
	if left := s.n - int64(len(s.first)) - int64(len(s.last)); left > 0 {
		lines = append(lines, "[... "+strconv.FormatInt(left, 10)+" more lines ...]")
	}
	lines = append(lines, s.last[s.next:]...)
	lines = append(lines, s.last[:s.next]...)
	return redact.Text(strings.Join(lines, "\n"), s.secrets...)
}
