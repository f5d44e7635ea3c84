package actors

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

// The capabilities a client declares in initialize are exactly those of
// the handlers registered (lifecycle, "Capability Negotiation"): a server
// must never be told we answer requests we would refuse.
func TestCapabilitiesFromHandlers(t *testing.T) {
	roots := func(context.Context, string) ([]messages.Root, error) { return nil, nil }
	sampling := func(context.Context, string, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
		return nil, nil
	}
	elicit := func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) { return nil, nil }
	notify := func(string, Notification) {}
	for _, tc := range []struct {
		name string
		h    Handlers
		want string
	}{
		{"none", Handlers{}, `{}`},
		{"notifications only", Handlers{Notification: notify}, `{}`},
		{"roots", Handlers{Roots: roots}, `{"roots":{"listChanged":true}}`},
		{"sampling", Handlers{Sampling: sampling}, `{"sampling":{}}`},
		{"elicitation", Handlers{Elicitation: elicit}, `{"elicitation":{"form":{},"url":{}}}`},
		{"all", Handlers{Roots: roots, Sampling: sampling, Elicitation: elicit, Notification: notify},
			`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}`},
	} {
		got, err := json.Marshal(tc.h.capabilities())
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: declared %s, %v; want %s", tc.name, got, err, tc.want)
		}
		// What is declared is what is answered, and nothing else.
		for method, key := range map[string]string{messages.MethodRootsList: `"roots"`,
			messages.MethodSamplingCreateMessage: `"sampling"`, messages.MethodElicitationCreate: `"elicitation"`} {
			if tc.h.answers(method) != strings.Contains(tc.want, key) {
				t.Errorf("%s: answers %s = %v", tc.name, method, tc.h.answers(method))
			}
		}
	}
}

// A request reaches the user's typed handler decoded, and its result goes
// back encoded; what the handler leaves out of an accepted form
// elicitation is filled from the schema's defaults (client/elicitation).
func TestHandlersDecodeAndEncode(t *testing.T) {
	var gotSampling messages.CreateMessageParams
	var gotServer string
	h := Handlers{
		Roots: func(_ context.Context, server string) ([]messages.Root, error) {
			gotServer = server
			return nil, nil // no roots: an empty list, not null
		},
		Sampling: func(_ context.Context, _ string, p *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			gotSampling = *p
			return &messages.CreateMessageResult{Role: "assistant", Content: messages.TextContent("sampled"), Model: "test-model"}, nil
		},
		Elicitation: func(_ context.Context, _ string, p *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	}
	answer := h.answer
	ctx := context.Background()

	if got, err := answer(ctx, "files", messages.MethodRootsList, nil); err != nil || string(got) != `{"roots":[]}` || gotServer != "files" {
		t.Errorf("roots/list = %s, %v (server %q)", got, err, gotServer)
	}

	got, err := answer(ctx, "s", messages.MethodSamplingCreateMessage,
		json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}`))
	var sampled messages.CreateMessageResult
	if err != nil || json.Unmarshal(got, &sampled) != nil || sampled.Model != "test-model" || sampled.Content.Text != "sampled" {
		t.Errorf("sampling = %s, %v", got, err)
	}
	if gotSampling.MaxTokens != 10 || len(gotSampling.Messages) != 1 {
		t.Errorf("the handler got %+v", gotSampling)
	}

	schema := `"requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string","default":"en"}}}`
	got, err = answer(ctx, "s", messages.MethodElicitationCreate, json.RawMessage(`{"message":"Who are you?",`+schema+`}`))
	var elicited messages.ElicitResult
	if err != nil || json.Unmarshal(got, &elicited) != nil || elicited.Content["name"] != "Ada" || elicited.Content["lang"] != "en" {
		t.Errorf("elicitation = %s, %v; the schema's defaults must be applied", got, err)
	}

	_, err = answer(ctx, "s", messages.MethodSamplingCreateMessage, json.RawMessage(`{"messages":"not a list"}`))
	var rpcErr *messages.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != messages.CodeInvalidParams || !strings.Contains(rpcErr.Message, "Invalid params") {
		t.Errorf("bad params: %v", err)
	}
}

// A handler's error comes out of answer as it is (handlerFor sends a
// *messages.Error as is and any other as -32603), and a nil result with
// no error is left for handlerFor to refuse.
func TestHandlerErrorsComeOutAsTheyAre(t *testing.T) {
	urlRequired := &messages.Error{Code: messages.CodeURLElicitationRequired, Message: "open this URL"}
	h := Handlers{
		Elicitation: func(context.Context, string, *messages.ElicitParams) (*messages.ElicitResult, error) {
			return nil, urlRequired
		},
		Sampling: func(context.Context, string, *messages.CreateMessageParams) (*messages.CreateMessageResult, error) {
			return nil, nil
		},
	}
	answer := h.answer
	if _, err := answer(context.Background(), "s", messages.MethodElicitationCreate, json.RawMessage(`{"message":"m"}`)); err != urlRequired {
		t.Errorf("elicitation error = %v", err)
	}
	if got, err := answer(context.Background(), "s", messages.MethodSamplingCreateMessage, json.RawMessage(`{"messages":[],"maxTokens":1}`)); got != nil || err != nil {
		t.Errorf("nil result = %s, %v", got, err)
	}
}
