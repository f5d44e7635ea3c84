package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"
)

// requireAuthorization sends a request for identity through c, which has
// no UserStep, and returns the AuthorizationRequiredError it fails with.
func requireAuthorization(t *testing.T, c *Client, rs *fakeRS, identity string) *AuthorizationRequiredError {
	t.Helper()
	_, _, err := post(t, httpClient(c, rs), rs.url(), WithIdentity(context.Background(), identity))
	var are *AuthorizationRequiredError
	if !errors.As(err, &are) {
		t.Fatalf("%s: %v, want an AuthorizationRequiredError", identity, err)
	}
	return are
}

// TestPendingBounded: the authorization requests waiting for Complete
// are bounded; a new one pushes out the oldest, whose answer is then
// refused, and the newer ones still wait.
func TestPendingBounded(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c := New(Config{})
	c.sh.pending.max = 3
	var reqs []*AuthorizationRequiredError
	for i := range 5 {
		reqs = append(reqs, requireAuthorization(t, c, rs, fmt.Sprint("user", i)))
	}
	if n := c.sh.pending.len(); n != 3 {
		t.Errorf("%d requests waiting, want 3", n)
	}
	for i, r := range reqs {
		err := c.Complete(context.Background(), "someone else", url.Values{"state": {r.State}})
		want := ErrWrongIdentity // still waiting, for its own identity
		if i < 2 {
			want = ErrStateMismatch // pushed out
		}
		if !errors.Is(err, want) {
			t.Errorf("request %d: Complete %v, want %v", i, err, want)
		}
	}
}

// TestPendingExpires: a request waiting for Complete is forgotten when
// its time is up, though nothing looks at the set again.
func TestPendingExpires(t *testing.T) {
	as := newFakeAS(t)
	rs := newFakeRS(t, as)
	c := New(Config{})
	c.sh.pending.ttl = 50 * time.Millisecond
	r := requireAuthorization(t, c, rs, "alice")
	for deadline := time.Now().Add(10 * time.Second); c.sh.pending.len() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests still waiting long after their time", c.sh.pending.len())
		}
	}
	if err := c.Complete(context.Background(), "alice", url.Values{"state": {r.State}}); !errors.Is(err, ErrStateMismatch) {
		t.Errorf("Complete after expiry: %v, want ErrStateMismatch", err)
	}
}
