package actors_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
	"github.com/mcpactor/mcpactor/messages"
)

// ask has the server send method with params to the client (the ask-client
// tool) and returns the client's answer as the server saw it: the result's
// JSON, or the error object's JSON when isError is set.
func (s *server) ask(ctx context.Context, method string, params any) (answer string, isError bool, err error) {
	args := map[string]any{"method": method}
	if params != nil {
		args["params"] = params
	}
	res, err := s.c.CallTool(ctx, "ask-client", args)
	if err != nil {
		return "", false, err
	}
	if len(res.Content) != 1 {
		return "", false, errors.New("ask-client answered no text")
	}
	return res.Content[0].Text, res.IsError, nil
}

func (s *server) mustAsk(method string, params any) (string, bool) {
	s.t.Helper()
	answer, isError, err := s.ask(harness.Context(s.t), method, params)
	if err != nil {
		s.t.Fatalf("ask %s: %v", method, err)
	}
	return answer, isError
}

// A server's requests reach the handler of their method decoded, naming
// the server, and the handler's result reaches the server as the answer.
func TestServerRequestsAnsweredByHandlers(t *testing.T) {
	var gotSampling messages.CreateMessageParams
	server := func(name string) {
		if name != "ts" {
			t.Errorf("asked for server %q", name)
		}
	}
	env := actors.Env{Options: actors.Options{Handlers: actors.Handlers{
		Roots: func(_ context.Context, name string) ([]messages.Root, error) {
			server(name)
			return []messages.Root{{URI: "file:///work", Name: "work"}}, nil
		},
		Sampling: func(_ context.Context, name string, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			server(name)
			gotSampling = *p
			return &messages.CreateMessageResult{Role: "assistant", Content: messages.TextContent("sampled"), Model: "test-model"}, nil
		},
		Elicitation: func(_ context.Context, name string, _ *messages.ElicitParams) (*messages.ElicitResult, error) {
			server(name)
			return &messages.ElicitResult{Action: messages.ElicitActionDecline}, nil
		},
	}}}
	s := connect(t, testserver.Options{}, env, nil)

	answer, isError := s.mustAsk(messages.MethodRootsList, nil)
	var roots messages.ListRootsResult
	if isError || json.Unmarshal([]byte(answer), &roots) != nil || len(roots.Roots) != 1 || roots.Roots[0].URI != "file:///work" {
		t.Errorf("roots/list answered %s (error %v)", answer, isError)
	}

	answer, isError = s.mustAsk(messages.MethodSamplingCreateMessage, map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}},
		"maxTokens": 10,
	})
	var sampled messages.CreateMessageResult
	if isError || json.Unmarshal([]byte(answer), &sampled) != nil || sampled.Model != "test-model" || sampled.Content.Text != "sampled" {
		t.Errorf("sampling answered %s (error %v)", answer, isError)
	}
	if gotSampling.MaxTokens != 10 || len(gotSampling.Messages) != 1 {
		t.Errorf("the handler got %+v", gotSampling)
	}

	if answer, isError = s.mustAsk(messages.MethodElicitationCreate, map[string]any{"message": "m"}); isError || answer != `{"action":"decline"}` {
		t.Errorf("elicitation answered %s (error %v)", answer, isError)
	}

	// ping needs no handler (basic/utilities/ping).
	if answer, isError := s.mustAsk(messages.MethodPing, nil); isError || answer != "{}" {
		t.Errorf("ping answered %s", answer)
	}
	if st := s.c.Stats(); st.InboundRequests != 4 {
		t.Errorf("stats %+v", st)
	}
}

func TestServerRequestsWithoutHandlers(t *testing.T) {
	// Nothing registered: each is answered -32601 at once, so the server
	// never stalls; ping is still answered.
	s := connect(t, testserver.Options{}, actors.Env{}, nil)
	for _, method := range []string{messages.MethodRootsList, messages.MethodSamplingCreateMessage, messages.MethodElicitationCreate, "no/such/method"} {
		answer, isError := s.mustAsk(method, nil)
		var e messages.Error
		if !isError || json.Unmarshal([]byte(answer), &e) != nil || e.Code != messages.CodeMethodNotFound {
			t.Errorf("%s answered %s (error %v)", method, answer, isError)
		}
	}
	if answer, isError := s.mustAsk(messages.MethodPing, nil); isError || answer != "{}" {
		t.Errorf("ping answered %s", answer)
	}
}

