package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// progressParams are tools/call params for the test server's progress
// tool, with tok as the progress token, and the token's key.
func progressParams(t *testing.T, tok string, steps, intervalMs int) (json.RawMessage, string) {
	t.Helper()
	params, err := json.Marshal(map[string]any{
		"name": "progress", "arguments": map[string]any{"steps": steps, "intervalMs": intervalMs},
		"_meta": map[string]any{"progressToken": tok},
	})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := messages.ProgressTokenKey(tok)
	return params, key
}

// Start, Await and Finish are the one way a request goes, with progress
// or without: a request that takes progress is started like any other,
// Await hands its notifications over in order, and Finish gives back its
// slot.
func TestStartedRequestTakesProgress(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	ctx := harness.Context(t)
	params, key := progressParams(t, "started", 3, 0)
	var got []string
	opts := RequestOptions{ProgressToken: key, OnProgress: func(raw json.RawMessage) {
		var p messages.ProgressParams
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Errorf("progress %s: %v", raw, err)
		}
		got = append(got, p.Message)
	}}
	p, err := s.conn.Start(ctx, "tools/call", params, &opts)
	if err != nil {
		t.Fatal(err)
	}
	out, woke := s.conn.Await(ctx, p, &opts)
	raw, err := s.conn.Finish(ctx, p, &out, woke)
	if err != nil || woke != Answered {
		t.Fatalf("woke %d: %v", woke, err)
	}
	if text := textOf(t, raw); text != "done" {
		t.Errorf("result %q, want done", text)
	}
	if fmt.Sprint(got) != "[step 1 step 2 step 3]" {
		t.Errorf("progress %q, want the three steps in order", got)
	}
	if n := s.conn.InFlight(); n != 0 {
		t.Errorf("%d requests in flight after Finish, want 0", n)
	}
}

// A started request whose timeout restarts with progress keeps its own
// timer in Await: progress moves it, the absolute cap ends it, and the
// request ends as a timeout that gave back its slot.
func TestStartedRequestKeepsItsOwnTimer(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	ctx := harness.Context(t)
	params, key := progressParams(t, "timed", 100000, 20)
	steps := 0
	opts := RequestOptions{ProgressToken: key, OnProgress: func(json.RawMessage) { steps++ },
		// Generous: on a loaded machine the first progress may come
		// late, and a timeout before it would test nothing.
		Timeout: time.Second, ResetTimeoutOnProgress: true, MaxTotalTimeout: 2500 * time.Millisecond}
	p, err := s.conn.Start(ctx, "tools/call", params, &opts)
	if err != nil {
		t.Fatal(err)
	}
	out, woke := s.conn.Await(ctx, p, &opts)
	_, err = s.conn.Finish(ctx, p, &out, woke)
	var te *callerr.Error
	if !(errors.As(err, &te) && callerr.Timeout(te) == te) || woke != Answered {
		t.Fatalf("woke %d: %v, want a timeout delivered as the call's outcome", woke, err)
	}
	if steps == 0 {
		t.Error("no progress was delivered before the timeout")
	}
	if n := s.conn.InFlight(); n != 0 {
		t.Errorf("%d requests in flight after Finish, want 0", n)
	}
	s.mustEcho("after a timed request")
}

// A progress callback that panics ends the wait with its panic, but the
// request's in-flight slot comes back: the connection does not fill up
// with requests nobody will finish.
func TestPanickingProgressCallbackGivesBackItsSlot(t *testing.T) {
	s := startServer(t, testserver.Options{}, nil, nil, nil)
	ctx := harness.Context(t)
	params, key := progressParams(t, "panics", 100000, 20)
	opts := RequestOptions{ProgressToken: key, OnProgress: func(json.RawMessage) { panic("callback bug") }}
	recovered := func() (p any) {
		defer func() { p = recover() }()
		s.conn.Call(ctx, "tools/call", params, opts)
		return nil
	}()
	if recovered != "callback bug" {
		t.Fatalf("recovered %v, want the callback's panic", recovered)
	}
	if n := s.conn.InFlight(); n != 0 {
		t.Errorf("%d requests in flight after the panic, want 0", n)
	}
	s.mustEcho("after a panicking callback")
}
