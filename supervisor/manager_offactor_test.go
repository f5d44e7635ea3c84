package supervisor_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/supervisor"
	"github.com/mcpactor/mcpactor/supervisor/toolcache"
)

// The manager actor only changes state: the user's Approve and the
// tool-list cache's disk I/O run off it, so a slow one holds up its own
// server at most (docs/architecture.md, "The manager").

// toolServers returns the servers whose live tools are offered.
func toolServers(m *supervisor.Manager) []string {
	var out []string
	for _, tl := range m.Tools() {
		if !tl.Cached && !slices.Contains(out, tl.Server) {
			out = append(out, tl.Server)
		}
	}
	slices.Sort(out)
	return out
}

// An Approve that takes its time (a person deciding) holds up only the
// server it is asked about: the others come up, are called, and a server
// added meanwhile comes up too, while the question is open. Approve here
// blocks until the test has seen all that, not for a set time, so that a
// slow machine cannot make the test pass or fail by timing.
func TestManagerSlowApproveHoldsOnlyItsServer(t *testing.T) {
	release := make(chan struct{})
	asked := make(chan string, 4)
	vetted := testServer(t, "vetted", testserver.Options{}, t.Name()+"-vetted")
	vetted.NeedsApproval = true
	m := manage(t, supervisor.ManagerOptions{
		// vetted comes first: an Approve on the actor would hold the
		// others before they are even added.
		Servers: []*supervisor.Server{vetted, testServer(t, "a", testserver.Options{}, t.Name()+"-a"), testServer(t, "b", testserver.Options{}, t.Name()+"-b")},
		Startup: supervisor.StartupGate,
		Approve: func(s *supervisor.Server) bool {
			asked <- s.Name
			select {
			case <-release:
			case <-time.After(harness.Bound):
			}
			return true
		},
	})
	if name := <-asked; name != "vetted" {
		t.Fatalf("Approve asked about %q", name)
	}
	harness.WaitFor(t, "a and b up while Approve is out", func() bool {
		return status(m, "a").State == supervisor.StateReady && status(m, "b").State == supervisor.StateReady &&
			slices.Equal(toolServers(m), []string{"a", "b"})
	})
	echo(t, m, "mcp__b__echo", "not held up")
	if err := m.Add(harness.Context(t), testServer(t, "c", testserver.Options{}, t.Name()+"-c")); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "c up while Approve is out", func() bool { return slices.Equal(toolServers(m), []string{"a", "b", "c"}) })
	if st := status(m, "vetted"); st.State != supervisor.StateConnecting || st.Tools != 0 || !st.ToolsPending {
		t.Errorf("vetted while Approve is out: %+v", st)
	}

	close(release)
	harness.WaitFor(t, "vetted up once approved", func() bool { return slices.Contains(toolServers(m), "vetted") })
	echo(t, m, "mcp__vetted__echo", "approved")
	select {
	case name := <-asked:
		t.Errorf("Approve asked again, about %q", name)
	default:
	}
}

// A panic in Approve is contained: it is logged, counted, and its server
// refused; the next server's question is asked all the same.
func TestManagerApprovePanicRefusesItsServer(t *testing.T) {
	var log harness.Log
	bad := testServer(t, "bad", testserver.Options{}, t.Name()+"-bad")
	good := testServer(t, "good", testserver.Options{}, t.Name()+"-good")
	bad.NeedsApproval, good.NeedsApproval = true, true
	m := manage(t, supervisor.ManagerOptions{Servers: []*supervisor.Server{bad, good}, Logger: log.Logger(),
		Approve: func(s *supervisor.Server) bool {
			if s.Name == "bad" {
				panic("approval prompt lost its terminal")
			}
			return true
		}})
	st := status(m, "bad")
	if st.State != supervisor.StateRefused || st.LastError == nil || !strings.Contains(st.LastError.Error(), "Approve panicked") {
		t.Errorf("bad: %+v", st)
	}
	if st := status(m, "good"); st.State != supervisor.StateReady {
		t.Errorf("good: %+v", st)
	}
	echo(t, m, "mcp__good__echo", "asked after a panic")
	if l := log.String(); !strings.Contains(l, "Approve panicked") || !strings.Contains(l, "panics_total=1") ||
		!strings.Contains(l, "lost its terminal") {
		t.Errorf("the panic was not logged and counted:\n%s", l)
	}
}

