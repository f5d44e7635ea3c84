package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/jsonrpc"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
)

// postSink is the frame sink of the Streamable HTTP transport: every
// message is a POST of its own
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server),
// run on a goroutine that reads the answer (JSON or an SSE stream, which may
// carry the server's requests and notifications before the response) and
// feeds what it decodes to the actor. A request's POST is aborted when the
// request ends otherwise (timeout, cancellation, close). Only the actor
// calls its methods.
type postSink struct {
	a      *httpActor
	aborts map[int64]*post // requests whose POST is running or handed over, by id
	// notes is the life of the POSTs of notifications and responses,
	// which no request's end aborts: each is bounded by the request
	// timeout, and all end when the transport closes (abortAll). Without
	// it, one a server never answers would hold Close forever.
	notes    context.Context
	endNotes context.CancelFunc
	// Every message is a POST of its own, sent concurrently, so a later
	// one may reach the server first. notifications/initialized must not
	// be overtaken
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization;
	// servers built on the Python SDK refuse a request that comes before
	// it): while its POST runs, later messages wait in held (non-nil), in
	// order. gateNext marks the frame being committed as that
	// notification.
	gateNext bool
	held     []*post
	// jobs hands a POST to a goroutine waiting for one (http_post_workers.go).
	jobs chan postJob
}

// frameBuffer lends no shared buffer: each frame becomes a request body
// that lives as long as its POST, made at the size it will have.
func (s *postSink) frameBuffer(size int) []byte { return make([]byte, 0, size) }

func (s *postSink) commitFrame(frame []byte, c *call, weight int64) bool {
	a := s.a
	if a.closing {
		a.conn.budget.release(weight)
		return false
	}
	p := &post{
		body:      frame,
		weight:    weight,
		url:       a.cfg.URL,
		session:   a.session,
		version:   a.version,
		headers:   a.headers,
		stateless: a.stateless,

		sessionValue: a.sessionValue,
		versionValue: a.versionValue,
	}
	if c != nil {
		// What the POST's goroutine needs of the call is copied: the
		// record is reused once its caller has the outcome (Conn.take),
		// and the goroutine may outlive the call.
		p.id, p.method, p.extra = c.id, c.method, c.header
		p.obs, p.callValues, p.callDeadline, p.busyRetry = c.obs, c.values, c.deadline, c.busyRetry
		if c.progress == nil && !c.ownTimer {
			// Its caller waits on nothing but the answer: it runs the
			// POST itself (http_caller_posts.go).
			p.caller = c.reply
		}
		c.where = frameSent
	}
	p.gate = s.gateNext
	if a.legacy != nil {
		// 2024-11-05 has no version header; messages go to the endpoint
		// the stream named, and wait for it.
		p.legacy, p.version = true, ""
		if a.legacy.endpoint == "" {
			a.legacy.waiting = append(a.legacy.waiting, p)
			return true
		}
	}
	s.start(p)
	return true
}

// start hands p's POST to its caller (http_caller_posts.go) or runs it on
// a goroutine of the sink's (http_post_workers.go), unless it must wait
// for notifications/initialized to be delivered.
func (s *postSink) start(p *post) {
	a := s.a
	if s.held != nil {
		s.held = append(s.held, p)
		return
	}
	if p.gate {
		s.held = []*post{}
	}
	if p.legacy {
		p.url = a.legacy.endpoint
	}
	if p.id == 0 {
		ctx, cancel := context.WithTimeout(s.notes, a.cfg.RequestTimeout)
		s.dispatch(postJob{ctx: ctx, cancel: cancel, p: p})
		return
	}
	s.aborts[p.id] = p
	if p.caller != nil {
		s.handOver(p)
		return
	}
	ctx, cancel := context.WithCancel(a.conn.end.life)
	if p.callValues != nil {
		// Held in p rather than allocated for the request.
		p.values = valuesContext{Context: ctx, values: p.callValues}
		ctx = &p.values
	}
	p.begin(cancel)
	s.dispatch(postJob{ctx: ctx, cancel: cancel, p: p})
}

// do runs one POST to its end.
func (s *postSink) do(j postJob) {
	defer j.cancel()
	s.run(j.ctx, j.p)
	if j.p.gate {
		// Delivered or not (it failed, timed out): what waited goes.
		s.send(j.ctx, initializedSent{}, 0)
	}
}

