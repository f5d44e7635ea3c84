// Package toolcache holds the tool-list cache: each managed server's last
// tool list on disk, so that a server still connecting at startup can be
// offered with the tools it had last time, and the era it last spoke, so
// that its next start skips the probe (docs/configuration.md, "Tool names
// and the tool-list cache"). It is an engine package of the manager
// (package supervisor); the supported API is the root package,
// github.com/mcpactor/mcpactor.
package toolcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpactor/mcpactor/internal/atomicfile"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor/naming"
)

const (
	// formatVersion is the version of the entry format; an entry of
	// another version is a miss.
	formatVersion = 1
	// defaultMaxAge is how long an entry is kept when Cache.MaxAge is 0.
	defaultMaxAge = 30 * 24 * time.Hour

	// Entries are tools-<server>-<digest>.json; temporary files are
	// .tools-*.tmp. prune touches nothing else, so a cache directory shared
	// with other files is safe.
	cacheFilePrefix = "tools-"
	cacheFileSuffix = ".json"
	cacheTempPrefix = ".tools-"
	cacheTempSuffix = ".tmp"
	// cacheTempGrace is how old a temporary file must be before prune takes
	// it for the leftover of a writer that died, not one still writing.
	cacheTempGrace = time.Hour
)

// Key says whose tool list an entry holds. It carries no secrets: the
// caller hashes the configuration and the auth identity, and the cache
// hashes the project directory.
type Key struct {
	// Server is the server's name.
	Server string
	// ConfigHash is the hex SHA-256 of the server's configuration as
	// written, before variables and secrets are resolved, with object keys
	// sorted (the configuration's Server.Hash).
	ConfigHash string
	// ProjectDir is the project directory of a project-level server, "" for
	// a user-level one: the same name in two projects is two servers. Only
	// its hash is written.
	ProjectDir string
	// Identity is the hex SHA-256 of the auth identity (until OAuth exists,
	// of the configured Authorization header or credential id), "" when
	// there is none. Never the token itself.
	Identity string
}

