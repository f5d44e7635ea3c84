//go:build linux

package cluster

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// TestOneServerReceiving: the soak's failure, "one identity, two servers
// receiving" (docs/reliability.md, "The cluster under chaos"). Under
// steady calls an identity is being activated on member m1, whose server
// is slow to start (as nine servers started at once on a loaded machine
// are): the process runs and its initialize is in its stdin, unread, when
// m1's lease lapses (m1 loses etcd: its renewals fail, its watchdog
// fences). The identity moves to m2, whose server serves the calls. The
// servers log every request they read, with the time and their pid:
// never may two processes of the identity both be receiving.
//
// Before the fix, the fence skipped an activation still starting ("its
// own validity check refuses it"): its server lived on, read the
// initialize written under the valid lease after m2's server had
// started, and a revoke that succeeded (etcd back at that moment, as in
// the soak) let m2 take over at once. Now the fence stops a starting
// activation too, kills its server within TTL/6, and revokes the lease
// only once it is gone; every write checks that its activation (and its
// connect attempt) is still the identity's current one.
func TestOneServerReceiving(t *testing.T) {
	const (
		ttl = 2 * time.Second
		// slowStart delays m1's server processes past the takeover.
		slowStart = 6 * time.Second
	)
	e := etcdFor(t)
	proxy := newCutProxy(t, strings.TrimPrefix(e.endpoint(), "http://"))
	logDir := t.TempDir()
	base := testSpec(t, e, ttl)

	// The tenant whose session m1 is the first choice for.
	var tenant string
	for i := 0; tenant == ""; i++ {
		if tn := "t" + strconv.Itoa(i); place(Identity{Server: "alpha", Tenant: tn}, []string{"m1", "m2"}) == "m1" {
			tenant = tn
		}
	}
	id := Identity{Server: "alpha", Tenant: tenant}

	m2 := base
	m2.Name, m2.LogDir = "m2", logDir
	startMember(t, m2)
	m1 := m2
	m1.Name, m1.Endpoint, m1.SlowStart = "m1", "http://"+proxy.addr(), slowStart
	startMember(t, m1)
	driverSpec := base
	driverSpec.Name, driverSpec.CallOnly = "driver", true
	driver := startLocal(t, "driver", driverSpec.config())
	waitFor(t, "the driver sees m1 and m2", func() bool { return len(driver.Members()) == 3 })

	ctx, cancel := context.WithTimeout(context.Background(), 3*waitLimit)
	defer cancel()

	// The identity's running server processes, sampled throughout.
	procs := &testCluster{t: t, run: base.Run}
	var worst atomic.Int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			worst.Store(max(worst.Load(), int64(len(running(procs.servers())[id.String()]))))
			select {
			case <-stopSampling:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	finishSampling := func() {
		select {
		case <-stopSampling:
		default:
			close(stopSampling)
		}
		<-sampled
	}
	defer finishSampling()
	var answered, failed atomic.Int64
	stopCalls := steadyCalls(ctx, 4, func(ctx context.Context) error {
		_, err := driver.As(tenant).CallTool(ctx, "alpha", "echo", map[string]any{"message": "x"})
		return err
	}, func(err error) {
		if err == nil {
			answered.Add(1)
		} else {
			failed.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
	})
	defer stopCalls()

	// m1's server is spawned (it sleeps before it reads): m1 loses etcd.
	var spawned time.Time
	waitFor(t, "m1 spawns the identity's server", func() bool {
		for _, l := range readRequestLogs(t, logDir) {
			if l.member == "m1" && l.identity == id.String() {
				spawned = l.spawned
				return true
			}
		}
		return false
	})
	proxy.setCut(true)
	t.Logf("m1 spawned %s's server; m1 cut off from etcd", id)
	// m1 cannot renew: it fences itself, then etcd expires its lease.
	waitFor(t, "m1's lease expires", func() bool { return !slices.Contains(driver.Members(), "m1") })
	waitFor(t, "m2 serves the identity", func() bool {
		for _, l := range readRequestLogs(t, logDir) {
			if l.member == "m2" && l.identity == id.String() && len(l.reqs) > 0 {
				return true
			}
		}
		return false
	})
	// Past the slow start, and a while more of calls on m2's server.
	time.Sleep(time.Until(spawned.Add(slowStart + 2*time.Second)))
	proxy.setCut(false)
	waitFor(t, "m1 joins again", func() bool { return slices.Contains(driver.Members(), "m1") })
	before := answered.Load()
	waitFor(t, "calls answered after m1 is back", func() bool { return answered.Load() > before })
	stopCalls()
	finishSampling()

	var mine []*requestLog
	for _, l := range readRequestLogs(t, logDir) {
		if l.identity == id.String() {
			mine = append(mine, l)
		}
	}
	t.Logf("calls: %d answered, %d failed (retried); %d server processes of %s", answered.Load(), failed.Load(), len(mine), id)
	for _, l := range mine {
		t.Logf("  %s pid %d: spawned %s, %d requests read", l.member, l.pid, l.spawned.Format("15:04:05.000"), len(l.reqs))
	}
	if n := worst.Load(); n > 1 {
		t.Errorf("%s ran as %d processes at once", id, n)
	}
	if len(mine) < 2 {
		t.Fatalf("%s ran as %d server processes: the identity never moved", id, len(mine))
	}
	for i, a := range mine {
		for _, b := range mine[i+1:] {
			if at, ok := receivingTogether(a, b); ok {
				t.Errorf("two servers of %s received requests at once: %s pid %d (%d requests, %s to %s) and %s pid %d (%d requests, %s to %s), around %s",
					id, a.member, a.pid, len(a.reqs), stamp(a.first()), stamp(a.last()),
					b.member, b.pid, len(b.reqs), stamp(b.first()), stamp(b.last()), stamp(at))
			}
		}
	}
}

func stamp(t time.Time) string { return t.Format("15:04:05.000") }

// waitFor polls cond until it holds, failing the test after waitLimit.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, waitLimit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The logging server: this test binary as a test server that logs, to a
// file of its own, when it was spawned, then (after a delay) every
// request it reads from stdin, with the time: the server's own account
// of what it received, written at once so that a kill loses nothing.
const (
	envLogServer = "MCPACTOR_CLUSTER_TEST_LOGSERVER" // the log's path prefix
	envLogDelay  = "MCPACTOR_CLUSTER_TEST_LOGDELAY"  // the delay before it reads
)

// loggingServer is the configuration of id's logging server on the
// member of spec: its log is <spec.LogDir>/<member>.<identity>.<pid>.log;
// it reads nothing for spec.SlowStart.
func loggingServer(spec memberSpec, id Identity) mcpactor.ServerConfig {
	path, err := os.Executable()
	if err != nil {
		path = os.Args[0]
	}
	env := map[string]string{}
	for _, kv := range childEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	env[envRole] = "logserver"
	env[envLogServer] = filepath.Join(spec.LogDir, spec.Name+"."+id.String())
	env[envLogDelay] = spec.SlowStart.String()
	env[envIdentity] = spec.Run + "|" + spec.Name + "|" + id.String()
	// The version pinned, as the era memo pins a server activated before:
	// the handshake is one initialize, written at once.
	return mcpactor.ServerConfig{Command: path, Env: env, InheritEnv: mcpactor.EnvInheritNone, Identity: id.Tenant,
		ProtocolVersion: "2025-11-25"}
}

// runLogServer is the logging server's process.
func runLogServer() {
	f, err := os.OpenFile(fmt.Sprintf("%s.%d.log", os.Getenv(envLogServer), os.Getpid()), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "log server:", err)
		os.Exit(1)
	}
	note := func(what string) {
		_, _ = f.WriteString(strconv.FormatInt(time.Now().UnixNano(), 10) + " " + what + "\n")
	}
	note("spawn")
	if d, err := time.ParseDuration(os.Getenv(envLogDelay)); err == nil && d > 0 {
		time.Sleep(d)
	}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			// A request has a method and an id; notifications and the
			// client's answers are not requests.
			if bytes.Contains(line, []byte(`"method"`)) && bytes.Contains(line, []byte(`"id"`)) {
				note("req")
			}
			if _, err := pw.Write(append(line, '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	if err := testserver.Serve(context.Background(), pr, os.Stdout, os.Stderr, testserver.Options{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// requestLog is one logging server process's log.
type requestLog struct {
	member, identity string
	pid              int
	spawned          time.Time
	reqs             []time.Time
}

func (l *requestLog) first() time.Time { return l.reqs[0] }
func (l *requestLog) last() time.Time  { return l.reqs[len(l.reqs)-1] }

// readRequestLogs reads every logging server's log in dir.
func readRequestLogs(t *testing.T, dir string) []*requestLog {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*requestLog
	for _, ent := range ents {
		// <member>.<identity>.<pid>.log; the identity has no dot.
		parts := strings.Split(strings.TrimSuffix(ent.Name(), ".log"), ".")
		if len(parts) != 3 {
			continue
		}
		pid, err := strconv.Atoi(parts[2])
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		l := &requestLog{member: parts[0], identity: parts[1], pid: pid}
		for line := range strings.SplitSeq(string(b), "\n") {
			ns, what, ok := strings.Cut(line, " ")
			n, err := strconv.ParseInt(ns, 10, 64)
			if !ok || err != nil {
				continue
			}
			switch what {
			case "spawn":
				l.spawned = time.Unix(0, n)
			case "req":
				l.reqs = append(l.reqs, time.Unix(0, n))
			}
		}
		if !l.spawned.IsZero() {
			out = append(out, l)
		}
	}
	return out
}

// receivingTogether reports whether a and b received requests at once:
// a request of one while the other had received one before and received
// another after it. It returns the time of that request.
func receivingTogether(a, b *requestLog) (time.Time, bool) {
	if len(a.reqs) == 0 || len(b.reqs) == 0 {
		return time.Time{}, false
	}
	for _, pair := range [][2]*requestLog{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		for _, r := range x.reqs {
			if !r.Before(y.first()) && !r.After(y.last()) {
				return r, true
			}
		}
	}
	return time.Time{}, false
}

// cutProxy forwards TCP connections to target until it is cut: then it
// closes them all and refuses new ones, as a network partition does,
// until it is restored.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		ln.Close()
		p.setCut(true)
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			up.Close()
			continue
		}
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		for _, dir := range [][2]net.Conn{{c, up}, {up, c}} {
			p.wg.Go(func() {
				_, _ = io.Copy(dir[0], dir[1])
				dir[0].Close()
				dir[1].Close()
				p.mu.Lock()
				delete(p.conns, dir[0])
				delete(p.conns, dir[1])
				p.mu.Unlock()
			})
		}
	}
}

// setCut cuts the proxy (closing every connection) or restores it.
func (p *cutProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for c := range p.conns {
			c.Close()
		}
	}
}