// valuesContext is Context with the values of values as well: the POST of
// a call lives as the connection does, and acts for whom the call acts
// for. Context is asked first, so that the context package still finds
// its own cancellation when it derives from it.
type valuesContext struct {
	context.Context
	values context.Context
}

func (c *valuesContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.values.Value(key)
}

// release starts the messages held behind notifications/initialized.
func (s *postSink) release() {
	held := s.held
	s.held = nil
	for i, p := range held {
		if s.held != nil { // another gate among them: the rest wait again
			s.held = append(s.held, held[i:]...)
			return
		}
		s.start(p)
	}
}

// dropUnsent takes back a request still waiting for the legacy
// transport's endpoint or for notifications/initialized to be delivered;
// any other POST has started.
func (s *postSink) dropUnsent(c *call) bool {
	for i, p := range s.held {
		if p.id == c.id {
			s.a.conn.budget.release(p.weight)
			s.held = append(s.held[:i], s.held[i+1:]...)
			c.where = frameNone
			return true
		}
	}
	l := s.a.legacy
	if l == nil {
		return false
	}
	for i, p := range l.waiting {
		if p.id == c.id {
			s.a.conn.budget.release(p.weight)
			l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
			c.where = frameNone
			return true
		}
	}
	return false
}

// retire aborts the POST of a request that has ended, or forgets it if it
// was still waiting to be sent (behind notifications/initialized, or for
// the legacy endpoint): an answer naming it may come first, on another
// stream, and it must not be sent, nor handed to its caller, after its end.
func (s *postSink) retire(c *call) {
	if p, ok := s.aborts[c.id]; ok {
		delete(s.aborts, c.id)
		p.abort()
		return
	}
	if !s.a.closing {
		// Closing, the transport fails every call at once and then
		// lets go of what waits (wind): a scan per call would make
		// that quadratic in the calls held.
		s.dropUnsent(c)
	}
}

// abortAll aborts every POST: the requests' and the others (the
// transport is closing).
func (s *postSink) abortAll() {
	for id, p := range s.aborts {
		delete(s.aborts, id)
		p.abort()
	}
	s.endNotes()
}

// post is one message on its way: what its goroutine needs, copied from
// the actor's state when it started.
type post struct {
	id     int64 // the request's id; 0 for a notification or response
	method string
	// What a request's POST needs of its call (nil and zero for a
	// notification or response): its observer, its caller's context (for
	// values and deadline), its deadline, and whether it may be sent
	// again after a busy answer. Copies: the call's record is reused.
	obs          CallObserver
	callValues   context.Context
	callDeadline time.Time
	busyRetry    bool
	body         []byte
	weight       int64
	url          string
	session      string
	version      string
	headers      http.Header       // the server's configured headers (httpActor.headers), read-only
	extra        map[string]string // the request's own (2026-07-28's Mcp-Method and the like)
	legacy       bool              // HTTP+SSE: the answer comes on the stream, not here
	stateless    bool              // 2026-07-28: a broken stream is not resumed
	gate         bool              // notifications/initialized: later POSTs wait for it
	// sessionValue and versionValue are session and version as the
	// actor made them header values, once (httpActor.sessionValue).
	sessionValue, versionValue []string
	// values is the context of a call's POST, when the call carries its
	// caller's values (withValues).
	values valuesContext
	// first is the body of the first attempt, held here rather than
	// allocated for it.
	first fencedBody
	// proto is the HTTP version of the response being read ("1.1",
	// "2"), which the server's requests and notifications on it carry.
	proto string
	// caller is the reply channel of a request whose caller runs the
	// POST itself, nil for one a goroutine of the sink's runs; sink is
	// whose it is (http_caller_posts.go).
	caller chan<- Outcome
	sink   *postSink
	// A request's abort, by the actor: mu orders it with the start of
	// the POST, whose goroutine may be the caller's (begin, abort).
	mu      sync.Mutex
	aborted bool
	cancel  context.CancelFunc
}

// begin gives a request's POST the cancel of the context it runs in; it
// reports false, having canceled it, when the request was aborted first.
func (p *post) begin(cancel context.CancelFunc) bool {
	p.mu.Lock()
	aborted := p.aborted
	p.cancel = cancel
	p.mu.Unlock()
	if aborted {
		cancel()
	}
	return !aborted
}

