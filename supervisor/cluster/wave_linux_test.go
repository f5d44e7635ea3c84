//go:build linux

package cluster

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestNoSecondWave: after kill -9 of alpha's owner, once the calls in
// flight to it have ended with *MemberLostError (the loss is known),
// calls that start then are not sent to the dead member and lost too:
// they wait for the new owner, within their deadline, and are answered.
func TestNoSecondWave(t *testing.T) {
	const ttl = 2 * time.Second
	c := newCluster(t, 3, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	before := c.info(ctx, "alpha")
	victim := c.member(before.Member)
	first := make(chan error, 1)
	go func() {
		_, err := c.driver.CallTool(ctx, "alpha", "sleep", map[string]any{"ms": 25000})
		first <- err
	}()
	c.eventually("a call in flight to the owner", func() bool { return c.inFlight() == 1 })
	victim.signal(syscall.SIGKILL)
	if err := <-first; !errors.Is(err, ErrMemberLost) {
		t.Fatalf("the call in flight ended with %v, want ErrMemberLost", err)
	}
	const second = 10
	errs := make(chan error, second)
	var wg sync.WaitGroup
	for range second {
		wg.Go(func() {
			cctx, ccancel := context.WithTimeout(ctx, 4*ttl+5*time.Second)
			defer ccancel()
			_, err := callText(cctx, c.driver.As(""), "alpha", "echo", map[string]any{"message": "after"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a call started after the loss was known: %v (want it answered by the new owner)", err)
		}
	}
}
