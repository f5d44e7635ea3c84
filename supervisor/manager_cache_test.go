package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
	"github.com/mcpactor/mcpactor/transport"
)

// stuckDisk is a cache store that holds every write until released,
// recording them in order.
type stuckDisk struct {
	entered chan string
	release chan struct{}
	mu      sync.Mutex
	written []string // server:first tool
}

func newStuckDisk() *stuckDisk {
	return &stuckDisk{entered: make(chan string, 1), release: make(chan struct{})}
}

func (d *stuckDisk) store(k toolcache.Key, e *toolcache.Entry) error {
	select {
	case d.entered <- k.Server:
	default:
	}
	select {
	case <-d.release:
	case <-time.After(harness.Bound):
		return fmt.Errorf("never released")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.written = append(d.written, k.Server+":"+e.Tools[0].Name)
	return nil
}

func oneTool(name string) []messages.Tool { return []messages.Tool{{Name: name}} }

func writerKey(t *testing.T, server string) toolcache.Key {
	return toolcache.Key{Server: server, ConfigHash: strings.Repeat("0", 64)}
}

// While the disk holds a write, a server's newer lists replace its older
// ones in the queue, which keeps the order servers first came in; flush
// waits for all of it.
func TestCacheWriterNewestListWins(t *testing.T) {
	disk := newStuckDisk()
	w := newCacheWriter(&toolcache.Cache{}, disk.store, slog.New(slog.DiscardHandler))
	push := func(server, tools string) { w.push(writerKey(t, server), &toolcache.Entry{Tools: oneTool(tools)}) }
	push("a", "first")
	if got := <-disk.entered; got != "a" {
		t.Fatalf("the disk took %q first", got)
	}
	push("b", "first")
	push("a", "second")
	push("a", "third")
	push("b", "second")
	close(disk.release)
	if err := w.flush(harness.Context(t)); err != nil {
		t.Fatal(err)
	}
	want := []string{"a:first", "b:second", "a:third"}
	if !slices.Equal(disk.written, want) {
		t.Errorf("written %v, want %v", disk.written, want)
	}
	if err := w.flush(harness.Context(t)); err != nil {
		t.Errorf("flush of an idle writer: %v", err)
	}
}

// The queue is bounded: past maxPendingWrites servers waiting, a list is
// dropped, counted and logged, never waited for. flush is bounded by its
// context.
func TestCacheWriterBounded(t *testing.T) {
	var log harness.Log
	disk := newStuckDisk()
	w := newCacheWriter(&toolcache.Cache{}, disk.store, log.Logger())
	w.push(writerKey(t, "held"), &toolcache.Entry{Tools: oneTool("x")})
	<-disk.entered
	for i := range maxPendingWrites + 2 {
		w.push(writerKey(t, fmt.Sprintf("s%d", i)), &toolcache.Entry{Tools: oneTool("x")})
	}
	if n := w.dropped.Load(); n != 2 {
		t.Errorf("dropped %d, want 2", n)
	}
	if !strings.Contains(log.String(), "tool cache write dropped") {
		t.Errorf("the drop was not logged:\n%s", log.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := w.flush(ctx); err == nil {
		t.Error("flush returned with the disk stuck")
	}
	close(disk.release)
	if err := w.flush(harness.Context(t)); err != nil {
		t.Fatal(err)
	}
	if len(disk.written) != 1+maxPendingWrites {
		t.Errorf("written %d", len(disk.written))
	}
}

// The private-scope cache key carries the identity's hash, never the
// identity itself; no identity, no identity hash.
func TestCacheKeyIdentity(t *testing.T) {
	a := &managerActor{}
	s, err := NewServer(Server{Name: "s", Spec: actors.Spec{Stdio: transport.StdioConfig{Command: "srv"}, Identity: "alice@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	k := a.cacheKey(s)
	if k.Identity != toolcache.HashIdentity("alice@example.com") || strings.Contains(k.Identity, "alice") {
		t.Errorf("identity in the key = %q", k.Identity)
	}
	if err := (&toolcache.Cache{Dir: t.TempDir()}).Store(k, &toolcache.Entry{}); err != nil {
		t.Errorf("the cache refuses the key: %v", err)
	}
	s.Spec.Identity = ""
	if k := a.cacheKey(s); k.Identity != "" {
		t.Errorf("no identity, key identity %q", k.Identity)
	}
}
