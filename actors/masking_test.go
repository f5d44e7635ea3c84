package actors_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// A server that quotes its configured environment, in a JSON-RPC error's
// message and data and on stderr: the caller's error (its text and the
// *RPCError errors.As finds), the log and the stderr lines handed on show
// none of it, and the error keeps its code and type.
func TestServerEchoOfConfiguredEnvMasked(t *testing.T) {
	const secret = "Ev6-PLANTED-actors-env-9b1"
	var logs harness.Log
	env := actors.Env{Options: actors.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}}
	s := connect(t, testserver.Options{}, env, func(cfg *actors.Spec) { cfg.Stdio.Env["SERVICE_TOKEN"] = secret })

	_, err := s.c.CallTool(harness.Context(t), "echo-env", map[string]any{"names": []string{"SERVICE_TOKEN"}})
	var rpc *callerr.RPCError
	if !errors.As(err, &rpc) || !errors.Is(err, errkind.ErrRPC) || rpc.Code != -32000 {
		t.Fatalf("CallTool(echo-env) = %v, want the server's JSON-RPC error", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(rpc.Message, secret) || strings.Contains(string(rpc.Data), secret) {
		t.Errorf("the error shows the configured env value: %v (data %s)", err, rpc.Data)
	}
	if !strings.Contains(rpc.Message, "SERVICE_TOKEN=REDACTED") || !json.Valid(rpc.Data) {
		t.Errorf("the error lost more than the value: %q (data %s)", rpc.Message, rpc.Data)
	}
	line := s.stderr.Wait(t, "echo-env:")
	if strings.Contains(line, secret) || !strings.Contains(line, "SERVICE_TOKEN=REDACTED") {
		t.Errorf("stderr line handed on: %q", line)
	}
	// The crash's own stderr, in the error and the log.
	_, err = s.c.CallTool(harness.Context(t), "crash", map[string]any{"code": 1, "stderr": "fatal: bad token " + secret})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("crash: %v", err)
	}
	deadline := time.Now().Add(harness.Bound)
	for s.c.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if c := s.c.Err(); c == nil || strings.Contains(c.Error(), secret) {
		t.Errorf("Err() = %v", c)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the log shows the configured env value:\n%s", logs.String())
	}
}
