//go:build linux

package cluster

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestPauseNoDoubleOwner: the member owning a server is frozen (SIGSTOP
// of it and its server processes, as a paused VM or container is) past
// its lease TTL; another member takes the identity over; then the frozen
// member resumes. A sampler counts the running server processes of each
// identity throughout: never two.
//
// A frozen process cannot be fenced by anyone, so the invariant is about
// running processes: the old server is stopped (state T) while the new
// one runs, and the resumed member must stop it before it runs again.
// The member is resumed first, its servers only after it has had the
// chance: that is the member's job (its watchdog fences at once, the
// per-call check refuses even before), and what the test proves. Were
// both resumed at once, the old server would run, idle, for the
// milliseconds the kill takes, and never be sent a call.
func TestPauseNoDoubleOwner(t *testing.T) {
	const ttl = 2 * time.Second
	c := newCluster(t, 3, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	before, err := c.driver.Info(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	paused := c.member(before.Member)

	var mu sync.Mutex
	var worst []serverProc
	samples := 0
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			procs := running(c.servers())["alpha"]
			mu.Lock()
			samples++
			if len(procs) > len(worst) {
				worst = procs
			}
			mu.Unlock()
			select {
			case <-stopSampling:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	finish := func() {
		close(stopSampling)
		<-sampled
	}

	frozen := ofMember(c.servers(), paused.name)
	if len(frozen) == 0 {
		finish()
		t.Fatalf("no server process of %s found", paused.name)
	}
	paused.signal(syscall.SIGSTOP)
	for _, p := range frozen {
		_ = syscall.Kill(p.pid, syscall.SIGSTOP)
	}
	t.Logf("froze %s (pid %d) and its %d server processes", paused.name, paused.pid(), len(frozen))
	stoppedAt := time.Now()

	var after SessionInfo
	for {
		cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
		after, err = c.driver.Info(cctx, "alpha")
		ccancel()
		if err == nil && after.Member != paused.name {
			break
		}
		if ctx.Err() != nil {
			finish()
			t.Fatalf("alpha never moved off the frozen member: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("alpha moved to %s (generation %d, was %d) %v after the freeze", after.Member, after.Generation, before.Generation, time.Since(stoppedAt))
	if got, err := callText(ctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "moved"}); err != nil || got != "moved" {
		t.Errorf("echo after the move = %q, %v", got, err)
	}
	time.Sleep(ttl) // frozen well past the TTL

	paused.signal(syscall.SIGCONT)
	c.eventually("the resumed member stops its old server", func() bool {
		for _, p := range frozen {
			if _, _, ok := procStat(p.pid); ok {
				return false
			}
		}
		return true
	})
	for _, p := range frozen { // none left, unless the test failed above
		_ = syscall.Kill(p.pid, syscall.SIGCONT)
	}
	c.eventually("the resumed member rejoins", func() bool { return slices.Contains(c.driver.Members(), paused.name) })
	r := paused.do(control{Op: "call", Server: "alpha", Tool: "echo", Args: []byte(`{"message":"from the resumed"}`)})
	if r.Err != "" || r.Text != "from the resumed" {
		t.Errorf("call through the resumed member = %+v", r)
	}
	if now, err := c.driver.Info(ctx, "alpha"); err != nil || now.Generation != after.Generation {
		t.Errorf("after the resume alpha is %+v, %v; want generation %d kept", now, err, after.Generation)
	}
	time.Sleep(200 * time.Millisecond)
	finish()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d samples of alpha's running processes", samples)
	if len(worst) > 1 {
		t.Errorf("alpha ran as %d processes at once: %+v", len(worst), worst)
	}
}
