package transport

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// accept is the Accept header of every POST: a server may answer a request
// with JSON or with an event stream, and the client must take either
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
const accept = "application/json, text/event-stream"

// The values of the headers every request carries, shared by all of
// them; read-only.
var (
	contentTypeJSON = []string{"application/json"}
	acceptPost      = []string{accept}
	acceptStream    = []string{"text/event-stream"}
)

// request builds the HTTP request of p to rawURL: a POST of body, or a GET
// or DELETE (body nil). It is built by hand rather than by
// http.NewRequestWithContext, which would parse the URL, make a header map
// that is then replaced, and wrap the body twice, on every request: the
// endpoint's URL is parsed once (httpActor.target), and shared read-only
// as net/http shares a request's fields (a RoundTripper must not modify
// the request).
func (s *postSink) request(ctx context.Context, method, rawURL string, body *fencedBody, p *post) (*http.Request, error) {
	u := s.a.target
	if u == nil || rawURL != s.a.cfg.URL {
		var err error
		if u, err = parseURL(rawURL); err != nil {
			return nil, err
		}
	}
	// One map of the right size, and the constant values shared (net/http
	// never changes a request's header values): Header.Set would grow the
	// map from empty and allocate each value, on every request.
	h := make(http.Header, len(p.headers)+len(p.extra)+4)
	for k, vs := range p.headers {
		h[k] = vs // shared: a RoundTripper must not modify the request (net/http)
	}
	if len(p.extra) > 0 {
		// The request's own headers (2026-07-28's Mcp-Method and the
		// like): their values in one backing array, not one each.
		vals := make([]string, 0, len(p.extra))
		for k, v := range p.extra {
			vals = append(vals, v)
			h[http.CanonicalHeaderKey(k)] = vals[len(vals)-1 : len(vals) : len(vals)]
		}
	}
	if body != nil {
		h["Content-Type"], h["Accept"] = contentTypeJSON, acceptPost
	} else if method == http.MethodGet {
		h["Accept"] = acceptStream
	}
	if p.session != "" {
		h["Mcp-Session-Id"] = sharedValue(p.sessionValue, p.session)
	}
	if p.version != "" {
		h["Mcp-Protocol-Version"] = sharedValue(p.versionValue, p.version)
	}
	req := &http.Request{Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Host: u.Host}
	if body != nil {
		req.Body, req.GetBody, req.ContentLength = body.reader(), body.again, int64(len(body.all))
		if len(body.all) == 0 {
			req.Body, req.GetBody = http.NoBody, noBody
		}
	}
	// The literal above does not escape: WithContext's copy is the one
	// request allocated.
	return req.WithContext(ctx), nil
}

// parseURL parses a request's URL as http.NewRequest does: a host with an
// empty port ("example.com:") loses the colon.
func parseURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	u.Host = strings.TrimSuffix(u.Host, ":")
	return u, nil
}

// parseTarget is the endpoint's URL parsed once for every request to it,
// or nil if it does not parse (request then reports the error).
func parseTarget(rawURL string) *url.URL {
	u, err := parseURL(rawURL)
	if err != nil {
		return nil
	}
	return u
}

// headerValue is v as a header's values, made once to be shared by
// every request that carries it; nil for "".
func headerValue(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

// sharedValue is shared if it holds v (what the actor made when v was
// set), else v's values of its own: a resumption may carry a session id
// learned after its POST started.
func sharedValue(shared []string, v string) []string {
	if len(shared) == 1 && shared[0] == v {
		return shared
	}
	return []string{v}
}

// noBody is the GetBody of an empty body.
func noBody() (io.ReadCloser, error) { return http.NoBody, nil }
