package oauth

import (
	"context"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// RefreshHeader authorizes a server's requests with a header whose value
// comes from a program, such as a configuration's "!command" value (often
// a short-lived token): on a 401, the value is fetched once more and the
// request sent again, once, before it fails. Requests that got their 401
// with the same value share one fetch. It is a transport.Authorizer.
type RefreshHeader struct {
	// Name is the header's name (Authorization).
	Name string
	// Value is the value fetched when the connection was made; Fetch
	// replaces it.
	Value string
	// Fetch gets a fresh value. Its output is a secret: it goes into the
	// header only.
	Fetch func(ctx context.Context) (string, error)

	mu     sync.Mutex
	flight singleflight.Group
}

// RoundTripper implements transport.Authorizer.
func (h *RefreshHeader) RoundTripper(serverURL string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &headerTripper{h: h, base: base}
}

func (h *RefreshHeader) value() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.Value
}

// headerFetchLimit bounds one Fetch, which runs detached from the request
// that asked for it (the requests sharing it still wait on their own
// contexts).
const headerFetchLimit = 30 * time.Second

// refetch replaces sent, unless another request already did; it reports
// whether there is a new value to try.
func (h *RefreshHeader) refetch(ctx context.Context, sent string) bool {
	if h.value() != sent {
		return true
	}
	ch := h.flight.DoChan("fetch", func() (any, error) {
		// A fetch that ended between the check above and this flight
		// has already replaced sent: one run of the command is enough.
		if h.value() != sent {
			return nil, nil
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), headerFetchLimit)
		defer cancel()
		// Contained: a panic here would be re-raised by singleflight
		// where no caller can recover it (callback.go).
		v, err := contain(nil, "RefreshHeader.Fetch", func() (string, error) { return h.Fetch(fctx) })
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.Value = v
		h.mu.Unlock()
		return nil, nil
	})
	select {
	case r := <-ch:
		return r.Err == nil && h.value() != sent
	case <-ctx.Done():
		return false
	}
}

type headerTripper struct {
	h    *RefreshHeader
	base http.RoundTripper
}

func (t *headerTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	sent := t.h.value()
	r := req.Clone(req.Context())
	r.Header.Set(t.h.Name, sent)
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || t.h.Fetch == nil ||
		(req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
		return resp, err
	}
	if !t.h.refetch(req.Context(), sent) {
		return resp, nil
	}
	discard(resp)
	r = req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	r.Header.Set(t.h.Name, t.h.value())
	return t.base.RoundTrip(r)
}
