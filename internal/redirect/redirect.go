// Package redirect plays the user's browser at an authorization endpoint
// that answers at once (a test's fake, the conformance suite's): it asks
// the authorization URL and reads where the redirect would send the
// browser, without going there (nothing listens at the redirect URL).
package redirect

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Follow asks authURL with hc (nil: http.DefaultClient's transport) and
// returns the Location of its redirect: the redirect URL, with the code,
// state and iss in its query.
func Follow(ctx context.Context, hc *http.Client, authURL string) (*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	var c http.Client
	if hc != nil {
		c = *hc
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, fmt.Errorf("authorization endpoint answered %d without a redirect", resp.StatusCode)
	}
	return url.Parse(loc)
}
