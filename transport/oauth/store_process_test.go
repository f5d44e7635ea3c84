package oauth

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

const (
	childEnv   = "MCPACTOR_OAUTH_STORE_CHILD"
	childTimes = 40
	children   = 3
)

var processKey = Key{Issuer: "https://as", ClientID: "c", Identity: "shared", Resource: "https://rs/mcp"}

// childIncrements is a child process of TestFileStoreProcesses: it
// replaces the token of processKey childTimes times, each time with the
// next number, as rotating refreshes do: read, then compare-and-swap,
// again until the swap wins.
func childIncrements(dir string) int {
	s := &FileStore{Dir: dir}
	ctx := context.Background()
	for range childTimes {
		for {
			cur, err := s.Load(ctx, processKey)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			n := 0
			if cur != nil {
				n, _ = strconv.Atoi(cur.AccessToken)
			}
			ok, err := s.CompareAndSwap(ctx, processKey, cur, &Token{AccessToken: strconv.Itoa(n + 1), RefreshToken: "r" + strconv.Itoa(n+1)})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			if ok {
				break
			}
		}
	}
	return 0
}

// TestFileStoreProcesses: processes sharing a FileStore lose no update:
// every compare-and-swap that wins replaces what its process read, so
// the count comes out whole.
func TestFileStoreProcesses(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for range children {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	tok, err := (&FileStore{Dir: dir}).Load(context.Background(), processKey)
	if err != nil || tok == nil {
		t.Fatalf("Load: %v %v", tok, err)
	}
	if want := strconv.Itoa(children * childTimes); tok.AccessToken != want {
		t.Errorf("count %s, want %s: an update was lost", tok.AccessToken, want)
	}
}
