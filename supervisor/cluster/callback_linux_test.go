//go:build linux

package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestServerForPanicContained: a ServerFor that panics for one tenant
// fails that tenant's activation with a *CallbackPanicError naming the
// callback, on the owner and across the hop, is counted, and the member
// keeps serving the other identities.
func TestServerForPanicContained(t *testing.T) {
	c := newClusterWith(t, etcdFor(t), 1, memberSpec{TTL: 2 * time.Second, PanicTenant: "boom"})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_, err := c.driver.As("boom").CallTool(ctx, "alpha", "echo", map[string]any{"message": "x"})
	var pe *CallbackPanicError
	if !errors.Is(err, ErrCallbackPanicked) || !errors.As(err, &pe) || pe.Callback != "ServerFor" || pe.Member != "m1" ||
		pe.Identity != (Identity{Server: "alpha", Tenant: "boom"}) || !strings.Contains(pe.Value, "ServerFor of tenant boom") {
		t.Errorf("across the hop: %v (%#v), want a *CallbackPanicError of ServerFor on m1", err, pe)
	}
	m1 := c.member("m1")
	r := m1.do(control{Op: "call", Server: "beta", Tenant: "boom", Tool: "echo", Args: []byte(`{"message":"x"}`)})
	if !strings.Contains(r.Err, "callback ServerFor panicked") {
		t.Errorf("on the owner: %+v, want the callback's panic", r)
	}
	if n := m1.counters().CallbackPanics; n != 2 {
		t.Errorf("CallbackPanics = %d, want 2", n)
	}
	if got, err := callText(ctx, c.driver.As("alice"), "alpha", "echo", map[string]any{"message": "fine"}); err != nil || got != "fine" {
		t.Errorf("alice's echo after the panics = %q, %v", got, err)
	}
}