// abort ends a request's POST: at once if it runs, or as it begins.
func (p *post) abort() {
	p.mu.Lock()
	p.aborted = true
	cancel := p.cancel
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// run sends the POST and reads its answer; a request the server asks to
// send again later (busyDelay) is, after the delay.
func (s *postSink) run(ctx context.Context, p *post) {
	for retries := 0; ; retries++ {
		wait, again := s.attempt(ctx, p, retries)
		if !again {
			return
		}
		if !sleepCtx(ctx, wait) {
			return // the call ended meanwhile: retired, or the transport closing
		}
		s.a.conn.stats.drop(BusyRetries)
		if p.obs != nil {
			if r, ok := p.obs.(retryObserver); ok {
				r.Retry(retries+1, "HTTP busy; Retry-After "+wait.String())
			}
		}
	}
}

// retryObserver is the optional part of a CallObserver told that its
// request is sent again (attempt counts from 1), and why.
type retryObserver interface {
	Retry(attempt int, reason string)
}

// attempt sends p's POST once and reads its answer. It returns true, with
// the delay to wait first, when the request is to be sent again: the
// server answered 429 or 503 with a Retry-After that busyDelay accepts.
// retries counts the times p was sent again already.
func (s *postSink) attempt(ctx context.Context, p *post, retries int) (time.Duration, bool) {
	a := s.a
	// The fence, if any, is asked, and the observer told, as the body is
	// about to be written (fencedBody).
	body := &p.first
	if retries > 0 {
		// An earlier attempt's body may still be read by net/http
		// (RoundTrip may close it after it returns): a new one.
		body = new(fencedBody)
	}
	*body = fencedBody{rest: p.body, all: p.body, fence: a.cfg.Fence}
	if body.fence != nil && p.obs != nil {
		body.written = p.obs.Written
	}
	req, err := s.request(ctx, http.MethodPost, p.url, body, p)
	if err != nil {
		a.conn.budget.release(p.weight)
		s.fail(ctx, p, callerr.NewTransportClosed(&callerr.Error{Server: a.cfg.Server, Cause: err}))
		return 0, false
	}
	// Should the POST panic on this goroutine (a RoundTripper of the
	// configuration's, or the observer's Written when no fence defers it
	// to the body's write, on net/http's goroutine), the body's budget
	// still goes back: its caller may recover (runOwnPost).
	weight := p.weight // the callback may run after Do returns: it reads its own copy
	var early *sync.Once
	returned := false
	defer func() {
		if !returned {
			releaseBody(a.conn.budget, early, weight)
		}
	}()
	if body.fence == nil && p.obs != nil {
		p.obs.Written()
	}
	// The body's bytes stop counting against the write budget once they
	// are written, not when the answer's headers come: a slow tool must
	// not hold budget for bytes long sent. A small body is released with
	// the answer: what it holds is little, and the trace (with the Once
	// its callback and Do's return share) would cost every request
	// allocations.
	if len(p.body) >= earlyReleaseBytes {
		early = new(sync.Once)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { early.Do(func() { a.conn.budget.release(weight) }) },
		}))
	}
	resp, err := a.cfg.Client.Do(req)
	returned = true
	// Written, or never will be.
	releaseBody(a.conn.budget, early, weight)
	p.weight = 0 // released: a retry holds none
	if refused, ok := fenceRefusal(err); ok {
		s.fail(ctx, p, refused)
		return 0, false
	}
	if err != nil {
		s.fail(ctx, p, requestError(a.cfg.Server, p.method, p.url, 0, err, a.secrets))
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		// Not to be sent again: let it go while the answer streams.
		// (GetBody, which reads all, is not called once Do has returned.)
		p.body, body.all = nil, nil
	}
	observeProtocol(p.obs, resp)
	p.proto = httpVersion(resp.ProtoMajor, resp.ProtoMinor)
	if p.method == messages.MethodInitialize {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			s.send(ctx, sessionAssigned{id: id}, 0)
		}
	}
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		e := statusError(a.cfg.Server, p.method, p.url, resp, a.secrets)
		if p.session != "" && sessionRefused(e) {
			s.send(ctx, sessionLost{id: p.id, method: p.method, session: p.session, status: e.Status}, 0)
			return 0, false
		}
		if wait, again := s.busyDelay(p, resp, e, retries, time.Now()); again {
			return wait, true
		}
		s.fail(ctx, p, e)
		return 0, false
	case p.id == 0 || p.legacy:
		// A notification or response, or any legacy POST: 202 (any
		// 2xx) says it was taken; a body, if any, has nothing for us.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return 0, false
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		s.readJSON(ctx, p, resp)
	case "text/event-stream":
		s.readStream(ctx, p, resp.StatusCode, resp.Body)
	default:
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 257))
		more := len(head) > 256
		head = head[:min(len(head), 256)]
		problem := "an unexpected content type"
		if len(head) == 0 {
			problem = "no body"
		}
		s.fail(ctx, p, callerr.NewBadBody(&callerr.Error{Server: a.cfg.Server, Method: p.method, URL: redact.URL(p.url), Status: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), Body: maskedExcerpt(head, more, a.secrets), Problem: problem}))
	}
	return 0, false
}

