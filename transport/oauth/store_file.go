package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpactor/mcpactor/internal/atomicfile"
)

// FileStore keeps tokens and client registrations in files under Dir: one
// file per key, readable by the user alone (0600, in a 0700 directory),
// each written whole to a temporary file and renamed over the old one, so
// that a reader never sees half a token. Several processes may share a
// Dir: CompareAndSwap holds a lock on the key's file (flock on Unix,
// LockFileEx on Windows) while it compares and writes, and Lock holds
// another while a refresh runs, so that one process refreshes while the
// others wait and then read its result.
//
// The zero value keeps its files under DefaultDir.
type FileStore struct {
	// Dir is the directory of the files; "" means DefaultDir().
	Dir string
}

// DefaultDir is where a FileStore without Dir keeps its files: mcpactor/oauth
// under the user's configuration directory (os.UserConfigDir).
func DefaultDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("oauth: no directory for tokens: %w", err)
	}
	return filepath.Join(d, "mcpactor", "oauth"), nil
}

// lockPoll is how often a lock held by another process is tried again.
const lockPoll = 20 * time.Millisecond

// maxStoreFile bounds a file of the store read back.
const maxStoreFile = 1 << 20

// ErrStoreNotPrivate fails a FileStore operation on a file or directory
// that is not the user's own and private: a symbolic link or a file of
// another kind under one of the store's (predictable) names, a file or
// directory of another user's, a directory others can write to.
var ErrStoreNotPrivate = errors.New("oauth: token store: not the user's own private file")

func notPrivate(p, problem string) error {
	return fmt.Errorf("%w: %s: %s", ErrStoreNotPrivate, p, problem)
}

// storeErr prefixes err, unless it says already where it comes from.
func storeErr(err error) error {
	if errors.Is(err, ErrStoreNotPrivate) {
		return err
	}
	return fmt.Errorf("oauth: token store: %w", err)
}

type tokenFile struct {
	Key   Key   `json:"key"`
	Token Token `json:"token"`
}

type clientFile struct {
	Issuer  string     `json:"issuer"`
	Profile string     `json:"profile"`
	Client  ClientInfo `json:"client"`
}

// dir returns the store's directory, checked private when it exists
// (writeJSON and lockFile make it, 0700, when it does not).
func (s *FileStore) dir() (string, error) {
	d := s.Dir
	if d == "" {
		var err error
		if d, err = DefaultDir(); err != nil {
			return "", err
		}
	}
	if err := checkPrivateDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return d, nil
}

// path is the file of a key: a hash of it, so that issuers and identities
// of any spelling make safe file names.
func (s *FileStore) path(kind string, parts ...string) (string, error) {
	dir, err := s.dir()
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return filepath.Join(dir, kind+"-"+hex.EncodeToString(sum[:16])+".json"), nil
}

func (s *FileStore) tokenPath(key Key) (string, error) {
	return s.path("token", key.Issuer, key.ClientID, key.Identity, key.Resource)
}

// Load implements Store.
func (s *FileStore) Load(_ context.Context, key Key) (*Token, error) {
	p, err := s.tokenPath(key)
	if err != nil {
		return nil, err
	}
	return readToken(p, key)
}

func readToken(p string, key Key) (*Token, error) {
	b, err := readPrivate(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr(err)
	}
	var f tokenFile
	if json.Unmarshal(b, &f) != nil || f.Key != key {
		// A file cut short or copied by hand holds no usable token: it is
		// as good as absent, and the next save replaces it (an error here
		// would block the identity until someone deleted the file).
		return nil, nil
	}
	return &f.Token, nil
}

// CompareAndSwap implements Store.
func (s *FileStore) CompareAndSwap(ctx context.Context, key Key, old, new *Token) (bool, error) {
	p, err := s.tokenPath(key)
	if err != nil {
		return false, err
	}
	unlock, err := lockFile(ctx, p+".lock")
	if err != nil {
		return false, err
	}
	defer unlock()
	cur, err := readToken(p, key)
	if err != nil {
		return false, err
	}
	if !same(cur, old) {
		return false, nil
	}
	if new == nil {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("oauth: token store: %w", err)
		}
		return true, nil
	}
	if err := writeJSON(p, tokenFile{Key: key, Token: *new}); err != nil {
		return false, err
	}
	return true, nil
}

// Lock implements Locker: it holds key's refresh lock, a file of its own
// (CompareAndSwap, which runs within a refresh, takes the other).
func (s *FileStore) Lock(ctx context.Context, key Key) (func(), error) {
	p, err := s.tokenPath(key)
	if err != nil {
		return nil, err
	}
	return lockFile(ctx, p+".refresh.lock")
}

// LoadClient implements ClientStore.
func (s *FileStore) LoadClient(_ context.Context, issuer, profile string) (*ClientInfo, error) {
	p, err := s.path("client", issuer, profile)
	if err != nil {
		return nil, err
	}
	b, err := readPrivate(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr(err)
	}
	var f clientFile
	if json.Unmarshal(b, &f) != nil || f.Issuer != issuer || f.Profile != profile {
		return nil, nil
	}
	return &f.Client, nil
}

// StoreClient implements ClientStore.
func (s *FileStore) StoreClient(_ context.Context, issuer, profile string, c *ClientInfo) error {
	p, err := s.path("client", issuer, profile)
	if err != nil {
		return err
	}
	return writeJSON(p, clientFile{Issuer: issuer, Profile: profile, Client: *c})
}

// writeJSON replaces p with v's JSON atomically (atomicfile.Write: a
// temporary file in the same directory, 0600, synced, then renamed over p),
// creating the directory 0700 if need be.
func writeJSON(p string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := privateDir(filepath.Dir(p)); err != nil {
		return err
	}
	if err := atomicfile.Write(p, b, atomicfile.Options{}); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}

// privateDir makes dir (0700) if need be, and checks it is private.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return checkPrivateDir(dir)
}

// readPrivate reads the store's file p (openPrivate), at most
// maxStoreFile bytes of it.
func readPrivate(p string) ([]byte, error) {
	f, err := openPrivate(p, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStoreFile+1))
	if err == nil && len(b) > maxStoreFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, maxStoreFile)
	}
	return b, err
}

// lockFile takes an exclusive lock on the file p (created if need be),
// trying again every lockPoll until ctx ends.
func lockFile(ctx context.Context, p string) (func(), error) {
	if err := privateDir(filepath.Dir(p)); err != nil {
		return nil, err
	}
	f, err := openPrivate(p, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, storeErr(err)
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("oauth: token store: lock %s: %w", p, err)
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
