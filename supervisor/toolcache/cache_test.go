package toolcache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/messages"
)

// cacheWarnings collects what a Cache warns about.
type cacheWarnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *cacheWarnings) warn(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

func (w *cacheWarnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

func testCache(t *testing.T) (*Cache, *cacheWarnings) {
	t.Helper()
	w := &cacheWarnings{}
	return &Cache{Dir: filepath.Join(t.TempDir(), "cache"), Warn: w.warn}, w
}

// configHash stands in for a configuration's hash: any hex SHA-256 of
// it will do (the configuration's own is Server.Hash).
func configHash(t *testing.T, doc string) string {
	t.Helper()
	return digest([]byte(doc))
}

func testKey(t *testing.T) Key {
	return Key{Server: "files", ConfigHash: configHash(t, `{"command":"npx","args":["-y","srv"]}`)}
}

func testTools(prefix string, n int) []messages.Tool {
	tools := make([]messages.Tool, n)
	for i := range tools {
		tools[i] = messages.Tool{
			Name:        fmt.Sprintf("%s%d", prefix, i),
			Description: strings.Repeat(prefix, 200),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		}
	}
	return tools
}

func ttl(ms int64) *int64 { return &ms }

func TestCacheRoundTrip(t *testing.T) {
	c, w := testCache(t)
	key := testKey(t)
	key.ProjectDir = "/home/u/project"
	fetched := time.Now().Add(-time.Minute).Round(0).UTC()
	in := &Entry{
		Tools:           testTools("t", 3),
		FetchedAt:       fetched,
		TTLMs:           ttl(60_000),
		CacheScope:      "public",
		Transport:       "http",
		Era:             "stateless",
		ProtocolVersion: "2026-07-28",
		Server:          "ignored: Store sets the key material",
	}
	in.Tools[0].Annotations = &messages.ToolAnnotations{Title: "T"}
	in.Tools[1].Meta = messages.Meta{"x": "y"}
	if err := c.Store(key, in); err != nil {
		t.Fatal(err)
	}
	if in.Version != 0 || in.Server != "ignored: Store sets the key material" {
		t.Error("Store modified its argument")
	}
	got, ok := c.Load(key)
	if !ok {
		t.Fatalf("miss; warnings %v", w.all())
	}
	want := *in
	want.Version = formatVersion
	want.Server = "files"
	want.ConfigHash = key.ConfigHash
	want.ProjectHash = digest([]byte("/home/u/project"))
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("got  %+v\nwant %+v", got, &want)
	}
	if len(w.all()) != 0 {
		t.Errorf("warnings: %v", w.all())
	}

	// Another project, the user level, another configuration, another
	// server: all misses.
	for _, other := range []Key{
		{Server: "files", ConfigHash: key.ConfigHash, ProjectDir: "/home/u/other"},
		{Server: "files", ConfigHash: key.ConfigHash},
		{Server: "files", ConfigHash: configHash(t, `{"command":"npx"}`), ProjectDir: key.ProjectDir},
		{Server: "Files", ConfigHash: key.ConfigHash, ProjectDir: key.ProjectDir},
	} {
		if _, ok := c.Load(other); ok {
			t.Errorf("%+v hit the entry of %+v", other, key)
		}
	}
	// A fresh Cache on the same directory, as another process would be.
	if _, ok := (&Cache{Dir: c.Dir}).Load(key); !ok {
		t.Error("a second Cache does not see the entry")
	}
}

func TestCacheFresh(t *testing.T) {
	at := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		ttl   *int64
		after time.Duration
		fresh bool
	}{
		{nil, 0, false},
		{ttl(0), 0, false},
		{ttl(-5), 0, false},
		{ttl(1000), 500 * time.Millisecond, true},
		{ttl(1000), time.Second, false},
		{ttl(1000), 2 * time.Second, false},
	}
	for _, c := range cases {
		e := &Entry{FetchedAt: at, TTLMs: c.ttl}
		if got := e.fresh(at.Add(c.after)); got != c.fresh {
			t.Errorf("ttl %v, %v later: Fresh = %v", c.ttl, c.after, got)
		}
	}
}

