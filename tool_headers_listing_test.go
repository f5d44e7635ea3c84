package mcpactor_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// In the 2026-07-28 revision over HTTP a call's headers come from the tool
// list, which the connection reads before its first call. Calls that come
// at once on a new connection share that one reading: each used to send a
// tools/list of its own (7 for 16 calls against the benchmarks' server).
func TestFirstCallsShareOneToolListing(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{Stateless: true}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "modern", mcpactor.ServerConfig{URL: ts.URL + testserver.HTTPPath})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ProtocolVersion(); got != messages.Version20260728 {
		t.Fatalf("protocol %q, want %q", got, messages.Version20260728)
	}
	const calls = 32
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			if _, err := c.CallTool(waitCtx(t), "echo", map[string]any{"message": fmt.Sprint(i)}); err != nil {
				t.Errorf("echo %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	lists := 0
	for _, e := range h.Exchanges() {
		if e.RPCMethod == messages.MethodToolsList {
			lists++
		}
	}
	if lists != 1 {
		t.Errorf("%d calls at once on a new connection sent %d tools/list, want 1", calls, lists)
	}
}

// A call whose context ends while the shared listing runs ends then, with
// its own context's error, naming the server; the listing is not the
// first caller's to cancel: it goes on, and the next call uses it.
func TestToolListingOutlivesItsFirstCaller(t *testing.T) {
	h := testserver.NewHTTPHandler(testserver.Options{Stateless: true}, nil)
	release := make(chan struct{})
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"method":"tools/list"`)) {
			<-release
		}
		h.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(held)
	t.Cleanup(ts.Close)
	t.Cleanup(h.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "modern", mcpactor.ServerConfig{URL: ts.URL + testserver.HTTPPath})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(waitCtx(t), 200*time.Millisecond)
	defer cancel()
	_, err = c.CallTool(ctx, "echo", map[string]any{"message": "first"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "modern") {
		t.Fatalf("a call whose context ended during the listing: %v, want its deadline, naming the server", err)
	}
	close(release)
	if _, err := c.CallTool(waitCtx(t), "echo", map[string]any{"message": "second"}); err != nil {
		t.Fatalf("the call after: %v", err)
	}
	lists := 0
	for _, e := range h.Exchanges() {
		if e.RPCMethod == messages.MethodToolsList {
			lists++
		}
	}
	if lists != 1 {
		t.Errorf("%d tools/list sent, want 1: the listing the first call started, not cancelled with it", lists)
	}
}
