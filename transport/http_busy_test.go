package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// storm stands in front of our test server and answers the POSTs of one
// method 429 with a Retry-After, the next refuse of them (negative: all).
type storm struct {
	method string
	after  func() string // the Retry-After of each refusal
	refuse atomic.Int64
	seen   atomic.Int64 // POSTs of method that reached the storm
}

func (s *storm) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct{ Method string }
			_ = json.Unmarshal(body, &m)
			if m.Method == s.method {
				s.seen.Add(1)
				if s.refuse.Load() != 0 {
					s.refuse.Add(-1)
					w.Header().Set("Retry-After", s.after())
					http.Error(w, "slow down", http.StatusTooManyRequests)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// startStorm starts our test server behind st and a transport to it,
// initialized.
func startStorm(t *testing.T, st *storm, tune func(*HTTPConfig)) *httpClient {
	t.Helper()
	h := testserver.NewHTTPHandler(testserver.Options{}, nil)
	url := startHandler(t, st.wrap(h), h.Close) + testserver.HTTPPath
	c := dialHTTP(t, url, clientOpts{tune: tune})
	c.initialize(messages.Version20251125)
	return c
}

// busyObserver records what a request's observer is told of its retries
// and of its answers' HTTP version.
type busyObserver struct {
	mu       sync.Mutex
	retries  []int
	reasons  []string
	versions []string
}

func (o *busyObserver) Queued(string)                                          {}
func (o *busyObserver) Dequeued()                                              {}
func (o *busyObserver) Written()                                               {}
func (o *busyObserver) Cancelling(_ string, p json.RawMessage) json.RawMessage { return p }
func (o *busyObserver) SetRequestID(messages.ID)                               {}
func (o *busyObserver) LateResponse()                                          {}
func (o *busyObserver) Retry(attempt int, reason string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.retries, o.reasons = append(o.retries, attempt), append(o.reasons, reason)
}
func (o *busyObserver) SetNetworkProtocolVersion(v string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.versions = append(o.versions, v)
}

// A list request refused 429 with Retry-After (seconds, then an HTTP
// date) is sent again after each delay and succeeds; the retries are
// counted, and the observer hears of each.
func TestHTTPBusyListRetriedAfterDelay(t *testing.T) {
	var n atomic.Int64
	st := &storm{method: messages.MethodToolsList, after: func() string {
		if n.Add(1) == 1 {
			return "1"
		}
		// An HTTP date has whole seconds: two ahead is at least one.
		return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)
	}}
	st.refuse.Store(2)
	c := startStorm(t, st, nil)
	obs := &busyObserver{}
	start := time.Now()
	raw, err := c.conn.Call(harness.Context(t), messages.MethodToolsList, nil, RequestOptions{Observer: obs})
	waited := time.Since(start)
	if err != nil || !strings.Contains(string(raw), `"tools"`) {
		t.Fatalf("tools/list: %s, %v", raw, err)
	}
	if got := st.seen.Load(); got != 3 {
		t.Errorf("the server saw %d tools/list POSTs, want 3", got)
	}
	// At least the two delays asked (1 s, then at least 1 s).
	if waited < 1900*time.Millisecond {
		t.Errorf("answered after %v: the delays asked were not waited", waited)
	}
	if got := c.conn.Stats()[BusyRetries]; got != 2 {
		t.Errorf("BusyRetries = %d, want 2", got)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.retries) != 2 || obs.retries[0] != 1 || obs.retries[1] != 2 || !strings.Contains(obs.reasons[0], "Retry-After 1s") {
		t.Errorf("observer told of retries %v (%q), want 1 and 2", obs.retries, obs.reasons)
	}
	if len(obs.versions) != 3 || obs.versions[0] != "1.1" {
		t.Errorf("observer told of HTTP versions %q, want 1.1 for each of 3 answers", obs.versions)
	}
}

// A tools/call refused 429 with Retry-After is not sent again: it may
// act twice. The error says why, and what the server asked. A caller
// that allows it (per call, or for the server) has it sent again.
func TestHTTPBusyToolCallNotRetriedByDefault(t *testing.T) {
	st := &storm{method: messages.MethodToolsCall, after: func() string { return "0" }}
	st.refuse.Store(1)
	c := startStorm(t, st, nil)
	_, err := c.echo("once")
	var he *callerr.Error
	if !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) || he.Status != http.StatusTooManyRequests || he.Retries != 0 ||
		!strings.Contains(he.NotRetried, "tools/call may act twice") ||
		!strings.Contains(err.Error(), "Retry-After: 0s") || !strings.Contains(err.Error(), "not retried: tools/call may act twice") {
		t.Fatalf("tools/call: %v, want HTTP 429 not retried", err)
	}
	if got := st.seen.Load(); got != 1 {
		t.Errorf("the server saw %d tools/call POSTs, want 1", got)
	}
	if got := c.conn.Stats()[BusyRetries]; got != 0 {
		t.Errorf("BusyRetries = %d, want 0", got)
	}

	st.refuse.Store(1)
	got, err := c.call(harness.Context(t), "echo", map[string]any{"message": "allowed"}, RequestOptions{BusyRetryUnsafe: true})
	if err != nil || got != "allowed" {
		t.Fatalf("tools/call allowed to be retried: %q, %v", got, err)
	}
	if got := st.seen.Load(); got != 3 {
		t.Errorf("the server saw %d tools/call POSTs, want 3 (1, then 2)", got)
	}

	st2 := &storm{method: messages.MethodToolsCall, after: func() string { return "0" }}
	st2.refuse.Store(1)
	c2 := startStorm(t, st2, func(cfg *HTTPConfig) { cfg.BusyRetryUnsafe = true })
	c2.mustEcho("allowed for the server")
	if got := st2.seen.Load(); got != 2 {
		t.Errorf("the server saw %d tools/call POSTs, want 2", got)
	}
}

