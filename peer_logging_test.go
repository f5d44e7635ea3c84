package mcpactor_test

// The server's log messages against the independent peers, one row per
// peer and transport (peer_rows_test.go).

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// TestServerLogging sets the log level and receives the server's log
// messages in order, each row on a connection of its own: the level is the
// session's (in the 2026-07-28 era, the client's)
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).
// In the session era logging/setLevel is on the wire; in the 2026-07-28
// era the level travels in each request's _meta
// (io.modelcontextprotocol/logLevel) instead, and logging/setLevel is never
// sent.
func TestServerLogging(t *testing.T) {
	run(t, func(t *testing.T, p *peerConn) {
		h := p.http
		switch {
		case p.peer == everythingServer && h == nil:
			checkEverythingLogging(t, p.c, p.rec)
		case p.peer == everythingServer:
			checkEverythingLogging(t, h.c, h.rec)
			set := postsOf(h.wire(), messages.MethodLoggingSetLevel)
			if len(set) != 1 || !bytes.Contains(set[0].Body, []byte(`"level":"debug"`)) {
				t.Errorf("logging/setLevel on the wire: %s", dumpExchanges(set))
			}

		case p.sent != nil:
			checkGoSDKLogging(t, p.c, p.rec, messages.LevelDebug)
			var leveled bool
			for _, m := range p.sent.sent(t) {
				leveled = leveled || (m.Method == messages.MethodToolsCall && bytes.Contains(m.Params, []byte(`"`+messages.MetaKeyLogLevel+`":"debug"`)))
				if m.Method == messages.MethodLoggingSetLevel {
					t.Error("logging/setLevel went on the wire in the stateless era")
				}
			}
			if !leveled {
				t.Errorf("logLevel not in the calls' _meta")
			}
		case p.stateless:
			checkGoSDKLogging(t, h.c, h.rec, messages.LevelDebug)
			exs := h.wire()
			if set := postsOf(exs, messages.MethodLoggingSetLevel); len(set) != 0 {
				t.Errorf("logging/setLevel went on the wire in the stateless era")
			}
			calls := postsOf(exs, messages.MethodToolsCall)
			if len(calls) == 0 || !bytes.Contains(calls[len(calls)-1].Body, []byte(`"`+messages.MetaKeyLogLevel+`":"debug"`)) {
				t.Errorf("the call's _meta lacks the log level:\n%s", dumpExchanges(calls))
			}

		case h == nil:
			checkGoSDKLogging(t, p.c, p.rec, messages.LevelInfo)
		default:
			checkGoSDKLogging(t, h.c, h.rec, messages.LevelInfo)
			if set := postsOf(h.wire(), messages.MethodLoggingSetLevel); len(set) != 1 || !bytes.Contains(set[0].Body, []byte(`"level":"info"`)) {
				t.Errorf("logging/setLevel on the wire: %s", dumpExchanges(set))
			}

		}
	}, everythingStdio.own(true), everythingStreamable.own(true), everythingSSE.own(true),
		gosdkStdio.own(false), gosdkHTTP.own(false), gosdkStdioStateless, gosdkHTTPStateless.own(false))
}

// checkEverythingLogging sets the log level to debug, has server-everything
// simulate log messages, and receives one in rec. It changes the
// session's state.
func checkEverythingLogging(t *testing.T, c *mcpactor.Client, rec *peerRecorder) {
	t.Helper()
	ctx := waitCtx(t)
	if err := c.SetLoggingLevel(ctx, messages.LevelDebug); err != nil {
		t.Fatalf("SetLoggingLevel: %v", err)
	}
	mark := rec.notes.mark()
	if text := resultText(callOK(t, c, "toggle-simulated-logging", nil)); !strings.HasPrefix(text, "Started") {
		t.Fatalf("toggle-simulated-logging = %q", text)
	}
	n := rec.notes.waitAfter(t, mark, "simulated log message", func(_ string, n mcpactor.Notification) bool {
		return n.Method == messages.NotificationMessage &&
			(bytes.Contains(n.Params, []byte("-level message")) || bytes.Contains(n.Params, []byte("level-message")))
	})
	var p messages.LoggingMessageParams
	if err := json.Unmarshal(n.Params, &p); err != nil {
		t.Fatalf("notifications/message params %s: %v", n.Params, err)
	}
	if p.Level.Severity() < 0 {
		t.Errorf("log level %q is not an RFC 5424 level", p.Level)
	}
	var data string
	if err := json.Unmarshal(p.Data, &data); err != nil || data == "" {
		t.Errorf("log data %s (%v), want a string", p.Data, err)
	}
	if text := resultText(callOK(t, c, "toggle-simulated-logging", nil)); !strings.HasPrefix(text, "Stopped") {
		t.Errorf("second toggle-simulated-logging = %q", text)
	}
}

// checkGoSDKLogging sets the log level and receives the three info
// messages of test_tool_with_logging in rec, in order. It changes the
// client's or the session's state.
func checkGoSDKLogging(t *testing.T, c *mcpactor.Client, rec *peerRecorder, level messages.LoggingLevel) {
	t.Helper()
	if err := c.SetLoggingLevel(waitCtx(t), level); err != nil {
		t.Fatalf("SetLoggingLevel: %v", err)
	}
	mark := rec.notes.mark()
	if got := resultText(callOK(t, c, "test_tool_with_logging", nil)); got != "Tool with logging executed successfully" {
		t.Errorf("test_tool_with_logging = %q", got)
	}
	notes := rec.notes.collectAfter(t, mark, 3, "3 log messages", isMethod(messages.NotificationMessage))
	var data []string
	for _, n := range notes {
		var p messages.LoggingMessageParams
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatalf("params %s: %v", n.Params, err)
		}
		if p.Level != messages.LevelInfo {
			t.Errorf("level = %q, want info", p.Level)
		}
		var s string
		_ = json.Unmarshal(p.Data, &s)
		data = append(data, s)
	}
	if want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}; !slices.Equal(data, want) {
		t.Errorf("log data = %q, want %q in order", data, want)
	}
}
