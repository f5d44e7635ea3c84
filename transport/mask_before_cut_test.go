package transport

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// cutSecret is planted so that it straddles every cut: it starts a few
// bytes before the cut and ends after it.
const cutSecret = "sk-live-abcdef123456-CUT-PLANTED"

// noPart fails when s shows the secret, or any start of it long enough to
// be one (its first eight bytes, "sk-live-").
func noPart(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, cutSecret[:8]) {
		t.Errorf("%s shows the start of the secret: %q", what, s)
	}
}

// straddling returns text with the secret starting at byte at.
func straddling(at, total int) []byte {
	b := bytes.Repeat([]byte("x"), at)
	b = append(b, cutSecret...)
	return append(b, bytes.Repeat([]byte("y"), max(total-len(b), 0))...)
}

func TestStatusErrorMasksBeforeCut(t *testing.T) {
	for _, at := range []int{excerptBytes - 10, excerptBytes - 1, excerptBytes + 2, 4<<10 - 10} {
		for _, total := range []int{at + len(cutSecret), 8 << 10} {
			resp := &http.Response{StatusCode: 500, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(straddling(at, total)))}
			e := statusError("s", "ping", "http://h/mcp", resp, []string{cutSecret})
			noPart(t, "statusError", e.Error())
			if !strings.HasPrefix(e.Body, "xxxx") {
				t.Errorf("statusError body %q lost its text", e.Body)
			}
		}
	}
	// A body that is the secret's header value, token alone: masked too.
	resp := &http.Response{StatusCode: 401, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("invalid token " + cutSecret))}
	e := statusError("s", "ping", "http://h/mcp", resp, []string{"Bearer " + cutSecret, cutSecret})
	noPart(t, "statusError", e.Error())
}

func TestMaskedExcerptBeforeCut(t *testing.T) {
	for _, n := range []int{256, 1024} {
		// The secret begins inside the head that was read and ends after it.
		body := straddling(n-12, n+100)
		got := maskedExcerpt(body[:n], true, []string{cutSecret})
		noPart(t, "maskedExcerpt", got)
		// And at the excerpt's own cut.
		got = maskedExcerpt(straddling(excerptBytes-5, n), false, []string{cutSecret})
		noPart(t, "maskedExcerpt", got)
		if !strings.Contains(got, redact.Mask[:5]) {
			t.Errorf("maskedExcerpt = %q, want the mask where the secret was", got)
		}
	}
}

func TestSkippedStdoutMasksBeforeCut(t *testing.T) {
	s := newSkippedStdout(map[string]string{"API_KEY": cutSecret})
	for _, at := range []int{skippedLineBytes - 10, skippedLineBytes - 1} {
		s.add(straddling(at, at+len(cutSecret)+50))
	}
	s.add(straddling(maskedHeadBytes-5, maskedHeadBytes+200))
	_, first := s.firstLine()
	noPart(t, "first skipped line", first)
	noPart(t, "skipped excerpt", s.excerpt())
	if !strings.Contains(first, redact.Mask) {
		t.Errorf("first line %q: want the mask", first)
	}
}

func TestMalformedLogMasksBeforeCut(t *testing.T) {
	var logs bytes.Buffer
	p := &process{stats: &Counters{}, skipped: newSkippedStdout(map[string]string{"TOKEN": cutSecret})}
	cfg := StdioConfig{Server: "s", Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	p.malformed(&cfg, straddling(115, 400), io.ErrUnexpectedEOF)
	p.malformed(&cfg, straddling(maskedHeadBytes-3, maskedHeadBytes+50), io.ErrUnexpectedEOF)
	if logs.Len() == 0 {
		t.Fatal("no log line")
	}
	noPart(t, "malformed line log", logs.String())
}
