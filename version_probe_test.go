package mcpactor_test

// The protocol version probe: server/discover, the fallback to
// initialize, and retries of a refused version.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
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

// refusingServer is a stateless-era server over a stream that refuses
// the first refusals server/discover probes with -32022 (unsupported
// protocol version), listing supported, and then answers them. It records
// the version each probe offered.
type refusingServer struct {
	supported []string
	refusals  int

	mu      sync.Mutex
	offered []string
}

func (s *refusingServer) dial(ctx context.Context) (io.ReadWriteCloser, error) {
	return pipeDial(s.serve)(ctx)
}

// probeParams are the params of a request that refusingServer reads.
type probeParams struct {
	Meta map[string]json.RawMessage `json:"_meta"`
}

func (s *refusingServer) serve(conn net.Conn) {
	serveLines(conn, func(req lineRequest[probeParams]) (map[string]any, map[string]any) {
		var offered string
		_ = json.Unmarshal(req.Params.Meta[messages.MetaKeyProtocolVersion], &offered)
		switch req.Method {
		case messages.MethodServerDiscover:
			s.mu.Lock()
			s.offered = append(s.offered, offered)
			refuse := len(s.offered) <= s.refusals
			s.mu.Unlock()
			if refuse {
				return nil, map[string]any{
					"code": -32022, "message": "Unsupported protocol version",
					"data": map[string]any{"supported": s.supported, "requested": offered}}
			}
			return map[string]any{
				"resultType": "complete", "supportedVersions": s.supported, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "refusing", "version": "1"}}, nil
		case messages.MethodToolsList:
			return map[string]any{"resultType": "complete", "tools": []any{}}, nil
		default:
			return nil, map[string]any{"code": -32601, "message": "Method not found"}
		}
	})
}

func (s *refusingServer) probes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.offered...)
}

// TestProbeRetriesARefusedVersion checks SEP-2575's retry: a server that
// refuses the version the client offered, listing one the client speaks,
// is probed once more with that version, and the connection works.
func TestProbeRetriesARefusedVersion(t *testing.T) {
	t.Parallel()
	srv := &refusingServer{supported: []string{messages.Version20260728}, refusals: 1}
	rt := startRuntime(t, mcpactor.Options{})
	c, err := rt.Connect(waitCtx(t), "refusing", mcpactor.ServerConfig{Dial: srv.dial})
	if err != nil {
		t.Fatalf("Connect: %v (probes %q)", err, srv.probes())
	}
	if v := c.ProtocolVersion(); v != messages.Version20260728 {
		t.Errorf("negotiated %q", v)
	}
	if got := srv.probes(); len(got) != 2 || got[1] != messages.Version20260728 {
		t.Errorf("probes offered %q: want a second probe with the version the server listed", got)
	}
	if _, err := c.ListTools(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
}

// TestProbeGivesUpOnARepeatedRefusal checks that a server that keeps
// refusing is probed twice, not in a loop, and that the error says what
// was offered and what the server listed, without contradicting itself.
func TestProbeGivesUpOnARepeatedRefusal(t *testing.T) {
	t.Parallel()
	srv := &refusingServer{supported: []string{messages.Version20260728}, refusals: 5}
	rt := startRuntime(t, mcpactor.Options{})
	cfg := mcpactor.ServerConfig{Dial: srv.dial, ProtocolVersion: messages.Version20260728}
	_, err := rt.Connect(waitCtx(t), "stubborn", cfg)
	var uv *mcpactor.Error
	if !(errors.As(err, &uv) && errors.Is(uv, mcpactor.ErrUnsupported)) || !uv.Refused || !strings.Contains(err.Error(), "refused protocol version") {
		t.Fatalf("Connect: %v, want an ErrUnsupported error saying the offered version was refused", err)
	}
	if got := srv.probes(); len(got) != 2 {
		t.Errorf("probes %q: want exactly one retry", got)
	}
}
