//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package oauth

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestFileStoreNoFollow: a symbolic link planted under the predictable
// name of a lock file, or of a token file, is not followed: the lock is
// not created where it points, nothing is read from there, and the
// operation fails with ErrStoreNotPrivate. Lock files are 0600.
func TestFileStoreNoFollow(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := &FileStore{Dir: dir}
	key := Key{Issuer: "https://as.example", ClientID: "c", Identity: "alice", Resource: "https://mcp.example/mcp"}
	p, err := s.tokenPath(key)
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.Symlink(victim, p+".lock"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompareAndSwap(ctx, key, nil, &Token{AccessToken: "at"}); !errors.Is(err, ErrStoreNotPrivate) {
		t.Errorf("CompareAndSwap under a planted lock link: %v, want ErrStoreNotPrivate", err)
	}
	if _, err := os.Lstat(victim); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link's target was created (%v)", err)
	}
	if _, err := s.Lock(ctx, key); err != nil {
		t.Fatalf("the refresh lock: %v", err)
	}
	if fi, err := os.Lstat(p + ".refresh.lock"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("refresh lock file: %v %v, want mode 0600", fi.Mode(), err)
	}

	secret := filepath.Join(t.TempDir(), "elsewhere.json")
	os.WriteFile(secret, []byte(`{"key":{},"token":{"access_token":"planted"}}`), 0o600)
	if err := os.Symlink(secret, p); err != nil {
		t.Fatal(err)
	}
	if tok, err := s.Load(ctx, key); !errors.Is(err, ErrStoreNotPrivate) || tok != nil {
		t.Errorf("Load through a planted token link: %v %v, want ErrStoreNotPrivate", tok, err)
	}
}

// TestFileStoreSharedDir: a store directory other users can write to
// (where they could plant links) is refused.
func TestFileStoreSharedDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	s := &FileStore{Dir: dir}
	key := Key{Issuer: "https://as.example", ClientID: "c"}
	if _, err := s.CompareAndSwap(context.Background(), key, nil, &Token{AccessToken: "at"}); !errors.Is(err, ErrStoreNotPrivate) {
		t.Errorf("CompareAndSwap in a world-writable directory: %v, want ErrStoreNotPrivate", err)
	}
	if _, err := s.Load(context.Background(), key); !errors.Is(err, ErrStoreNotPrivate) {
		t.Errorf("Load in a world-writable directory: %v, want ErrStoreNotPrivate", err)
	}
}
