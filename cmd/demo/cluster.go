package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/mcpactor/mcpactor/supervisor/cluster"
)

// clusterTTL is the demo members' lease: a lost member's servers answer
// again about this long after it dies.
const clusterTTL = 2 * time.Second

// runCluster is --cluster n: an embedded etcd and n member processes (this
// binary again), called through a call-only member in this process. It
// shows where each server lives, kills the member owning the first one
// with calls in flight, and shows that every call ended once (those on the
// killed member with *cluster.MemberLostError) and that its servers answer
// again elsewhere. docs/cluster.md has the design.
//
// With --trace FILE, this process writes its spans to FILE and each
// member to FILE.<member>: the first calls run under a span of the
// demo's, and each call's trace crosses members (the caller's hop span,
// the owner's serve span, the owner runtime's tools/call span).
func runCluster(ctx context.Context, n int, traceFile string, out io.Writer) (err error) {
	dir, err := os.MkdirTemp("", "mcpactor-demo-etcd-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cp, err1 := freePort()
	pp, err2 := freePort()
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	t0 := time.Now()
	etcd, err := startChild("etcd", childSpec{Name: "etcd", Dir: dir, ClientPort: cp, PeerPort: pp})
	if err != nil {
		return err
	}
	defer etcd.stop()
	fmt.Fprintf(out, "cluster: embedded etcd at 127.0.0.1:%d ready in %v\n", cp, time.Since(t0).Round(time.Millisecond))

	var secret [16]byte
	_, _ = rand.Read(secret[:])
	base := childSpec{Etcd: fmt.Sprintf("http://127.0.0.1:%d", cp), Prefix: "/mcpactor-demo/", TTL: clusterTTL, Secret: hex.EncodeToString(secret[:])}
	memberTrace := func(name string) string {
		if traceFile == "" {
			return ""
		}
		return traceFile + "." + name
	}
	members := make([]*child, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	t0 = time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := base
			spec.Name = fmt.Sprintf("member-%d", i+1)
			spec.TraceFile = memberTrace(spec.Name)
			members[i], errs[i] = startChild("member", spec)
		}()
	}
	wg.Wait()
	defer func() {
		for _, m := range members {
			if m != nil {
				m.stop()
			}
		}
	}()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(out, "cluster: %d members joined in %v (lease TTL %v)\n", n, time.Since(t0).Round(time.Millisecond), clusterTTL)
	// The secure setup first: members refuse peers without the
	// cluster's secret (a member listening beyond loopback refuses to
	// start with neither a secret nor mutual TLS).
	fmt.Fprintf(out, "cluster: members listen on loopback and refuse peers without this run's secret; across machines add mutual TLS (docs/cluster.md)\n")

	spec := base
	spec.Name = "demo"
	me, err := cluster.Start(ctx, memberConfig(spec, true))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = errors.Join(err, me.Stop(sctx))
	}()

	// Every server once, from here: each activates on the member
	// rendezvous hashing picks, which takes its ownership key in etcd.
	// One span of the demo's holds them: a trace across members.
	sctx, span := otel.Tracer(tracerName).Start(ctx, "demo cluster first calls")
	for _, srv := range clusterServers {
		if _, err := me.CallTool(sctx, srv, "echo", map[string]any{"message": "hello"}); err != nil {
			span.End()
			return err
		}
	}
	span.End()
	if traceFile != "" {
		fmt.Fprintf(out, "cluster: the first calls are trace %s: its spans are in %s (the caller's hops) and %s (the owners')\n",
			span.SpanContext().TraceID(), traceFile, memberTrace("member-N"))
	}
	placement := showPlacement(out, me, "where each server lives")
	victimName := placement[clusterServers[0]].Member
	var victim *child
	for _, m := range members {
		if m.name == victimName {
			victim = m
		}
	}

	// Calls in flight on every server, then kill -9 of the victim.
	const perServer = 50
	type result struct {
		server string
		err    error
	}
	results := make(chan result, perServer*len(clusterServers))
	callCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, srv := range clusterServers {
		for range perServer {
			go func() {
				_, err := me.CallTool(callCtx, srv, "sleep", map[string]any{"ms": 3000})
				results <- result{srv, err}
			}()
		}
	}
	time.Sleep(500 * time.Millisecond)
	fmt.Fprintf(out, "\ncluster: %d calls in flight (sleep 3 s); killing %s (kill -9)\n", perServer*len(clusterServers), victimName)
	killed := time.Now()
	victim.kill()

	ended := map[string]int{}
	var firstLost, lastLost time.Duration
	for range perServer * len(clusterServers) {
		r := <-results
		switch {
		case r.err == nil:
			ended["answered"]++
		case errors.Is(r.err, cluster.ErrMemberLost):
			ended["member lost"]++
			d := time.Since(killed)
			if firstLost == 0 {
				firstLost = d
			}
			lastLost = d
		default:
			ended["other error"]++
			fmt.Fprintf(out, "  %s: %v\n", r.server, r.err)
		}
	}
	fmt.Fprintf(out, "cluster: every call ended once: %d answered, %d ended with MemberLostError (%v to %v after the kill), %d other errors\n",
		ended["answered"], ended["member lost"], firstLost.Round(time.Millisecond), lastLost.Round(time.Millisecond), ended["other error"])

	// The killed member's servers answer again elsewhere, once its lease
	// has expired.
	for _, srv := range clusterServers {
		if placement[srv].Member != victimName {
			continue
		}
		for {
			cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
			_, err := me.CallTool(cctx, srv, "echo", map[string]any{"message": "again"})
			ccancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil || time.Since(killed) > time.Minute {
				return fmt.Errorf("%s did not answer again after the kill: %w", srv, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Fprintf(out, "cluster: %s answers again %v after the kill\n", srv, time.Since(killed).Round(time.Millisecond))
	}
	showPlacement(out, me, "after the failover")
	if ended["other error"] > 0 {
		return fmt.Errorf("%d calls ended with an unexpected error", ended["other error"])
	}
	return nil
}

// showPlacement prints where each server lives and returns it.
func showPlacement(out io.Writer, me *cluster.Member, title string) map[string]cluster.Placement {
	placement := map[string]cluster.Placement{}
	fmt.Fprintf(out, "\n%s:\n  %-10s %-10s %s\n", title, "SERVER", "MEMBER", "GENERATION")
	names := append([]string(nil), clusterServers...)
	sort.Strings(names)
	for _, srv := range names {
		p, _ := me.Owner(cluster.Identity{Server: srv})
		placement[srv] = p
		fmt.Fprintf(out, "  %-10s %-10s %d\n", srv, p.Member, p.Generation)
	}
	return placement
}
