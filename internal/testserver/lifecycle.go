package testserver

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// instructions is the initialize result's instructions text.
const instructions = "mcpactor test server. Tools: echo, sleep, progress, fail, rpc-error, big, structured, " +
	"content-kinds, trace-meta, ask-client, notify, crash. Resources under test://static/ and " +
	"test://dynamic/{id}; prompts simple and greet."

// capabilities is the server's fixed capability set.
var capabilities = json.RawMessage(`{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},` +
	`"prompts":{"listChanged":true},"logging":{},"completions":{}}`)

func (s *server) initialize(ctx context.Context, req *request) (json.RawMessage, *rpcError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	// Lenient: malformed params just mean no version was offered.
	_ = json.Unmarshal(req.params, &p)

	version := LatestProtocolVersion
	switch {
	case s.opts.ProtocolVersion != "":
		version = s.opts.ProtocolVersion
	case slices.Contains(supportedVersions, p.ProtocolVersion):
		version = p.ProtocolVersion
	}
	if !sleep(ctx, s.opts.SlowInitialize) {
		return nil, nil
	}
	type serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	return mustJSON(struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      serverInfo      `json:"serverInfo"`
		Instructions    string          `json:"instructions,omitempty"`
	}{version, s.capabilities(), serverInfo{s.serverName(), s.serverVersion()}, s.spec.Instructions}), nil
}

func (s *server) ping(context.Context, *request) (json.RawMessage, *rpcError) {
	return json.RawMessage(`{}`), nil
}

// logLevels are the syslog severities MCP logging accepts.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// setLevel answers {} and then, through req.after so that it follows the
// answer on the wire, sends one log message confirming the level.
func (s *server) setLevel(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	var p struct {
		Level string `json:"level"`
	}
	if err := json.Unmarshal(req.params, &p); err != nil || !slices.Contains(logLevels, p.Level) {
		return nil, newError(codeInvalidParams, "Invalid params: level must be one of %s", strings.Join(logLevels, ", "))
	}
	params := mustJSON(struct {
		Level  string `json:"level"`
		Logger string `json:"logger"`
		Data   string `json:"data"`
	}{p.Level, "testserver", "level set to " + p.Level})
	req.after = appendNotification(nil, "notifications/message", params)
	return json.RawMessage(`{}`), nil
}

// endlessCursor is the nextCursor of every page under Options.EndlessCursor.
const endlessCursor = "endless"

// paginate returns the page of items that the cursor in params selects and
// the cursor of the next page ("" after the last one). Cursors are opaque
// to clients: base64 of the offset, so that nobody is tempted to do
// arithmetic on them.
func paginate[T any](s *server, params json.RawMessage, items []T) ([]T, string, *rpcError) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(params, &p)

	offset := 0
	if p.Cursor != nil && *p.Cursor != endlessCursor {
		raw, err := base64.RawURLEncoding.DecodeString(*p.Cursor)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
		if err != nil || err2 != nil || n < 0 || n > len(items) || !strings.HasPrefix(string(raw), "offset:") {
			return nil, "", newError(codeInvalidParams, "Invalid params: invalid cursor")
		}
		offset = n
	}

	end := len(items)
	if s.opts.PageSize > 0 {
		end = min(offset+s.opts.PageSize, len(items))
	}
	next := ""
	switch {
	case s.opts.EndlessCursor:
		next = endlessCursor
	case end < len(items):
		next = base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(end)))
	}
	return items[offset:end], next, nil
}

// serverName and serverVersion are serverInfo's fields.
func (s *server) serverName() string    { return cmp.Or(s.spec.Name, ServerName) }
func (s *server) serverVersion() string { return cmp.Or(s.spec.Version, ServerVersion) }
