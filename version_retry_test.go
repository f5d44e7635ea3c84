package mcpactor_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

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
	ours, theirs := net.Pipe()
	go s.serve(theirs)
	return ours, nil
}

func (s *refusingServer) serve(conn net.Conn) {
	defer conn.Close()
	in := bufio.NewScanner(conn)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification
		}
		var offered string
		_ = json.Unmarshal(req.Params.Meta[messages.MetaKeyProtocolVersion], &offered)
		var answer any
		switch req.Method {
		case messages.MethodServerDiscover:
			s.mu.Lock()
			s.offered = append(s.offered, offered)
			refuse := len(s.offered) <= s.refusals
			s.mu.Unlock()
			if refuse {
				answer = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{
					"code": -32022, "message": "Unsupported protocol version",
					"data": map[string]any{"supported": s.supported, "requested": offered}}}
				break
			}
			answer = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
				"resultType": "complete", "supportedVersions": s.supported, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "refusing", "version": "1"}}}
		case messages.MethodToolsList:
			answer = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"resultType": "complete", "tools": []any{}}}
		default:
			answer = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}}
		}
		line, _ := json.Marshal(answer)
		if _, err := conn.Write(append(line, '\n')); err != nil {
			return
		}
	}
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
	var uv *mcpactor.UnsupportedVersionError
	if !errors.As(err, &uv) || !uv.Refused || !strings.Contains(err.Error(), "refused protocol version") {
		t.Fatalf("Connect: %v, want an *UnsupportedVersionError saying the offered version was refused", err)
	}
	if got := srv.probes(); len(got) != 2 {
		t.Errorf("probes %q: want exactly one retry", got)
	}
}
