package actors

import (
	"context"
	"encoding/json"
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
		era := newSessionEra("s", "", Env{Handlers: tc.h})
		got, err := json.Marshal(era.caps)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: declared %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