// A reader racing writers sees one whole entry or another, never a part.
func TestCacheAtomicWrite(t *testing.T) {
	c, w := testCache(t)
	key := testKey(t)
	a := &Entry{Tools: racingTools["a"], CacheScope: "public"}
	b := &Entry{Tools: racingTools["b"], CacheScope: "public"}
	if err := c.Store(key, a); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			e := a
			if i%2 == 1 {
				e = b
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := c.Store(key, e); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var reads, misses int
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) || reads < 20 {
		e, ok := c.Load(key)
		if !ok {
			misses++
			continue
		}
		reads++
		checkWholeEntry(t, e)
	}
	close(stop)
	wg.Wait()
	if warnings := w.all(); misses > 0 || len(warnings) > 0 {
		t.Errorf("%d misses in %d reads; %d warnings, the first %q", misses, reads+misses, len(warnings), append(warnings, "")[0])
	}
	t.Logf("%d reads", reads)
	assertNoTempFiles(t, c.Dir)
}

// The two entries the racing writers store, each some 100 kB: large enough
// that a reader would catch a write in progress if writes were not atomic.
var racingTools = map[string][]messages.Tool{"a": testTools("a", 400), "b": testTools("b", 500)}

// checkWholeEntry fails unless e is exactly one of racingTools.
func checkWholeEntry(t *testing.T, e *Entry) {
	t.Helper()
	if len(e.Tools) == 0 {
		t.Fatal("an entry without tools")
	}
	if !reflect.DeepEqual(e.Tools, racingTools[e.Tools[0].Name[:1]]) {
		t.Fatalf("a mixed or partial entry: %d tools from %q to %q", len(e.Tools), e.Tools[0].Name, e.Tools[len(e.Tools)-1].Name)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if strings.HasPrefix(f.Name(), cacheTempPrefix) {
			t.Errorf("temporary file left behind: %s", f.Name())
		}
	}
}

const cacheWriterEnv = "MCPACTOR_CACHE_TEST_WRITER"

// Several processes store the same entry while this one reads it.
func TestCacheAtomicWriteAcrossProcesses(t *testing.T) {
	if spec := os.Getenv(cacheWriterEnv); spec != "" {
		cacheWriterChild(t, spec)
		return
	}
	c, w := testCache(t)
	key := testKey(t)
	if err := c.Store(key, &Entry{Tools: racingTools["a"], CacheScope: "public"}); err != nil {
		t.Fatal(err)
	}
	var children []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), cacheWriterEnv+"="+c.Dir+"|"+key.ConfigHash+"|"+strconv.Itoa(i%2))
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, cmd)
		outs = append(outs, out)
	}
	done := make(chan struct{})
	go func() {
		for _, cmd := range children {
			cmd.Wait()
		}
		close(done)
	}()
	// On failure, stop the writers before the directory is removed.
	t.Cleanup(func() {
		for _, cmd := range children {
			cmd.Process.Kill()
		}
		<-done
	})
	reads := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		e, ok := c.Load(key)
		if !ok {
			t.Fatalf("miss while the children write; warnings %v", w.all())
		}
		checkWholeEntry(t, e)
		reads++
	}
	for i, cmd := range children {
		if !cmd.ProcessState.Success() || !strings.Contains(outs[i].String(), "--- PASS") {
			t.Errorf("writer %d: %v\n%s", i, cmd.ProcessState, outs[i])
		}
	}
	if len(w.all()) > 0 {
		t.Errorf("warnings: %v", w.all())
	}
	t.Logf("%d reads", reads)
	assertNoTempFiles(t, c.Dir)
}