// releaseBody gives back a POST body's weight, once: through early when the
// body's write may have given it back already.
func releaseBody(b *writeBudget, early *sync.Once, weight int64) {
	if early != nil {
		early.Do(func() { b.release(weight) })
		return
	}
	b.release(weight)
}

// readJSON reads a JSON answer: one message (a batch under 2025-03-26).
func (s *postSink) readJSON(ctx context.Context, p *post, resp *http.Response) {
	a := s.a
	limit := a.cfg.MaxFrameSize
	body, err := readBody(resp, limit)
	if err != nil {
		s.fail(ctx, p, requestError(a.cfg.Server, p.method, p.url, resp.StatusCode, err, a.secrets))
		return
	}
	if len(body) > limit {
		a.conn.stats.drop(Oversized)
		s.fail(ctx, p, callerr.NewFrameTooLarge(&callerr.Error{Server: a.cfg.Server, Method: p.method,
			ID: messages.Int64ID(p.id), Size: int64(len(body)), Limit: limit}))
		return
	}
	if !s.deliver(ctx, p, body, true) {
		s.fail(ctx, p, callerr.NewBadBody(&callerr.Error{Server: a.cfg.Server, Method: p.method, URL: redact.URL(p.url), Status: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), Body: maskedExcerpt(body[:min(len(body), 1024)], len(body) > 1024, a.secrets),
			Problem: "a body that is not its JSON-RPC response"}))
	}
}

// readBody reads a response's body, at most limit+1 bytes (so that one
// over the limit shows). A body whose length is announced is read into a
// buffer of that size: io.ReadAll would start at 512 bytes and grow.
func readBody(resp *http.Response, limit int) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= int64(limit) {
		body := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
}

// deliver decodes one frame and feeds it to the actor; it reports whether
// the frame answered p's request (or failed it, which ends it as well). An
// owned frame (a JSON body, read into a buffer of its own) is kept by the
// message decoded from it rather than copied.
func (s *postSink) deliver(ctx context.Context, p *post, frame []byte, owned bool) bool {
	a := s.a
	d := decodeFrame(frame, owned, a.conn.stats, a.cfg.Logger, a.cfg.Server)
	n := int64(len(frame))
	switch {
	case d.note != nil:
		s.send(ctx, d.note, 0)
		if b, ok := d.note.(badResponse); ok {
			return b.id == p.id
		}
		return false
	case d.single:
		s.a.feed.send(inboundOne{msg: d.one, proto: p.proto, bytes: n}, n)
		if d.one.Kind() == jsonrpc.KindResponse {
			id, ok := d.one.ID.Int64()
			return ok && id == p.id
		}
		return false
	case len(d.msgs) == 0:
		return false
	case d.batch:
		s.send(ctx, inboundBatch{msgs: d.msgs, proto: p.proto}, n)
	default:
		s.send(ctx, inbound{msgs: d.msgs, proto: p.proto}, n)
	}
	for _, m := range d.msgs {
		if m.Kind() == jsonrpc.KindResponse {
			if id, ok := m.ID.Int64(); ok && id == p.id {
				return true
			}
		}
	}
	return false
}

