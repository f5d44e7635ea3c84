package transport

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// A server that is busy (429 Too Many Requests) or unavailable for a while
// (503) may say when to come back with Retry-After, in seconds or as an
// HTTP date (https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3). Such
// an answer says the request was not acted on, so one that is safe to
// repeat is sent again after that delay: within the call's deadline,
// never longer than MaxRetryDelay, at most BusyRetries times. Any other
// failure is not retried, and neither is a request whose repetition could
// act twice (a tools/call) unless the caller says it may.

// safeToRepeat are the methods whose request may be sent twice without
// acting twice: reads, and settings whose second application changes
// nothing. A tools/call may act on the world, and an extension's method
// is unknown: neither is here.
var safeToRepeat = map[string]bool{
	messages.MethodInitialize:             true,
	messages.MethodServerDiscover:         true,
	messages.MethodPing:                   true,
	messages.MethodToolsList:              true,
	messages.MethodResourcesList:          true,
	messages.MethodResourcesTemplatesList: true,
	messages.MethodResourcesRead:          true,
	messages.MethodResourcesSubscribe:     true,
	messages.MethodResourcesUnsubscribe:   true,
	messages.MethodPromptsList:            true,
	messages.MethodPromptsGet:             true,
	messages.MethodCompletionComplete:     true,
	messages.MethodLoggingSetLevel:        true,
	messages.MethodTasksGet:               true,
	messages.MethodTasksResult:            true,
	messages.MethodTasksList:              true,
	messages.MethodSubscriptionsListen:    true,
}

// retryAfter reads a Retry-After value as the delay from now it asks for:
// delay-seconds or an HTTP date (a date already past is no delay). ok is
// false when the value is absent or neither.
func retryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false // "1.5", "5s": not delay-seconds
		}
		// Beyond any cap already; keep the multiplication from overflowing.
		n = min(n, uint64(noTimeout/time.Second))
		return time.Duration(n) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(now), 0), true
}

// busyDelay decides whether p's request, answered e (resp), is sent again:
// it returns the delay to wait first, or false after recording on e why
// it is not (NotRetried). Only a 429 or 503 with a usable Retry-After is
// a candidate; retries counts the times p was already sent again.
func (s *postSink) busyDelay(p *post, resp *http.Response, e *callerr.Error, retries int, now time.Time) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	d, ok := retryAfter(resp.Header.Get("Retry-After"), now)
	if !ok {
		return 0, false
	}
	cfg := s.a.cfg
	e.RetryAfter, e.Retries = d, retries
	switch {
	case p.id == 0:
		// A notification or response: nobody waits for it, and it is
		// not held for a retry.
		e.NotRetried = "not a request"
	case !safeToRepeat[p.method] && !p.busyRetry && !cfg.BusyRetryUnsafe:
		e.NotRetried = p.method + " may act twice if sent again, and the caller did not allow it"
	case retries >= cfg.BusyRetries:
		e.NotRetried = fmt.Sprintf("the %d retries allowed are spent", max(cfg.BusyRetries, 0))
	case d > cfg.MaxRetryDelay:
		e.NotRetried = "longer than the longest wait allowed (MaxRetryDelay " + cfg.MaxRetryDelay.String() + ")"
	default:
		if deadline, ok := p.deadline(); ok && now.Add(d).After(deadline) {
			e.NotRetried = "it would pass the call's deadline, " + deadline.Sub(now).Round(time.Millisecond).String() + " away"
			break
		}
		return d, true
	}
	return 0, false
}

// deadline is the earlier of p's call's deadline (its timeout, kept by
// the actor) and its caller's context's, if either is set. A call whose
// timer restarts on progress keeps it with its caller; the wait is then
// bounded by the POST's context, which that timer ends.
func (p *post) deadline() (time.Time, bool) {
	d := p.callDeadline
	if p.callValues != nil {
		if cd, ok := p.callValues.Deadline(); ok && (d.IsZero() || cd.Before(d)) {
			d = cd
		}
	}
	return d, !d.IsZero()
}