// A handler's failure is answered -32603 naming the method, and nothing
// of what went wrong (its error's or panic's text may hold a path, a query
// or a credential the server must not read): that stays in the log. An
// error the handler chose (*messages.Error) is sent as it is.
func TestHandlerErrors(t *testing.T) {
	var logs harness.Log
	env := actors.Env{Options: actors.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Handlers: actors.Handlers{
		Roots: func(context.Context, string) ([]messages.Root, error) {
			return nil, errors.New("roots unavailable: /home/alice/secret-project")
		},
		Elicitation: func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return nil, &messages.Error{Code: messages.CodeURLElicitationRequired, Message: "open this URL", Data: json.RawMessage(`{"url":"https://x"}`)}
		},
		Sampling: func(_ context.Context, _ string, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			if p.MaxTokens == 2 {
				return nil, nil // no result and no error
			}
			panic("the sampling handler blew up")
		},
	}}}
	s := connect(t, testserver.Options{}, env, nil)
	for _, tc := range []struct {
		method string
		params any
		code   int64
		text   string
		hidden string // what the server must not read
	}{
		{messages.MethodRootsList, nil, messages.CodeInternalError, "handler for roots/list failed", "roots unavailable"},
		{messages.MethodElicitationCreate, map[string]any{"message": "m"}, messages.CodeURLElicitationRequired, "open this URL", ""},
		{messages.MethodSamplingCreateMessage, map[string]any{"messages": []any{}, "maxTokens": 1}, messages.CodeInternalError, "handler for sampling/createMessage failed", "blew up"},
		{messages.MethodSamplingCreateMessage, map[string]any{"maxTokens": 2}, messages.CodeInternalError, "handler returned no result", ""},
	} {
		answer, isError := s.mustAsk(tc.method, tc.params)
		var e messages.Error
		if !isError || json.Unmarshal([]byte(answer), &e) != nil || e.Code != tc.code || !strings.Contains(e.Message, tc.text) {
			t.Errorf("%s answered %s (error %v), want code %d with %q", tc.method, answer, isError, tc.code, tc.text)
		}
		if tc.hidden != "" && strings.Contains(answer, tc.hidden) {
			t.Errorf("%s answered %s: the handler's failure reached the server", tc.method, answer)
		}
	}
	// The client survives a panicking handler.
	s.mustEcho("still here")
	// The why is kept locally.
	for _, want := range []string{"roots unavailable: /home/alice/secret-project", "the sampling handler blew up"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logs.String())
		}
	}
}

func TestHandlerContextEndsOnClose(t *testing.T) {
	// A handler still running when the client closes sees its context
	// end, and Close does not wait for it forever.
	var ended atomic.Bool
	started := make(chan struct{})
	env := actors.Env{Options: actors.Options{Handlers: actors.Handlers{
		Roots: func(ctx context.Context, _ string) ([]messages.Root, error) {
			close(started)
			<-ctx.Done()
			ended.Store(true)
			return nil, ctx.Err()
		},
	}}}
	s := connect(t, testserver.Options{}, env, nil)
	go s.ask(context.Background(), messages.MethodRootsList, nil)
	select {
	case <-started:
	case <-time.After(harness.Bound):
		t.Fatal("the handler never ran")
	}
	start := time.Now()
	s.close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
	if !ended.Load() {
		t.Error("the handler's context did not end")
	}
}

func TestTooManyConcurrentServerRequests(t *testing.T) {
	// Beyond MaxConcurrentHandlers, requests are refused, not queued.
	release := make(chan struct{})
	var running atomic.Int32
	env := actors.Env{Options: actors.Options{MaxConcurrentHandlers: 2, Handlers: actors.Handlers{
		Roots: func(ctx context.Context, _ string) ([]messages.Root, error) {
			running.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		},
	}}}
	s := connect(t, testserver.Options{}, env, nil)
	ctx := harness.Context(t)
	results := make(chan string, 2)
	for range 2 {
		go func() {
			answer, _, _ := s.ask(ctx, messages.MethodRootsList, nil)
			results <- answer
		}()
	}
	harness.WaitFor(t, "two handlers running", func() bool { return running.Load() == 2 })
	answer, isError := s.mustAsk(messages.MethodRootsList, nil)
	if !isError || !strings.Contains(answer, "busy") {
		t.Errorf("third request answered %s (error %v)", answer, isError)
	}
	close(release)
	for range 2 {
		if answer := <-results; answer != `{"roots":[]}` {
			t.Errorf("answered %s", answer)
		}
	}
}