// readStream reads the SSE stream answering a request until the request's
// response has come. A stream that breaks first is resumed, as
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
// describes: after the server's retry: delay (or a jittered backoff), a GET
// with Last-Event-ID picks the stream up where it broke. The budget of
// attempts resets only when a new event id arrives; a stream whose events
// carry no id cannot be resumed and fails its request clearly.
func (s *postSink) readStream(ctx context.Context, p *post, status int, body io.ReadCloser) {
	a := s.a
	var lastID string
	var retry time.Duration
	attempts := 0
	for {
		done, newID, r := s.readEvents(ctx, p, body)
		body.Close()
		if done || ctx.Err() != nil {
			return
		}
		if r > 0 {
			retry = r
		}
		if newID != "" && newID != lastID {
			lastID, attempts = newID, 0
		}
		if p.stateless {
			// The 2026-07-28 era has no resumption: the request is lost,
			// and issued again by the client with a new id.
			s.fail(ctx, p, callerr.NewStreamBroken(&callerr.Error{Server: a.cfg.Server, ID: messages.Int64ID(p.id), Status: status}))
			return
		}
		if lastID == "" {
			s.fail(ctx, p, callerr.NewNoResponse(&callerr.Error{Server: a.cfg.Server, ID: messages.Int64ID(p.id), Problem: "the stream ended and its events had no ids to resume from"}))
			return
		}
		attempts++
		if attempts > a.cfg.ResumeAttempts {
			s.fail(ctx, p, callerr.NewNoResponse(&callerr.Error{Server: a.cfg.Server, ID: messages.Int64ID(p.id), Problem: fmt.Sprintf("the stream broke %d times without a new event", attempts-1)}))
			return
		}
		if !sleepCtx(ctx, s.delay(retry, attempts)) {
			return
		}
		if p.obs != nil {
			if r, ok := p.obs.(interface{ Resume(string) }); ok {
				r.Resume("stream broke before the response; Last-Event-ID " + lastID)
			}
		}
		a.cfg.Logger.Debug("mcp: resuming SSE stream", "server", a.cfg.Server, "id", p.id, "last_event_id", lastID, "attempt", attempts)
		next, err := s.resume(ctx, p, lastID)
		if err != nil {
			if ctx.Err() == nil {
				s.fail(ctx, p, err)
			}
			return
		}
		body = next
	}
}

// readEvents reads one SSE body to its end or to p's response. It returns
// whether the request has ended, the last event id seen (if any), and the
// retry: value the server set (0 if none).
func (s *postSink) readEvents(ctx context.Context, p *post, body io.Reader) (done bool, lastID string, retry time.Duration) {
	a := s.a
	sr := newSSEReader(body, a.cfg.MaxFrameSize)
	// Nothing of sr is read after this returns (the event's data is
	// decoded into copies by deliver).
	defer sr.release()
	for {
		ev, err := sr.Next()
		if id, tooLarge := s.oversizedEvent(ctx, err); tooLarge {
			if id == p.id {
				lastID, retry = sr.resumeFrom()
				return true, lastID, retry
			}
			continue
		}
		switch {
		case err != nil:
			lastID, retry = sr.resumeFrom()
			return false, lastID, retry
		case ev.Type != "message" || len(ev.Data) == 0:
			// A priming event (an id and no data), or an event type MCP
			// does not use: nothing to deliver.
			continue
		}
		if s.deliver(ctx, p, ev.Data, ev.Owned) {
			lastID, retry = sr.resumeFrom()
			return true, lastID, retry
		}
	}
}

// oversizedEvent handles err if it is an event over the frame cap, which
// Next skips: the event is counted as dropped and, if it was the answer to
// one of our requests, that caller fails at once rather than at its
// timeout. It returns the id of that request, or 0 for an event that was
// no answer (our ids start at 1).
func (s *postSink) oversizedEvent(ctx context.Context, err error) (id int64, tooLarge bool) {
	var e *sseEventTooLargeError
	if !errors.As(err, &e) {
		return 0, false
	}
	s.a.conn.stats.drop(Oversized)
	id, ok := responseID(e.Head)
	if !ok {
		return 0, true
	}
	s.send(ctx, oversizedResponse{id: id, size: e.Size, limit: e.Limit}, 0)
	return id, true
}

