package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/redact"
	"github.com/mcpactor/mcpactor/messages"
)

// A span is shown wherever traces go: what it records of text that may
// quote a server's configured credential (a JSON-RPC error's message, a
// progress message, a reason, recorded arguments and results) is masked
// with the peer's Masker.
func TestSpanMasksConfiguredSecrets(t *testing.T) {
	const secret = "Sp4-PLANTED-span-secret-1"
	peer := stdioPeer
	peer.Mask = redact.NewMasker(redact.Config{Name: "s", Env: map[string]string{"TOKEN": secret}})
	r := newRig(t, Options{RecordToolArguments: true})

	args := json.RawMessage(`{"q":"find ` + secret + `"}`)
	_, op := r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodToolsCall, Target: "w", Arguments: args})
	op.Progress(1, nil, "working with "+secret)
	op.Retry(1, "because "+secret)
	op.Resume("resumed " + secret)
	op.Reinitialize("again " + secret)
	op.End(&callerr.RPCError{Code: -32000, Message: "bad token " + secret}, false)

	_, op = r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodToolsCall, Target: "w", Arguments: args})
	op.SetToolResult(json.RawMessage(`{"content":[{"type":"text","text":"` + secret + `"}]}`))
	op.End(nil, false)

	_, op = r.tel.Start(context.Background(), &Request{Peer: peer, Method: messages.MethodResourcesRead, ResourceURI: "file:///x/" + secret})
	op.End(fmt.Errorf("wrapped: %s", secret), false)

	spans := r.sr.Ended()
	if len(spans) != 3 {
		t.Fatalf("ended spans = %d, want 3", len(spans))
	}
	for _, s := range spans {
		line := fmt.Sprintf("%s %v %s %v", s.Name(), s.Attributes(), s.Status().Description, s.Events())
		if strings.Contains(line, secret) {
			t.Errorf("span leaks the secret: %s", line)
		}
		if !strings.Contains(line, redact.Mask) {
			t.Errorf("span shows no mask (nothing recorded?): %s", line)
		}
	}
}
