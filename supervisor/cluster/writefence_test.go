package cluster

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/bootclock"
)

// fencedMember is a member with only what the write fence and
// fenceLease use: a lease keeper holding lease 7 (safe for an hour), a
// view, and its tables.
func fencedMember() *Member {
	m := &Member{
		cfg:  Config{Name: "m1", LeaseTTL: 3 * time.Second, Logger: slog.New(slog.DiscardHandler)},
		acts: map[Identity]*activation{}, names: map[string]*activation{}, retiring: map[Identity]*activation{},
		view: &view{owners: map[Identity]ownerRecord{}},
	}
	m.lease = &leaseKeeper{ttl: 3 * time.Second, base: bootclock.Now(), changed: make(chan struct{}), id: 7, fenceAt: time.Hour}
	return m
}

// refusedBy asserts that fence refuses with *NotOwnerError whose text
// holds want.
func refusedBy(t *testing.T, what string, fence func() error, want string) {
	t.Helper()
	err := fence()
	var notOwner *NotOwnerError
	if !errors.As(err, &notOwner) || !errors.Is(err, ErrNotOwner) {
		t.Fatalf("%s: fence = %v, want *NotOwnerError", what, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want it to say %q", what, err, want)
	}
}

// TestWriteFenceNamesTheActivation: the write fence of an owned server
// allows a write only for the identity's current activation on this
// member and its current connect attempt, under a lease still safe, and
// while no newer generation of the identity is known. Before, it checked
// the lease alone: a superseded activation (or the first attempt of the
// era memo's probed retry) of the same member kept writing.
func TestWriteFenceNamesTheActivation(t *testing.T) {
	m := fencedMember()
	id := Identity{Server: "alpha"}
	act := &activation{id: id, lease: 7, generation: 10, gone: make(chan struct{})}

	first, ok := act.nextWriter()
	if !ok {
		t.Fatal("no write token for the first attempt")
	}
	f1 := m.fence(act, first, nil)
	if err := f1(); err != nil {
		t.Fatalf("first attempt: %v", err)
	}
	// The attempt fails (the era memo was contradicted): its server is
	// dropped and the probed retry connects with a token of its own.
	act.endWriter(first)
	second, ok := act.nextWriter()
	if !ok || second == first {
		t.Fatalf("second attempt's token %d (%v), first %d", second, ok, first)
	}
	f2 := m.fence(act, second, func() error { return nil })
	refusedBy(t, "the failed attempt's server", f1, "generation 10 (attempt 1) is no longer the current one")
	if err := f2(); err != nil {
		t.Fatalf("second attempt: %v", err)
	}

	// Another activation of the identity, elsewhere, took the key since.
	m.view.owners[id] = ownerRecord{Member: "m2", Generation: 12}
	refusedBy(t, "superseded by generation 12", f2, "generation 12 of the identity superseded its activation's 10")
	m.view.owners[id] = ownerRecord{Member: "m1", Generation: 10}
	if err := f2(); err != nil {
		t.Fatalf("own generation in the view: %v", err)
	}

	// The lease is no longer safe.
	m.lease.fenceAt = 0
	refusedBy(t, "lease lapsed", f2, "its lease lapsed before the write")
	m.lease.fenceAt = time.Hour

	// The activation is forgotten (deactivated): retired for good.
	m.acts[id] = act
	if !m.forget(act) {
		t.Fatal("forget: act not in the table")
	}
	refusedBy(t, "retired activation", f2, "is no longer the current one")
	if _, ok := act.nextWriter(); ok {
		t.Error("a retired activation took a new write token")
	}
	if m.retiring[id] != act {
		t.Error("a forgotten activation is not retiring until its servers are gone")
	}
	act.markGone(m)
	if _, ok := m.retiring[id]; ok {
		t.Error("retiring after its servers are gone")
	}

	// The user's fence is asked after ours, and its refusal stands.
	act2 := &activation{id: Identity{Server: "beta"}, lease: 7, generation: 11, gone: make(chan struct{})}
	tok, _ := act2.nextWriter()
	userErr := errors.New("user says no")
	if err := m.fence(act2, tok, func() error { return userErr })(); !errors.Is(err, userErr) {
		t.Errorf("user fence: %v", err)
	}
}

// TestFenceStopsStartingActivations: a fence stops an activation still
// starting (its writes refused at once, its start cancelled) and reports
// the lease revocable only once its servers are gone, and those of an
// activation already being deactivated; it gives up after TTL/3, and the
// lease is then left to expire. Before, it skipped an activation still
// starting, whose server lived on after the lease was revoked.
func TestFenceStopsStartingActivations(t *testing.T) {
	m := fencedMember()
	cancelled := make(chan struct{})
	starting := &activation{id: Identity{Server: "alpha"}, ready: make(chan struct{}), gone: make(chan struct{}),
		stopStart: func() { close(cancelled) }}
	tok, _ := starting.nextWriter()
	write := m.fence(starting, tok, nil)
	m.acts[starting.id] = starting
	leaving := &activation{id: Identity{Server: "beta"}, gone: make(chan struct{})}
	m.retiring[leaving.id] = leaving

	done := make(chan bool, 1)
	go func() { done <- m.fenceLease(7, "test") }()
	select {
	case <-cancelled:
	case <-time.After(waitFor5s):
		t.Fatal("the starting activation's start was not cancelled")
	}
	if !starting.fenced.Load() {
		t.Error("the starting activation is not marked fenced")
	}
	refusedBy(t, "starting activation after the fence", write, "is no longer the current one")
	select {
	case ok := <-done:
		t.Fatalf("fenceLease returned %v before the servers were gone", ok)
	case <-time.After(100 * time.Millisecond):
	}
	starting.markGone(m)
	leaving.markGone(m)
	select {
	case ok := <-done:
		if !ok {
			t.Error("fenceLease = false once every server was gone")
		}
	case <-time.After(waitFor5s):
		t.Fatal("fenceLease did not return once every server was gone")
	}

	// A server that does not go within TTL/3: not revocable.
	stuck := &activation{id: Identity{Server: "gamma"}, ready: make(chan struct{}), gone: make(chan struct{}), stopStart: func() {}}
	m.acts = map[Identity]*activation{stuck.id: stuck}
	if m.fenceLease(7, "test") {
		t.Error("fenceLease = true with a server still running")
	}
}

// waitFor5s bounds the waits of these unit tests (generous: they prove
// outcomes, not speed).
const waitFor5s = 5 * time.Second

// BenchmarkWriteFence is the cost of the check before each write to an
// owned server (the hot path: one per write system call of frames).
func BenchmarkWriteFence(b *testing.B) {
	m := fencedMember()
	act := &activation{id: Identity{Server: "alpha"}, lease: 7, generation: 10, gone: make(chan struct{})}
	m.view.owners[act.id] = ownerRecord{Member: "m1", Generation: 10}
	tok, _ := act.nextWriter()
	fence := m.fence(act, tok, nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := fence(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