// A Retry-After that would pass the call's deadline is not waited for:
// the call fails at once with the server's answer, saying so, rather
// than with a timeout. So does one over MaxRetryDelay, and the last
// refusal once the retries are spent.
func TestHTTPBusyBeyondDeadlineFailsAtOnce(t *testing.T) {
	st := &storm{method: messages.MethodToolsList, after: func() string { return "5" }}
	st.refuse.Store(-1)
	c := startStorm(t, st, nil)
	_, err := c.conn.Call(harness.Context(t), messages.MethodToolsList, nil, RequestOptions{Timeout: 2 * time.Second})
	var he *callerr.Error
	if !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) || he.RetryAfter != 5*time.Second || !strings.Contains(he.NotRetried, "would pass the call's deadline") ||
		!strings.Contains(err.Error(), "not retried: it would pass the call's deadline") {
		t.Fatalf("tools/list with a 2s timeout, Retry-After 5: %v", err)
	}
	if errors.Is(err, errkind.ErrTimeout) {
		t.Errorf("%v: waited out the timeout", err)
	}

	// The caller's context's deadline counts as well.
	ctx, cancel := context.WithTimeout(harness.Context(t), 2*time.Second)
	defer cancel()
	if _, err := c.conn.Call(ctx, messages.MethodToolsList, nil, RequestOptions{}); !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) ||
		!strings.Contains(he.NotRetried, "deadline") {
		t.Fatalf("tools/list with a 2s context, Retry-After 5: %v", err)
	}

	st.after = func() string { return "3600" }
	if _, err := c.conn.Call(harness.Context(t), messages.MethodToolsList, nil, RequestOptions{Timeout: -1}); !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) ||
		he.RetryAfter != time.Hour || !strings.Contains(he.NotRetried, "MaxRetryDelay 30s") {
		t.Fatalf("tools/list, Retry-After an hour: %v", err)
	}
	if got := st.seen.Load(); got != 3 {
		t.Errorf("the server saw %d tools/list POSTs, want 3 (none sent again)", got)
	}
	if got := c.conn.Stats()[BusyRetries]; got != 0 {
		t.Errorf("BusyRetries = %d, want 0", got)
	}
}

// A storm that does not end: the request is sent again BusyRetries
// times, then fails with the last refusal, which says how often.
func TestHTTPBusyRetriesSpent(t *testing.T) {
	st := &storm{method: messages.MethodToolsList, after: func() string { return "0" }}
	st.refuse.Store(-1)
	c := startStorm(t, st, func(cfg *HTTPConfig) { cfg.BusyRetries = 2 })
	_, err := c.conn.Call(harness.Context(t), messages.MethodToolsList, nil, RequestOptions{})
	var he *callerr.Error
	if !(errors.As(err, &he) && callerr.HTTPStatus(he) == he) || he.Retries != 2 || !strings.Contains(he.NotRetried, "the 2 retries allowed are spent") ||
		!strings.Contains(err.Error(), "retried 2 times") {
		t.Fatalf("tools/list in a storm: %v", err)
	}
	if got, stats := st.seen.Load(), c.conn.Stats()[BusyRetries]; got != 3 || stats != 2 {
		t.Errorf("the server saw %d tools/list POSTs (want 3), BusyRetries = %d (want 2)", got, stats)
	}
	c.mustEcho("the connection survives")
}

func TestRetryAfterValues(t *testing.T) {
	now := time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"120", 2 * time.Minute, true},
		{" 0 ", 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"99999999999999999999", noTimeout / time.Second * time.Second, true},
		{"", 0, false},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
	} {
		d, ok := retryAfter(tc.v, now)
		if ok != tc.ok || (ok && d != tc.want) {
			t.Errorf("Retry-After %q: %v, %v; want %v, %v", tc.v, d, ok, tc.want, tc.ok)
		}
	}
}
