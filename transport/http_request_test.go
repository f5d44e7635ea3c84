package transport

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// replayingTransport reads each request's body to its end, as an
// Authorizer's first attempt would, and sends the body GetBody gives
// instead: what a retry after a 401, or a redirect, sends.
type replayingTransport struct {
	t    *testing.T
	base http.RoundTripper
}

func (r replayingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return r.base.RoundTrip(req)
	}
	first, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body.Close()
	if req.GetBody == nil {
		r.t.Error("a POST without GetBody: it cannot be sent again")
		return r.base.RoundTrip(req)
	}
	again, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	second, err := io.ReadAll(again)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(first, second) || int64(len(second)) != req.ContentLength {
		r.t.Errorf("GetBody gave %q (Content-Length %d), the first attempt %q", second, req.ContentLength, first)
	}
	out := req.Clone(req.Context())
	out.Body, _ = req.GetBody() // a third, unread, for the server
	return r.base.RoundTrip(out)
}

// A POST's body can be had again, whole, through GetBody after its first
// reading (the request body is built by hand, not by http.NewRequest).
func TestPostBodyCanBeSentAgain(t *testing.T) {
	p := startHTTPPeer(t, testserver.Options{})
	c := dialHTTP(t, p.url, clientOpts{tune: func(cfg *HTTPConfig) {
		cfg.Client = &http.Client{Transport: replayingTransport{t: t, base: cfg.Client.Transport}}
	}})
	c.initialize(messages.Version20251125)
	c.mustEcho("sent twice, answered once")
}