// A cache directory that cannot be written (here its parent is a file,
// which stops root too) costs nothing but a warning: the servers come
// up, are called, removed and added, and Close returns.
func TestManagerUnwritableCacheDir(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(parent, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var log harness.Log
	cache := &toolcache.Cache{Dir: filepath.Join(parent, "cache")}
	m := manage(t, supervisor.ManagerOptions{Cache: cache, Logger: log.Logger(), Servers: []*supervisor.Server{
		testServer(t, "a", testserver.Options{}, t.Name()+"-a"), testServer(t, "b", testserver.Options{}, t.Name()+"-b")}})
	if got := toolServers(m); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("live tools of %v", got)
	}
	echo(t, m, "mcp__a__echo", "no cache needed")
	if err := m.Remove(harness.Context(t), "a"); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(harness.Context(t), testServer(t, "c", testserver.Options{}, t.Name()+"-c")); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "a gone, c up", func() bool { return slices.Equal(toolServers(m), []string{"b", "c"}) })
	harness.WaitFor(t, "the failed writes logged", func() bool {
		return strings.Count(log.String(), "could not write the tool cache") >= 3
	})
	if !strings.Contains(log.String(), "not a directory") {
		t.Errorf("the warning does not say why:\n%s", log.String())
	}
	closeManager(t, m)
}

// A disk that does not keep up holds up nothing but the writes: while the
// first write is stuck, every server comes up, is called and listed, and
// servers are added and removed. Close waits for the writes, each of
// which still lands.
func TestManagerSlowCacheWrites(t *testing.T) {
	cache := &toolcache.Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	release := make(chan struct{})
	var mu sync.Mutex
	var written []string
	store := func(k toolcache.Key, e *toolcache.Entry) error {
		select {
		case <-release:
		case <-time.After(harness.Bound):
			return errors.New("the test never released the disk")
		}
		// Slow, so that a Close that did not wait would find most
		// writes still to come.
		time.Sleep(20 * time.Millisecond)
		err := cache.Store(k, e)
		mu.Lock()
		written = append(written, k.Server)
		mu.Unlock()
		return err
	}
	var servers []*supervisor.Server
	for _, name := range []string{"a", "b", "c"} {
		servers = append(servers, testServer(t, name, testserver.Options{}, t.Name()+"-"+name))
	}
	sys := harness.ActorSystem(t)
	m, err := supervisor.Manage(harness.Context(t), sys.Root, supervisor.WithCacheStore(supervisor.ManagerOptions{Servers: servers, Cache: cache}, store))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeManager(t, m) })
	if got := toolServers(m); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("live tools of %v", got)
	}
	echo(t, m, "mcp__c__echo", "the disk is stuck")
	if err := m.Remove(harness.Context(t), "b"); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(harness.Context(t), testServer(t, "d", testserver.Options{}, t.Name()+"-d")); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "b gone, d up", func() bool { return slices.Equal(toolServers(m), []string{"a", "c", "d"}) })
	for _, st := range m.Status() {
		if st.State != supervisor.StateReady {
			t.Errorf("%s: %+v", st.Name, st)
		}
	}
	mu.Lock()
	if len(written) != 0 {
		t.Errorf("written before the disk was released: %v", written)
	}
	mu.Unlock()

	close(release)
	closeManager(t, m)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(written)
	if !slices.Equal(written, []string{"a", "b", "c", "d"}) {
		t.Errorf("written by the time Close returned: %v", written)
	}
	for _, s := range append(servers, testServer(t, "d", testserver.Options{}, t.Name()+"-d")) {
		if _, ok := cache.Load(toolcache.Key{Server: s.Name, ConfigHash: s.Hash}); !ok {
			t.Errorf("no entry for %s", s.Name)
		}
	}
}