// cacheWriterChild stores one of the two entries for a while.
func cacheWriterChild(t *testing.T, spec string) {
	parts := strings.Split(spec, "|")
	c := &Cache{Dir: parts[0]}
	key := Key{Server: "files", ConfigHash: parts[1]}
	e := &Entry{Tools: racingTools["a"], CacheScope: "public"}
	if parts[2] == "1" {
		e = &Entry{Tools: racingTools["b"], CacheScope: "public"}
	}
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		if err := c.Store(key, e); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCacheCorruptEntry(t *testing.T) {
	for _, c := range []struct {
		name    string
		content string
	}{
		{"garbage", "not json at all"},
		{"truncated", `{"version":1,"server":"files","tools":[{"name":"a"`},
		{"empty", ""},
		{"wrong types", `{"version":1,"server":"files","tools":"many"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache, w := testCache(t)
			key := testKey(t)
			path := filepath.Join(cache.Dir, key.fileName(false))
			os.MkdirAll(cache.Dir, 0o700)
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if e, ok := cache.Load(key); ok {
				t.Fatalf("a corrupt entry was served: %+v", e)
			}
			warnings := w.all()
			if len(warnings) != 1 || !strings.Contains(warnings[0], "corrupt") || !strings.Contains(warnings[0], `"files"`) {
				t.Errorf("warnings %q", warnings)
			}
			// A good Store replaces it.
			if err := cache.Store(key, &Entry{Tools: testTools("a", 1)}); err != nil {
				t.Fatal(err)
			}
			if _, ok := cache.Load(key); !ok {
				t.Error("miss after storing over the corrupt entry")
			}
		})
	}

	t.Run("unreadable", func(t *testing.T) {
		cache, w := testCache(t)
		key := testKey(t)
		// A directory where the entry should be cannot be read as a file.
		if err := os.MkdirAll(filepath.Join(cache.Dir, key.fileName(false)), 0o700); err != nil {
			t.Fatal(err)
		}
		if _, ok := cache.Load(key); ok {
			t.Fatal("hit")
		}
		if len(w.all()) != 1 {
			t.Errorf("warnings %q", w.all())
		}
	})

	t.Run("filed under another key", func(t *testing.T) {
		cache, w := testCache(t)
		key, other := testKey(t), testKey(t)
		other.ProjectDir = "/elsewhere"
		if err := cache.Store(other, &Entry{Tools: testTools("a", 1)}); err != nil {
			t.Fatal(err)
		}
		os.Rename(filepath.Join(cache.Dir, other.fileName(false)), filepath.Join(cache.Dir, key.fileName(false)))
		if _, ok := cache.Load(key); ok {
			t.Fatal("served another key's entry")
		}
		if len(w.all()) != 1 || !strings.Contains(w.all()[0], "another key") {
			t.Errorf("warnings %q", w.all())
		}
	})
}

func TestCacheVersionMismatch(t *testing.T) {
	c, w := testCache(t)
	key := testKey(t)
	if err := c.Store(key, &Entry{Tools: testTools("a", 1)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(c.Dir, key.fileName(false))
	data, _ := os.ReadFile(path)
	for _, v := range []string{`"version":2`, `"version":0`} {
		changed := bytes.Replace(data, []byte(`"version":1`), []byte(v), 1)
		if err := os.WriteFile(path, changed, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Load(key); ok {
			t.Errorf("%s: hit", v)
		}
	}
	// A future format may change everything but the version.
	os.WriteFile(path, []byte(`{"version":2,"tools":{"a":"b"}}`), 0o600)
	if _, ok := c.Load(key); ok {
		t.Error("hit on a future format")
	}
	if len(w.all()) != 0 {
		t.Errorf("a version mismatch warned: %v", w.all())
	}
}

func TestCachePrune(t *testing.T) {
	c, w := testCache(t)
	now := time.Now()
	keyOf := func(server string) Key {
		k := testKey(t)
		k.Server = server
		return k
	}
	for server, age := range map[string]time.Duration{
		"old":    31 * 24 * time.Hour,
		"recent": 29 * 24 * time.Hour,
		"new":    time.Minute,
	} {
		if err := c.Store(keyOf(server), &Entry{Tools: testTools("a", 1), FetchedAt: now.Add(-age)}); err != nil {
			t.Fatal(err)
		}
	}
	// Past MaxAge an entry is a miss even before prune removes it.
	if _, ok := c.Load(keyOf("old")); ok {
		t.Error("an entry older than MaxAge was served")
	}
	if _, ok := c.Load(keyOf("recent")); !ok {
		t.Error("an entry younger than MaxAge was not served")
	}
	// Leftovers: a dead writer's temporary file, a fresh one (a writer still
	// at work), a corrupt old entry, and a file that is not the cache's.
	touch := func(name string, age time.Duration) {
		p := filepath.Join(c.Dir, name)
		os.WriteFile(p, []byte("x"), 0o600)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	touch(".tools-dead.tmp", 2*time.Hour)
	touch(".tools-busy.tmp", time.Minute)
	touch("tools-corrupt-0123.json", 40*24*time.Hour)
	touch("notes.json", 400*24*time.Hour)

	removed, err := c.prune(now)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 3 {
		t.Errorf("removed %d files, want 3", removed)
	}
	var left []string
	files, _ := os.ReadDir(c.Dir)
	for _, f := range files {
		left = append(left, f.Name())
	}
	want := []string{".tools-busy.tmp", "notes.json",
		keyOf("new").fileName(false), keyOf("recent").fileName(false)}
	if fmt.Sprint(slices.Sorted(slices.Values(left))) != fmt.Sprint(slices.Sorted(slices.Values(want))) {
		t.Errorf("left %v, want %v", left, want)
	}

	// A shorter MaxAge.
	c.MaxAge = time.Hour
	if removed, _ := c.prune(now); removed != 1 {
		t.Errorf("MaxAge 1h removed %d, want 1 (recent)", removed)
	}
	if _, ok := c.Load(keyOf("new")); !ok {
		t.Error("new was pruned")
	}
	// A cache directory that does not exist yet is nothing to prune.
	if removed, err := (&Cache{Dir: filepath.Join(t.TempDir(), "none")}).prune(now); removed != 0 || err != nil {
		t.Errorf("prune of a missing directory: %d, %v", removed, err)
	}
	if len(w.all()) != 0 {
		t.Errorf("warnings: %v", w.all())
	}
}

func TestCachePrivateScope(t *testing.T) {
	c, w := testCache(t)
	alice, bob := testKey(t), testKey(t)
	alice.Identity = digest([]byte("Authorization: Bearer alice-token"))
	bob.Identity = digest([]byte("Authorization: Bearer bob-token"))
	anonymous := testKey(t)

	if err := c.Store(alice, &Entry{Tools: testTools("a", 2), CacheScope: "private"}); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Load(alice); !ok || e.IdentityHash != alice.Identity {
		t.Fatalf("alice misses her own private list: %+v, %v", e, ok)
	}
	if _, ok := c.Load(bob); ok {
		t.Error("bob was served alice's private list")
	}
	if _, ok := c.Load(anonymous); ok {
		t.Error("no identity was served alice's private list")
	}

	// Bob's own private list lives beside alice's.
	if err := c.Store(bob, &Entry{Tools: testTools("b", 1), CacheScope: "private"}); err != nil {
		t.Fatal(err)
	}
	if e, _ := c.Load(alice); e == nil || e.Tools[0].Name != "a0" {
		t.Error("bob's store replaced alice's list")
	}

	// An absent scope (a server before 2026-07-28) is private too.
	if err := c.Store(anonymous, &Entry{Tools: testTools("n", 1)}); err != nil {
		t.Fatal(err)
	}
	if e, _ := c.Load(alice); e == nil || e.Tools[0].Name != "a0" {
		t.Error("a list without scope was shared")
	}

	// A public list is served to every identity, and carries none.
	if err := c.Store(alice, &Entry{Tools: testTools("p", 1), CacheScope: "public"}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []Key{alice, bob, anonymous} {
		e, ok := c.Load(k)
		if !ok {
			t.Fatalf("%q misses", k.Identity)
		}
		if k == alice && (e.Tools[0].Name != "p0" || e.IdentityHash != "") {
			t.Errorf("alice: %+v", e)
		}
	}
	if _, err := os.Stat(filepath.Join(c.Dir, alice.fileName(false))); !os.IsNotExist(err) {
		t.Error("alice's private entry is still there after her list turned public")
	}

	// And when it turns private again, the public entry goes.
	if err := c.Store(alice, &Entry{Tools: testTools("a", 1), CacheScope: "private"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, alice.fileName(true))); !os.IsNotExist(err) {
		t.Error("the public entry survived a private store")
	}
	if len(w.all()) != 0 {
		t.Errorf("warnings: %v", w.all())
	}
}

// Nothing secret reaches the disk: not a token in the configuration, not
// the project path, not a token passed where a hash belongs.
func TestCacheNoSecrets(t *testing.T) {
	const token = "sk-live-9f8e7d6c5b4a39281706"
	const project = "/home/alice/secret-project"
	c, w := testCache(t)
	config := `{"url":"https://mcp.example.test/mcp","headers":{"Authorization":"Bearer ` + token + `"}}`
	key := Key{
		Server:     "remote",
		ConfigHash: configHash(t, config),
		ProjectDir: project,
		Identity:   digest([]byte("Bearer " + token)),
	}
	if err := c.Store(key, &Entry{Tools: testTools("a", 1), CacheScope: "private", Transport: "http"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Key{
		{Server: "remote", ConfigHash: key.ConfigHash, Identity: token},
		{Server: "remote", ConfigHash: key.ConfigHash, Identity: "Bearer " + token},
		{Server: "remote", ConfigHash: config},
		{Server: "remote", ConfigHash: strings.ToUpper(key.ConfigHash)},
		{Server: "", ConfigHash: key.ConfigHash},
	} {
		if err := c.Store(bad, &Entry{Tools: testTools("a", 1)}); err == nil {
			t.Errorf("Store accepted %+v", bad)
		} else if strings.Contains(err.Error(), token) {
			t.Errorf("the error repeats the token: %v", err)
		}
		if _, ok := c.Load(bad); ok {
			t.Errorf("Load hit %+v", bad)
		}
	}
	for _, msg := range w.all() {
		if strings.Contains(msg, token) {
			t.Errorf("a warning repeats the token: %s", msg)
		}
	}
	files, _ := os.ReadDir(c.Dir)
	if len(files) != 1 {
		t.Errorf("%d files, want 1", len(files))
	}
	for _, f := range files {
		data, _ := os.ReadFile(filepath.Join(c.Dir, f.Name()))
		for _, secret := range []string{token, project, "secret-project", "alice"} {
			if bytes.Contains(data, []byte(secret)) || strings.Contains(f.Name(), secret) {
				t.Errorf("%s holds %q:\n%s", f.Name(), secret, data)
			}
		}
	}
}

func TestCachePermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permission bits")
	}
	c, _ := testCache(t)
	key := testKey(t)
	if err := c.Store(key, &Entry{Tools: testTools("a", 1)}); err != nil {
		t.Fatal(err)
	}
	dir, err := os.Stat(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := dir.Mode().Perm(); perm != 0o700 {
		t.Errorf("directory mode %o, want 700", perm)
	}
	file, err := os.Stat(filepath.Join(c.Dir, key.fileName(false)))
	if err != nil {
		t.Fatal(err)
	}
	if perm := file.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode %o, want 600", perm)
	}
	// Rewriting keeps the mode.
	if err := c.Store(key, &Entry{Tools: testTools("b", 1)}); err != nil {
		t.Fatal(err)
	}
	if file, _ := os.Stat(filepath.Join(c.Dir, key.fileName(false))); file.Mode().Perm() != 0o600 {
		t.Errorf("file mode after a rewrite %o", file.Mode().Perm())
	}
}

var cacheFileShape = regexp.MustCompile(`^tools-[a-z0-9_-]{1,40}-[0-9a-f]{32}\.json$`)

func TestCacheFileNames(t *testing.T) {
	h := configHash(t, `{}`)
	seen := map[string]bool{}
	for _, k := range []Key{
		{Server: "files", ConfigHash: h},
		{Server: "Files", ConfigHash: h},
		{Server: "../../etc/passwd", ConfigHash: h},
		{Server: "a/b\\c:d*e?f\x00g", ConfigHash: h},
		{Server: strings.Repeat("long", 100), ConfigHash: h},
		{Server: "files", ConfigHash: h, ProjectDir: "/p"},
		{Server: "files", ConfigHash: h, Identity: h},
	} {
		for _, shared := range []bool{false, true} {
			name := k.fileName(shared)
			if !cacheFileShape.MatchString(name) {
				t.Errorf("%+v: unsafe file name %q", k, name)
			}
			if seen[name] && !(k.Identity != "" && shared) {
				t.Errorf("%+v: file name %q reused", k, name)
			}
			seen[name] = true
		}
	}
}

func TestCacheDefaultDir(t *testing.T) {
	if runtime.GOOS == "linux" {
		t.Setenv("XDG_CACHE_HOME", "/tmp/xdg-cache")
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	dir, err := DefaultDir()
	if err != nil || dir != filepath.Join(base, "mcpactor") {
		t.Errorf("DefaultDir() = %q, %v; want %q", dir, err, filepath.Join(base, "mcpactor"))
	}
}
