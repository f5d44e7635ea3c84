package mcpactor_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
)

// refusingAuth is an Authorizer whose authorization server refuses: every
// request fails in the authorizer, before the MCP server is asked.
type refusingAuth struct{}

func (refusingAuth) RoundTripper(string, http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(*http.Request) (*http.Response, error) {
		return nil, errors.New("oauth: token endpoint refused the grant")
	})
}

// passingAuth adds nothing and passes every request on.
type passingAuth struct{}

func (passingAuth) RoundTripper(_ string, base http.RoundTripper) http.RoundTripper { return base }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestAuthorizationFailureIsNotUnreachable checks that an Authorizer's own
// failure is reported as an authorization failure, not as the server being
// unreachable, while a network failure that passes through an Authorizer
// is still ErrUnreachable.
func TestAuthorizationFailureIsNotUnreachable(t *testing.T) {
	t.Parallel()
	rt := startRuntime(t, mcpactor.Options{})
	url := closedURL(t) + "/mcp"
	_, err := rt.Connect(waitCtx(t), "refused", mcpactor.ServerConfig{URL: url, Auth: refusingAuth{}, ConnectTimeout: 5 * time.Second})
	if !errors.Is(err, mcpactor.ErrAuthorization) || errors.Is(err, mcpactor.ErrUnreachable) ||
		!strings.Contains(err.Error(), "authorization failed") || !strings.Contains(err.Error(), "token endpoint refused") {
		t.Errorf("Connect with a refusing authorizer: %v, want ErrAuthorization (not ErrUnreachable) with the authorizer's reason", err)
	}
	_, err = rt.Connect(waitCtx(t), "down", mcpactor.ServerConfig{URL: url, Auth: passingAuth{}, ConnectTimeout: 5 * time.Second})
	if !errors.Is(err, mcpactor.ErrUnreachable) || errors.Is(err, mcpactor.ErrAuthorization) {
		t.Errorf("Connect through a passing authorizer to a closed port: %v, want ErrUnreachable", err)
	}
}