// Entry is one server's tool list as last fetched.
type Entry struct {
	// Version is formatVersion; Store sets it.
	Version int `json:"version"`
	// The key material, hashes only; Store sets it from the key.
	Server       string `json:"server"`
	ConfigHash   string `json:"configHash"`
	ProjectHash  string `json:"projectHash,omitempty"`
	IdentityHash string `json:"identityHash,omitempty"`

	Tools []messages.Tool `json:"tools"`
	// FetchedAt is when the list was fetched; Store uses now when it is
	// zero. An entry's age is counted from it.
	FetchedAt time.Time `json:"fetchedAt"`
	// TTLMs and CacheScope are the server's caching hints
	// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching),
	// absent before 2026-07-28.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
	// What was last negotiated with the server, so that the next start need
	// not probe again: the transport ("stdio", "http", "sse"), the era
	// ("session", "stateless") and the protocol version.
	Transport       string `json:"transport,omitempty"`
	Era             string `json:"era,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// The eras an Entry records.
const (
	EraSession   = "session"   // the initialize handshake (2024-11-05 to 2025-11-25)
	EraStateless = "stateless" // 2026-07-28
)

// fresh reports whether the server's ttlMs still covers the entry at now. An
// absent or zero ttlMs is stale at once. Staleness only asks for a refresh:
// a stale entry is still what the slow-server fallback serves.
func (e *Entry) fresh(now time.Time) bool {
	if e.TTLMs == nil || *e.TTLMs <= 0 {
		return false
	}
	return now.Before(e.FetchedAt.Add(time.Duration(*e.TTLMs) * time.Millisecond))
}

// shared reports whether the entry may be served to any auth identity. Only
// a list the server marked "public" is; an absent scope is taken as private,
// the reading that cannot leak one user's list to another.
func (e *Entry) shared() bool { return e.CacheScope == "public" }

// Cache is the on-disk tool-list cache. The zero value uses DefaultDir
// and defaultMaxAge. Any number of goroutines and processes may Load
// and Store at once: an entry is written to a temporary file and renamed into
// place, so a reader sees the old entry or the new one, never part of one.
type Cache struct {
	// Dir holds the entries; "" means DefaultDir().
	Dir string
	// MaxAge is how long an entry is kept; 0 means defaultMaxAge.
	MaxAge time.Duration
	// Warn receives the problems that make an entry a miss (unreadable,
	// corrupt); nil discards them.
	Warn func(string)
}

// DefaultDir is mcpactor under the user's cache directory
// (os.UserCacheDir).
func DefaultDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "mcpactor"), nil
}

// HashIdentity is the Key.Identity of an auth identity: its hex SHA-256,
// so that the identity itself is never written.
func HashIdentity(identity string) string { return digest([]byte(identity)) }

// Load returns the entry for key, if there is one no older than MaxAge. An
// entry written for another auth identity is not seen unless the server
// marked its list public. A missing entry or one of another format version is
// a plain miss; an unreadable or corrupt one is a miss and a warning.
func (c *Cache) Load(key Key) (*Entry, bool) {
	if err := key.check(); err != nil {
		c.warn(err.Error())
		return nil, false
	}
	dir, err := c.dir()
	if err != nil {
		c.warn(fmt.Sprintf("tool cache for server %q: %v", key.Server, err))
		return nil, false
	}
	var best *Entry
	for _, shared := range []bool{false, true} {
		e := c.read(filepath.Join(dir, key.fileName(shared)), key, shared)
		if e != nil && (best == nil || e.FetchedAt.After(best.FetchedAt)) {
			best = e
		}
	}
	return best, best != nil
}

// read returns the entry in path if it is one for key, else nil.
func (c *Cache) read(path string, key Key, shared bool) *Entry {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.warn(fmt.Sprintf("tool cache for server %q: %v", key.Server, err))
		return nil
	}
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		c.warn(fmt.Sprintf("tool cache for server %q: %s is corrupt: %v", key.Server, path, err))
		return nil
	}
	if head.Version != formatVersion {
		return nil
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		c.warn(fmt.Sprintf("tool cache for server %q: %s is corrupt: %v", key.Server, path, err))
		return nil
	}
	if want := key.material(shared); e.Server != want.Server || e.ConfigHash != want.ConfigHash ||
		e.ProjectHash != want.ProjectHash || e.IdentityHash != want.IdentityHash || e.shared() != shared {
		c.warn(fmt.Sprintf("tool cache for server %q: %s belongs to another key", key.Server, path))
		return nil
	}
	if time.Since(e.FetchedAt) > c.maxAge() {
		return nil
	}
	return &e
}

// Store writes e as the entry for key, replacing any earlier one: the
// entry's version and key material come from the key, not from e, which is
// not modified. The file is written whole under a temporary name, synced and
// renamed into place, and readable by the user alone.
func (c *Cache) Store(key Key, e *Entry) error {
	if err := key.check(); err != nil {
		return err
	}
	if e == nil {
		return fmt.Errorf("tool cache for server %q: no entry to store", key.Server)
	}
	dir, err := c.dir()
	if err != nil {
		return fmt.Errorf("tool cache for server %q: %w", key.Server, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("tool cache for server %q: %w", key.Server, err)
	}
	entry := *e
	shared := entry.shared()
	m := key.material(shared)
	entry.Version = formatVersion
	entry.Server, entry.ConfigHash, entry.ProjectHash, entry.IdentityHash = m.Server, m.ConfigHash, m.ProjectHash, m.IdentityHash
	if entry.FetchedAt.IsZero() {
		entry.FetchedAt = time.Now()
	}
	data, err := json.Marshal(&entry)
	if err != nil {
		return fmt.Errorf("tool cache for server %q: %w", key.Server, err)
	}
	// The modification time is the entry's fetch time, so that prune can
	// age entries (and corrupt or foreign-version files) without reading
	// them; the temporary file's name is one prune knows for a leftover.
	if err := atomicfile.Write(filepath.Join(dir, key.fileName(shared)), append(data, '\n'), atomicfile.Options{
		TempPattern: cacheTempPrefix + "*" + cacheTempSuffix,
		ModTime:     entry.FetchedAt,
	}); err != nil {
		return fmt.Errorf("tool cache for server %q: %w", key.Server, err)
	}
	// The list for this identity now lives in one place: drop the other
	// scope's entry, so a list that turned private is not still served to
	// everyone from the public file.
	other := filepath.Join(dir, key.fileName(!shared))
	if err := os.Remove(other); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.warn(fmt.Sprintf("tool cache for server %q: %v", key.Server, err))
	}
	return nil
}

// prune removes the entries fetched more than MaxAge before now, and
// temporary files left by writers that died. It returns how many files it
// removed; a file it cannot remove is a warning, not an error.
func (c *Cache) prune(now time.Time) (int, error) {
	dir, err := c.dir()
	if err != nil {
		return 0, fmt.Errorf("tool cache: %w", err)
	}
	files, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("tool cache: %w", err)
	}
	removed := 0
	for _, f := range files {
		name := f.Name()
		var limit time.Duration
		switch {
		case strings.HasPrefix(name, cacheFilePrefix) && strings.HasSuffix(name, cacheFileSuffix):
			limit = c.maxAge()
		case strings.HasPrefix(name, cacheTempPrefix) && strings.HasSuffix(name, cacheTempSuffix):
			limit = cacheTempGrace
		default:
			continue
		}
		if !f.Type().IsRegular() {
			continue
		}
		info, err := f.Info()
		if err != nil || now.Sub(info.ModTime()) <= limit {
			continue // gone already, or young enough
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.warn(fmt.Sprintf("tool cache: %v", err))
			continue
		}
		removed++
	}
	return removed, nil
}

func (c *Cache) dir() (string, error) {
	if c.Dir != "" {
		return c.Dir, nil
	}
	return DefaultDir()
}

func (c *Cache) maxAge() time.Duration {
	if c.MaxAge > 0 {
		return c.MaxAge
	}
	return defaultMaxAge
}

func (c *Cache) warn(msg string) {
	if c.Warn != nil {
		c.Warn(msg)
	}
}

// check refuses a key whose hashes are not hex SHA-256 digests: a caller
// that passed a token by mistake gets an error rather than the token on
// disk.
func (k Key) check() error {
	if k.Server == "" {
		return errors.New("tool cache: the key has no server name")
	}
	if !isDigest(k.ConfigHash) {
		return fmt.Errorf("tool cache for server %q: ConfigHash is not a hex SHA-256", k.Server)
	}
	if k.Identity != "" && !isDigest(k.Identity) {
		return fmt.Errorf("tool cache for server %q: Identity is not a hex SHA-256", k.Server)
	}
	return nil
}

// material is the key as written into an entry. A shared (public) entry
// carries no identity: it is the same for everyone.
func (k Key) material(shared bool) Entry {
	m := Entry{Server: k.Server, ConfigHash: k.ConfigHash}
	if k.ProjectDir != "" {
		m.ProjectHash = digest([]byte(filepath.Clean(k.ProjectDir)))
	}
	if !shared {
		m.IdentityHash = k.Identity
	}
	return m
}

// fileName is the entry's file: the server's name, made safe, for people
// looking at the directory, then a digest of the whole key material.
func (k Key) fileName(shared bool) string {
	m := k.material(shared)
	scope := "private"
	if shared {
		scope = "public"
	}
	parts, _ := json.Marshal([]string{m.Server, m.ConfigHash, m.ProjectHash, scope, m.IdentityHash})
	server := naming.Sanitize(k.Server)
	if len(server) > 40 {
		server = server[:40]
	}
	return cacheFilePrefix + server + "-" + digest(parts)[:32] + cacheFileSuffix
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func isDigest(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}