// resume asks for the rest of a broken stream.
func (s *postSink) resume(ctx context.Context, p *post, lastID string) (io.ReadCloser, error) {
	a := s.a
	if p.session == "" {
		// initialize's own stream: its POST went before the session
		// existed, the resumption goes within it.
		p.session = a.conn.SessionID()
	}
	req, err := s.request(ctx, http.MethodGet, p.url, nil, p)
	if err != nil {
		return nil, requestError(a.cfg.Server, p.method, p.url, 0, err, a.secrets)
	}
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := a.cfg.Client.Do(req)
	if err != nil {
		return nil, requestError(a.cfg.Server, p.method, p.url, 0, err, a.secrets)
	}
	observeProtocol(p.obs, resp)
	p.proto = httpVersion(resp.ProtoMajor, resp.ProtoMinor)
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			e := statusError(a.cfg.Server, p.method, p.url, resp, a.secrets)
			if p.session != "" && sessionRefused(e) {
				// The session is gone: the owner must hear it now, not
				// at the next request. The request itself may have been
				// acted on, so it fails as unanswered, not as expired.
				s.send(ctx, sessionLost{method: p.method, session: p.session, status: e.Status}, 0)
			}
			return nil, callerr.NewNoResponse(&callerr.Error{Server: a.cfg.Server, ID: messages.Int64ID(p.id), Problem: "resuming the stream failed: " + e.Error()})
		}
		return nil, callerr.NewNoResponse(&callerr.Error{Server: a.cfg.Server, ID: messages.Int64ID(p.id), Problem: "resuming the stream gave no event stream"})
	}
	return resp.Body, nil
}

// delay is the wait before a resumption: the server's retry: when it gave
// one, else a backoff from RetryDelay, doubled per attempt, with jitter.
// Either is capped by MaxRetryDelay: a retry: of days (any number of
// milliseconds is valid SSE) would otherwise silence the GET listener, or
// hold a request, for as long as the server chose.
func (s *postSink) delay(retry time.Duration, attempt int) time.Duration {
	if retry > 0 {
		return min(retry, s.a.cfg.MaxRetryDelay)
	}
	return backoff(s.a.cfg.RetryDelay, s.a.cfg.MaxRetryDelay, attempt)
}

// backoff is base doubled attempt-1 times, capped, with ±20% jitter so
// that many streams broken together do not come back together.
func backoff(base, limit time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d))
}

// fail ends p's request with err, unless the request has already ended
// (its context is then done: retired, or the transport closing). A
// notification or response that ran out of time is only logged.
func (s *postSink) fail(ctx context.Context, p *post, err error) {
	if ctx.Err() != nil {
		if p.id == 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.a.cfg.Logger.Warn("mcp: HTTP message not delivered in time", "server", s.a.cfg.Server,
				"timeout", s.a.cfg.RequestTimeout, "err", err)
		}
		return
	}
	s.send(ctx, postFailed{id: p.id, err: err}, 0)
}

// send feeds msg to the actor.
func (s *postSink) send(_ context.Context, msg any, n int64) {
	s.a.feed.send(fed{msg: msg, bytes: n}, n)
}

// earlyReleaseBytes is the body size from which a POST gives its write
// budget back as soon as the body is written rather than with the answer.
const earlyReleaseBytes = 16 << 10

// sleepCtx waits d, or less if ctx ends; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// mediaType is the media type of a Content-Type, lower case, without
// parameters ("application/json; charset=utf-8" is JSON).
func mediaType(ct string) string {
	// The two a server sends, as servers spell them, without parsing.
	switch ct {
	case "application/json", "text/event-stream":
		return ct
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// statusError builds the error of a non-2xx answer to a request to rawURL,
// keeping a one-line excerpt of its body (secrets, the configured header
// values, masked) and its authorization hints.
func statusError(server, method, rawURL string, resp *http.Response, secrets []string) *callerr.Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10+1))
	more := len(body) > 4<<10
	body = body[:min(len(body), 4<<10)]
	e := callerr.NewHTTPStatus(&callerr.Error{Server: server, Method: method, URL: redact.URL(rawURL), Status: resp.StatusCode,
		WWWAuthenticate: resp.Header.Get("WWW-Authenticate"), AuthServer: resp.Header.Get("Mcp-Auth-Server")})
	var env struct {
		Error *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		e.RPC = &messages.Error{Code: env.Error.Code, Message: redact.Text(env.Error.Message, secrets...), Data: env.Error.Data}
	}
	e.Body = maskedExcerpt(body, more, secrets)
	if e.Body == "" {
		e.Body = http.StatusText(resp.StatusCode)
	}
	return e
}

// maskedExcerpt is the excerpt of a body, or of the head of one (more: the
// body goes on), with secrets masked before it is cut: a secret that
// straddles the cut must not show its start.
func maskedExcerpt(body []byte, more bool, secrets []string) string {
	return excerpt([]byte(maskedHead(body, more, secrets)))
}
