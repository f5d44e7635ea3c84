package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redact"
)

// SpawnLegacySSE starts a transport actor for the HTTP+SSE transport of
// protocol 2024-11-05
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse):
// a GET opens an event stream whose first "endpoint" event names the URL to
// POST every message to; the server's answers, requests and notifications
// all arrive as "message" events on that one stream. It shares the
// Streamable HTTP actor (correlation, POSTs, bounds); only the reading of
// answers differs. Messages sent before the endpoint is known wait for it.
func SpawnLegacySSE(parent actor.SpawnerContext, root *actor.RootContext, owner *actor.PID, cfg HTTPConfig) *Conn {
	cfg.setDefaults()
	conn := newConn(cfg.Server, cfg.Generation, root, cfg.Limits, cfg.Counters)
	conn.session = new(atomic.Pointer[string])
	conn.pool = new(sync.Pool) // call records are reused (Conn.take)
	props := actor.PropsFromProducer(func() actor.Actor {
		a := newHTTPActor(&cfg, conn, owner)
		a.legacy = &legacyState{}
		return a
	}, append(guardianAtRoot(parent), actor.WithMailbox(httpMailbox()))...)
	conn.pid = parent.Spawn(props)
	return conn
}

// legacyState is the part of an HTTP actor that only the legacy transport
// has: the endpoint the stream named, and the messages waiting for it.
type legacyState struct {
	endpoint string
	waiting  []*post
	cancel   context.CancelFunc // ends the stream's goroutine
}

// endpointKnown carries the stream's "endpoint" event, resolved.
type endpointKnown struct{ url string }

// streamEnded: the legacy stream, and with it the connection, is over.
type streamEnded struct{ err error }

// errEndpointOrigin refuses an endpoint on another origin than the stream:
// every message, with the configured headers and tokens, would go there.
var errEndpointOrigin = errors.New("the server named a POST endpoint on another origin; refused")

// errStreamEnded is the cause when the legacy event stream ends: the
// answers to pending requests can no longer arrive.
var errStreamEnded = errors.New("the server's event stream ended")

// openStream starts the goroutine that holds the legacy event stream.
func (a *httpActor) openStream() {
	ctx, cancel := context.WithCancel(a.conn.end.life)
	a.legacy.cancel = cancel
	p := &post{method: "GET stream", url: a.cfg.URL, headers: a.headers}
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		defer cancel()
		err := a.sink.readLegacyStream(ctx, p)
		if ctx.Err() == nil {
			a.sink.send(ctx, streamEnded{err: err}, 0)
		}
	}()
}

// readLegacyStream reads the stream until it ends: first the endpoint,
// then messages.
func (s *postSink) readLegacyStream(ctx context.Context, p *post) error {
	a := s.a
	req, err := s.request(ctx, http.MethodGet, p.url, nil, p)
	if err != nil {
		return requestError(a.cfg.Server, "", p.url, 0, err, a.secrets)
	}
	resp, err := a.cfg.Client.Do(req)
	if err != nil {
		return requestError(a.cfg.Server, "", p.url, 0, err, a.secrets)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		// What the user needs to see why this URL is no legacy SSE
		// endpoint: the status, the URL, and a line of the body.
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return statusError(a.cfg.Server, "", p.url, resp, a.secrets)
		}
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 1025))
		more := len(head) > 1024
		head = head[:min(len(head), 1024)]
		return callerr.NewBadBody(&callerr.Error{Server: a.cfg.Server, URL: redact.URL(p.url), Status: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), Body: maskedExcerpt(head, more, a.secrets),
			Problem: "no event stream to a GET"})
	}
	base := resp.Request.URL
	stream := &post{proto: httpVersion(resp.ProtoMajor, resp.ProtoMinor)}
	sr := newSSEReader(resp.Body, a.cfg.MaxFrameSize)
	for {
		ev, err := sr.Next()
		if _, tooLarge := s.oversizedEvent(ctx, err); tooLarge {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return errStreamEnded
			}
			return requestError(a.cfg.Server, "", p.url, resp.StatusCode, err, a.secrets)
		}
		switch ev.Type {
		case "endpoint":
			u, err := base.Parse(strings.TrimSpace(string(ev.Data)))
			if err != nil {
				return errors.New("the server named a POST endpoint that is no URL: " + redact.Text(err.Error(), a.secrets...))
			}
			if !sameOrigin(u, base) {
				return errEndpointOrigin
			}
			s.send(ctx, endpointKnown{url: u.String()}, 0)
		case "message":
			if len(ev.Data) > 0 {
				s.deliver(ctx, stream, ev.Data, ev.Owned)
			}
		}
	}
}

// legacyEndpoint starts the messages that waited for the endpoint.
func (a *httpActor) legacyEndpoint(m endpointKnown) {
	if a.legacy.endpoint != "" || a.closing {
		return
	}
	a.cfg.Logger.Debug("mcp: legacy SSE endpoint", "server", a.cfg.Server, "endpoint", redact.URL(m.url))
	a.legacy.endpoint = m.url
	for _, p := range a.legacy.waiting {
		a.sink.start(p)
	}
	a.legacy.waiting = nil
}

// legacyEnded ends the connection with its stream.
func (a *httpActor) legacyEnded(ctx actor.Context, m streamEnded) {
	if a.closing {
		return
	}
	cause := m.err
	if cause == nil {
		cause = errStreamEnded
	}
	a.cfg.Logger.Warn("mcp: legacy SSE stream ended", "server", a.cfg.Server, "err", cause)
	a.failed(ctx, cause)
}
