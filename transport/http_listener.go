package transport

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/mcpactor/mcpactor/internal/redact"
)

// Listen opens the GET listener of an HTTP transport: the stream on which
// the server sends requests and notifications that belong to no request of
// ours
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server).
// It returns once the server has answered the first GET (or ctx ends):
// some servers send their requests only on that stream, so work that may
// cause one should wait for it. A server that offers no such stream (405,
// another 4xx, a 200 that is not an event stream) is fine: that is
// recorded, and nothing more is tried. A stream that breaks is reopened
// with backoff and resumed with Last-Event-ID. For stdio it does nothing.
func (c *Conn) Listen(ctx context.Context) {
	if c.session == nil {
		return
	}
	answered := make(chan struct{})
	c.root.Send(c.pid, listen{answered: answered})
	select {
	case <-answered:
	case <-ctx.Done():
	case <-c.end.done:
	}
}

// listen starts the GET listener; answered closes at the first answer.
type listen struct{ answered chan struct{} }

// listener is the GET stream's state in the actor.
type listener struct {
	cancel   context.CancelFunc
	answered chan struct{} // closed at the first answer
	state    listenerState // the last attempt's outcome
}

func (l *listener) stop() { l.cancel() }

// record notes how an attempt went, and releases Listen at the first one.
func (l *listener) record(m listenerState) {
	l.state = m
	select {
	case <-l.answered:
	default:
		close(l.answered)
	}
}

func (a *httpActor) startListener(m listen) {
	// The legacy transport's one stream is its listener already.
	if a.listen != nil || a.closing || a.legacy != nil {
		close(m.answered)
		return
	}
	ctx, cancel := context.WithCancel(a.conn.end.life)
	a.listen = &listener{cancel: cancel, answered: m.answered}
	p := &post{method: "GET listener", url: a.cfg.URL, session: a.session, version: a.version, headers: a.headers}
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		defer cancel()
		a.sink.listen(ctx, p)
	}()
}

// listen runs the GET listener until the transport ends: open the stream,
// read it, and when it breaks open it again (resuming from the last event
// id) after the server's retry: delay or a jittered backoff. Only a
// server's refusal stops it.
func (s *postSink) listen(ctx context.Context, p *post) {
	a := s.a
	var lastID string
	var retry time.Duration
	streamed := false // a stream was opened: the route exists
	for attempt := 1; ctx.Err() == nil; attempt++ {
		req, err := s.request(ctx, http.MethodGet, p.url, nil, p)
		if err != nil {
			s.send(ctx, listenerState{note: redact.Text(err.Error(), a.secrets...)}, 0)
			return
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := a.cfg.Client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.send(ctx, listenerState{note: requestError(a.cfg.Server, "", p.url, 0, err, a.secrets).Error()}, 0)
			if !sleepCtx(ctx, s.delay(retry, attempt)) {
				return
			}
			continue
		}
		if p.session != "" && (resp.StatusCode < 200 || resp.StatusCode > 299) {
			e := statusError(a.cfg.Server, p.method, p.url, resp, a.secrets)
			// The GET route answered before: a 404 to the session id now
			// means the session is gone
			// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management).
			// So does a refusal that names the session (sessionRefused:
			// the reference TypeScript server answers 400 once it has
			// restarted), even on the first GET. An idle client would
			// otherwise stop hearing the server without knowing it.
			if e.Status == http.StatusNotFound && streamed || e.Status != http.StatusNotFound && sessionRefused(e) {
				resp.Body.Close()
				s.send(ctx, sessionLost{method: p.method, session: p.session, status: e.Status}, 0)
				return
			}
		}
		if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
			// 405 is the specified "no stream offered"; other 4xx (the
			// conformance suite's fakes answer 400 or 404) and a 200 that
			// is not a stream mean the same in practice.
			note := "the server offers no GET stream"
			if resp.StatusCode == http.StatusOK {
				note = "the server answered GET with " + resp.Header.Get("Content-Type") + ", not an event stream"
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			s.send(ctx, listenerState{status: resp.StatusCode, note: note}, 0)
			a.cfg.Logger.Debug("mcp: GET listener not used", "server", a.cfg.Server, "status", resp.StatusCode, "note", note)
			return
		}
		streamed = true
		s.send(ctx, listenerState{status: resp.StatusCode, note: "listening"}, 0)
		id, r := s.readListener(ctx, resp.Body, httpVersion(resp.ProtoMajor, resp.ProtoMinor))
		resp.Body.Close()
		if id != "" && id != lastID {
			lastID, attempt = id, 0 // progress: the backoff starts over
		}
		if r > 0 {
			retry = r
		}
		if !sleepCtx(ctx, s.delay(retry, max(attempt, 1))) {
			return
		}
	}
}

// readListener reads the GET stream until it ends, feeding every message
// to the actor (a response on it belongs to a resumed request stream and is
// matched by id like any other, an oversized one too).
func (s *postSink) readListener(ctx context.Context, body io.Reader, proto string) (lastID string, retry time.Duration) {
	sr := newSSEReaderSize(body, s.a.cfg.MaxFrameSize, sseListenerBufferSize)
	for ctx.Err() == nil {
		ev, err := sr.Next()
		if _, tooLarge := s.oversizedEvent(ctx, err); tooLarge {
			continue
		}
		if err != nil {
			break
		}
		if ev.Type == "message" && len(ev.Data) > 0 {
			s.deliver(ctx, &post{proto: proto}, ev.Data, ev.Owned)
		}
	}
	return sr.resumeFrom()
}

// deleteSession ends the session on Close
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management),
// within CloseTimeout; a 405 (the server does not let clients end
// sessions) is as good as a 2xx, and a failure is only logged.
func (a *httpActor) deleteSession() {
	p := &post{method: "DELETE", url: a.cfg.URL, session: a.session, version: a.version, headers: a.headers}
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		ctx, cancel := context.WithTimeout(context.Background(), a.cfg.CloseTimeout)
		defer cancel()
		req, err := a.sink.request(ctx, http.MethodDelete, p.url, nil, p)
		if err != nil {
			return
		}
		resp, err := a.cfg.Client.Do(req)
		if err != nil {
			a.cfg.Logger.Debug("mcp: DELETE of the session failed", "server", a.cfg.Server,
				"err", requestError(a.cfg.Server, "", p.url, 0, err, a.secrets))
			return
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		a.cfg.Logger.Debug("mcp: session ended", "server", a.cfg.Server, "status", resp.StatusCode)
	}()
}
