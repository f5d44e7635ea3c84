package mcpactor_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/sourcegraph/conc"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// mrtrServer is a 2026-07-28 server over a stream whose tools ask for
// input first (multi round-trip requests,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/mrtr):
// "stateful" with a requestState, "stateless" without one, "plain" never,
// and "untyped" answers with no resultType at all. It records each
// tools/call's inputResponses and requestState, by tool.
type mrtrServer struct {
	mu    sync.Mutex
	calls map[string][]mrtrCall
}

type mrtrCall struct {
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   *string         `json:"requestState"`
}

func (s *mrtrServer) dial(ctx context.Context) (io.ReadWriteCloser, error) {
	return pipeDial(s.serve)(ctx)
}

// mrtrParams are the params of a request that mrtrServer reads.
type mrtrParams struct {
	Name string `json:"name"`
	mrtrCall
}

func (s *mrtrServer) serve(conn net.Conn) {
	serveLines(conn, func(req lineRequest[mrtrParams]) (map[string]any, map[string]any) {
		result := map[string]any{"resultType": "complete"}
		switch req.Method {
		case messages.MethodServerDiscover:
			result["supportedVersions"] = []string{messages.Version20260728}
			result["capabilities"] = map[string]any{"tools": map[string]any{}}
		case messages.MethodToolsCall:
			s.mu.Lock()
			s.calls[req.Params.Name] = append(s.calls[req.Params.Name], req.Params.mrtrCall)
			s.mu.Unlock()
			ask := map[string]any{"confirm": map[string]any{"method": "elicitation/create",
				"params": map[string]any{"message": "sure?", "requestedSchema": map[string]any{"type": "object"}}}}
			first := len(req.Params.InputResponses) == 0
			switch {
			case req.Params.Name == "stateful" && first:
				result = map[string]any{"resultType": "input_required", "inputRequests": ask, "requestState": `{"n":"opaque \"state\""}`}
			case req.Params.Name == "stateless" && first:
				result = map[string]any{"resultType": "input_required", "inputRequests": ask}
			case req.Params.Name == "untyped":
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}
			default:
				result["content"] = []any{map[string]any{"type": "text", "text": "done"}}
			}
		}
		return result, nil
	})
}

func (s *mrtrServer) callsOf(tool string) []mrtrCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mrtrCall(nil), s.calls[tool]...)
}

// TestMultiRoundTripState checks what a client owes a server's multi
// round-trip requests (SEP-2322): the requestState is sent back exactly as
// it came; none is sent when the server gave none; one request's state and
// input responses never reach another made at the same time; and a result
// without resultType is complete (no second round).
func TestMultiRoundTripState(t *testing.T) {
	t.Parallel()
	srv := &mrtrServer{calls: map[string][]mrtrCall{}}
	rt := startRuntime(t, mcpactor.Options{Handlers: mcpactor.Handlers{
		Elicitation: func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{}}, nil
		},
	}})
	c, err := rt.Connect(waitCtx(t), "mrtr", mcpactor.ServerConfig{Dial: srv.dial})
	if err != nil {
		t.Fatal(err)
	}
	var wg conc.WaitGroup
	for range 4 {
		wg.Go(func() { callOK(t, c, "stateful", nil) })
		wg.Go(func() { callOK(t, c, "plain", nil) })
	}
	wg.Wait()
	callOK(t, c, "stateless", nil)
	callOK(t, c, "untyped", nil)

	stateful := srv.callsOf("stateful")
	if len(stateful) != 8 {
		t.Fatalf("stateful: %d calls, want 4 of two rounds", len(stateful))
	}
	retries := 0
	for _, call := range stateful {
		if len(call.InputResponses) == 0 {
			if call.RequestState != nil {
				t.Errorf("a first round carried requestState %q", *call.RequestState)
			}
			continue
		}
		retries++
		if call.RequestState == nil || *call.RequestState != `{"n":"opaque \"state\""}` {
			t.Errorf("a retry carried requestState %v, want the server's exactly", call.RequestState)
		}
	}
	if retries != 4 {
		t.Errorf("%d retries, want 4", retries)
	}
	for _, call := range srv.callsOf("plain") {
		if len(call.InputResponses) != 0 || call.RequestState != nil {
			t.Errorf("a plain call carried another request's input (%s) or state (%v)", call.InputResponses, call.RequestState)
		}
	}
	stateless := srv.callsOf("stateless")
	if len(stateless) != 2 || stateless[1].RequestState != nil || len(stateless[1].InputResponses) == 0 {
		t.Errorf("stateless: %+v, want a retry with input responses and no requestState", stateless)
	}
	if untyped := srv.callsOf("untyped"); len(untyped) != 1 {
		t.Errorf("untyped: %d calls, want 1: a result without resultType is complete", len(untyped))
	}
}
