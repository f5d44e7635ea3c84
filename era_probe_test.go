package mcpactor_test

import (
	"testing"

	"go.opentelemetry.io/otel/codes"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// A session-era server answers the stateless era's probe with an error: the
// runtime falls back to initialize on that answer, not on the probe's
// timeout, and remembers the server's era, so that a second connection
// skips the probe. Asserted by the trace, not by time.
func TestProbeFallsBackOnTheAnswerAndIsRemembered(t *testing.T) {
	tr := newTraced(t, mcpactor.Options{})
	cfg, _ := everythingConfig(t)
	cfg.ProbeTimeout = waitLimit // a fallback by timeout would take this long
	ctx := waitCtx(t)
	c, err := tr.rt.Connect(ctx, "everything", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if v := c.ProtocolVersion(); v != messages.Version20251125 {
		t.Errorf("negotiated %q", v)
	}
	// The server's refusal is the answer the probe asked for: recorded
	// (its status code and the verdict), and not an error.
	probe := tr.span(t, "server/discover")
	if probe.Status().Code == codes.Error || attrs(probe)["error.type"] != "" ||
		attrs(probe)["mcpactor.probe.verdict"] != "session era" || attrs(probe)["rpc.response.status_code"] == "" {
		t.Errorf("the probe span ended %v with %v: want the session era's answer recorded, not an error", probe.Status(), probe.Attributes())
	}
	if d := probe.EndTime().Sub(probe.StartTime()); d >= waitLimit/2 {
		t.Errorf("the probe waited %v: the fallback came from the timeout, not the answer", d)
	}
	init := tr.span(t, "initialize")
	if init.StartTime().Before(probe.EndTime()) {
		t.Error("initialize went out before the probe's answer")
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// The runtime remembers: the second connection goes straight to
	// initialize.
	c2, err := tr.rt.Connect(ctx, "everything-again", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	probes := 0
	for _, s := range tr.spans.Ended() {
		if s.Name() == "server/discover" {
			probes++
		}
	}
	if probes != 1 {
		t.Errorf("%d probes for two connections to the same server", probes)
	}
}
