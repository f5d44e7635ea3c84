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
	// env is the configuration's environment, whose values are masked in
	// what is shown; read, never changed (a server's configuration is not
	// changed once it is made), and listed only when a line is skipped.
	env map[string]string

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
	return &skippedStdout{env: env}
}

// add records one skipped line, its secrets masked before it is cut: a
// secret straddling the cut must not show even in part.
func (s *skippedStdout) add(line []byte) {
	if s == nil {
		return
	}
	line = bytes.TrimSpace(line)
	more := len(line) > maskedHeadBytes
	text := maskedHead(line[:min(len(line), maskedHeadBytes)], more, s.secretValues())
	text = cutLine([]byte(text))
	if more && !strings.HasSuffix(text, "...") {
		text += "..."
	}
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

// maskedHeadBytes is how much of a long line or body is masked to show
// its start: far more than any excerpt shows, so that what the masks and
// the cut leave is still a full excerpt.
const maskedHeadBytes = 4 << 10

// maskedHead returns head, the start of a text, with secrets masked (the
// values, and the credentials of any URL: redact.Text), as valid UTF-8.
// more says the text goes on past head: then a secret may begin in head
// and end after it, where masking cannot see it, so the last bytes of
// head that could be such a beginning (one less than the longest secret)
// are dropped after masking. Cut what it returns as short as wanted: no
// secret is left in it, whole or in part.
func maskedHead(head []byte, more bool, secrets []string) string {
	text := redact.Text(string(bytes.ToValidUTF8(head, []byte("\uFFFD"))), secrets...)
	if !more {
		return text
	}
	longest := 0
	for _, v := range secrets {
		longest = max(longest, len(v))
	}
	n := max(len(text)-max(longest-1, 0), 0)
	for n > 0 && n < len(text) && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// secretValues returns the values masked in what is shown (none for nil).
func (s *skippedStdout) secretValues() []string {
	if s == nil {
		return nil
	}
	return redact.Values(s.env)
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
	return s.n, s.first[0] // masked when added
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
	return strings.Join(lines, "\n") // each masked when added
}
