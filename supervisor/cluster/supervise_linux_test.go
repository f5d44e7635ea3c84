//go:build linux

package cluster

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/callerr"
)

// TestOwnedServerRestarted: the stdio server of an identity a member owns
// is killed; the member's manager starts it again on the same member,
// after its backoff, under the same ownership (same generation, a new
// connection), and calls succeed again; the member's Status shows the
// restart.
func TestOwnedServerRestarted(t *testing.T) {
	c := newClusterWith(t, etcdFor(t), 1, memberSpec{TTL: 2 * time.Second,
		Restart: mcpactor.RestartPolicy{BackoffMin: 200 * time.Millisecond, BackoffMax: time.Second}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	before, err := c.driver.Info(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if before.Connection != 1 {
		t.Errorf("first connection numbered %d, want 1", before.Connection)
	}
	procs := running(c.servers())["alpha"]
	if len(procs) != 1 {
		t.Fatalf("alpha runs as %d processes, want 1", len(procs))
	}
	killed := time.Now()
	if err := syscall.Kill(procs[0].pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A call that reached the dead connection before the manager heard
	// of the exit fails; the ones after wait for the restart.
	var failed int
	for {
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		got, err := callText(cctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "back"})
		ccancel()
		if err == nil && got == "back" {
			break
		}
		if errors.Is(err, ErrMemberLost) || errors.Is(err, ErrNotOwner) || ctx.Err() != nil {
			t.Fatalf("echo after the kill: %v", err)
		}
		failed++
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("alpha answered again %v after the kill (%d calls failed meanwhile)", time.Since(killed), failed)
	after, err := c.driver.Info(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if after.Member != before.Member || after.Generation != before.Generation || after.Connection < 2 {
		t.Errorf("after the restart alpha is %+v; want member %s, generation %d (the same ownership), connection 2 or more",
			after, before.Member, before.Generation)
	}
	if p, ok := c.driver.Owner(Identity{Server: "alpha"}); !ok || p.Generation != before.Generation {
		t.Errorf("owner after the restart = %+v, %v; want generation %d", p, ok, before.Generation)
	}
	now := running(c.servers())["alpha"]
	if len(now) != 1 || now[0].pid == procs[0].pid || now[0].member != before.Member {
		t.Errorf("after the restart alpha runs as %+v; want one new process on %s", now, before.Member)
	}
	st, ok := c.member(before.Member).status()["alpha"]
	if !ok || st.State != string(mcpactor.StateReady) || st.Restarts < 1 || st.Generation != before.Generation || st.Connection < 2 {
		t.Errorf("%s's status of alpha = %+v, %v; want ready, restarted, generation %d", before.Member, st, ok, before.Generation)
	}
}

// TestOwnedServerBreaker: a server that keeps crashing opens its
// breaker in the owner's manager; calls then fail at once with the
// manager's *mcpactor.Error, across the hop, instead of
// waiting; the owner keeps the identity (no other member starts it
// meanwhile) and shows the breaker in its Status.
func TestOwnedServerBreaker(t *testing.T) {
	c := newClusterWith(t, etcdFor(t), 2, memberSpec{TTL: 2 * time.Second,
		Restart: mcpactor.RestartPolicy{MaxRestarts: 1, BackoffMin: 100 * time.Millisecond, BackoffMax: 500 * time.Millisecond}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	before, err := c.driver.Info(ctx, "beta")
	if err != nil {
		t.Fatal(err)
	}
	crash := func(round int) {
		t.Helper()
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		if _, err := c.driver.CallTool(cctx, "beta", "crash", map[string]any{"code": 3, "stderr": "boom"}); err == nil {
			t.Fatalf("crash %d answered", round)
		} else if errors.Is(err, ErrMemberLost) {
			t.Fatalf("crash %d: %v", round, err)
		}
	}
	crash(1)
	// One restart is allowed: the server comes back on the same member.
	for {
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := callText(cctx, c.driver.As(""), "beta", "echo", map[string]any{"message": "once more"})
		ccancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("beta never came back after one crash: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	crash(2) // the second failure in the window is one too many
	var unavailable *mcpactor.Error
	for {
		start := time.Now()
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = c.driver.CallTool(cctx, "beta", "echo", map[string]any{"message": "hello?"})
		ccancel()
		took := time.Since(start)
		if errors.As(err, &unavailable) && callerr.Unavailable(unavailable) == unavailable {
			if took > 5*time.Second {
				t.Errorf("the refusal took %v", took)
			}
			break
		}
		if err == nil || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			t.Fatalf("echo with the breaker open = %v after %v; want ErrServerUnavailable error at once", err, took)
		}
		time.Sleep(50 * time.Millisecond) // the manager has not heard of the exit yet
	}
	if !errors.Is(err, mcpactor.ErrServerUnavailable) || unavailable.State != string(mcpactor.StateBreakerOpen) || unavailable.Server != "beta" {
		t.Errorf("refusal = %#v (%v); want beta, breaker open, matching ErrServerUnavailable", unavailable, err)
	}
	t.Logf("refused: %v", err)
	if p, ok := c.driver.Owner(Identity{Server: "beta"}); !ok || p.Member != before.Member || p.Generation != before.Generation {
		t.Errorf("owner with the breaker open = %+v, %v; want %s, generation %d", p, ok, before.Member, before.Generation)
	}
	if n := len(running(c.servers())["beta"]); n != 0 {
		t.Errorf("beta runs as %d processes with its breaker open", n)
	}
	st, ok := c.member(before.Member).status()["beta"]
	if !ok || st.State != string(mcpactor.StateBreakerOpen) || st.Restarts != 1 {
		t.Errorf("%s's status of beta = %+v, %v; want breaker open after 1 restart", before.Member, st, ok)
	}
	// The other servers of the member are not affected.
	if got, err := callText(ctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "fine"}); err != nil || got != "fine" {
		t.Errorf("alpha beside the open breaker = %q, %v", got, err)
	}
}

// TestDisabledToolRefused: a tool the configuration's DisabledTools leave
// out is refused to a caller on another member with the manager's
// an ErrNotFound *mcpactor.Error, never called on the server, and is not in
// the server's listing; the other tools answer.
func TestDisabledToolRefused(t *testing.T) {
	c := newClusterWith(t, etcdFor(t), 1, memberSpec{TTL: 2 * time.Second, DisabledTools: []string{"crash"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	if got, err := callText(ctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "allowed"}); err != nil || got != "allowed" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	_, err := c.driver.CallTool(ctx, "alpha", "crash", map[string]any{"code": 3})
	var unknown *mcpactor.Error
	if !(errors.As(err, &unknown) && callerr.UnknownTool(unknown) == unknown) || unknown.Tool != "crash" {
		t.Fatalf("disabled crash: %v, want *mcpactor.Error", err)
	}
	if procs := running(c.servers())["alpha"]; len(procs) != 1 {
		t.Errorf("alpha runs as %d processes after the refused call, want 1 (the tool ran)", len(procs))
	}
	tools, err := c.driver.ListTools(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.Name == "crash" {
			t.Errorf("the disabled tool is listed: %v", tool)
		}
	}
	if len(tools) == 0 {
		t.Error("no tools listed")
	}
}
