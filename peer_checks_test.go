package mcpactor_test

// Checks that serve the peer suites of every feature (peer_*_test.go):
// they take a *mcpactor.Client, whichever way it reaches its server, and
// assert what a caller sees. The checks of one feature sit next to its
// suite; a row over HTTP adds what went on the wire.

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// listedNames fails t if a list call (ListTools, ListResources,
// ListPrompts) failed, and logs and returns the names (by key) of what it
// listed, in order.
func listedNames[T any](t *testing.T, method string, items []T, err error, key func(T) string) []string {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	names := keysOf(items, key)
	t.Logf("%s: %v", method, names)
	return names
}

// checkListed fails t for each name of want that a list result lacks.
func checkListed(t *testing.T, method string, names, want []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("%s lacks %q: %v", method, w, names)
		}
	}
}

// checkIterator checks that an iterator (Tools, Resources, Prompts) yields
// the items the list call returned, by key, in the same order.
func checkIterator[T any](t *testing.T, name string, seq iter.Seq2[T, error], key func(T) string, listed []string) {
	t.Helper()
	var got []string
	for v, err := range seq {
		if err != nil {
			t.Fatalf("%s iterator: %v", name, err)
		}
		got = append(got, key(v))
	}
	if !slices.Equal(got, listed) {
		t.Errorf("%s iterator = %v, List%s = %v", name, got, name, listed)
	}
}

func toolName(tl messages.Tool) string               { return tl.Name }
func resourceURI(r messages.Resource) string         { return r.URI }
func promptName(p messages.Prompt) string            { return p.Name }
func templateURI(r messages.ResourceTemplate) string { return r.URITemplate }

// keysOf maps key over items.
func keysOf[T any](items []T, key func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, v := range items {
		out = append(out, key(v))
	}
	return out
}

// callWithProgress calls a tool with an OnProgress that records the
// call's progress, and marks the recorder returned once the call has (so
// that a late notification shows in its check).
func callWithProgress(ctx context.Context, c *mcpactor.Client, tool string, args any) (*messages.CallToolResult, *progressRecorder, error) {
	p := new(progressRecorder)
	res, err := c.CallToolWith(ctx, tool, args, mcpactor.CallOptions{OnProgress: p.onProgress})
	p.returned.Store(true)
	return res, p, err
}

// closeClient closes c, failing t if that fails, and checks the client
// after it (checkClosed).
func closeClient(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	if err := c.Close(waitCtx(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	checkClosed(t, c)
}

// checkClosed checks a client after Close returned: Done is closed, calls
// fail (a ping with ErrTransportClosed), and a second Close is fine.
func checkClosed(t *testing.T, c *mcpactor.Client) {
	t.Helper()
	ctx := waitCtx(t)
	select {
	case <-c.Done():
	default:
		t.Errorf("Done() not closed after Close returned")
	}
	_, err := c.CallTool(ctx, "echo", map[string]any{"message": "after close"})
	if err == nil {
		t.Errorf("CallTool after Close succeeded")
	}
	t.Logf("call after close: %v", err)
	if err := c.Ping(ctx); !errors.Is(err, mcpactor.ErrTransportClosed) {
		t.Errorf("Ping after Close: %v, want ErrTransportClosed", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
