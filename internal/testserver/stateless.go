package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
)

// The 2026-07-28 revision of MCP, which Options.Stateless speaks beside
// the session protocol: no handshake and no session, server/discover tells what
// the server speaks
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover),
// every request carries its protocol version in params._meta, and a
// server that needs the client's input mid-request answers input_required
// and gets the client's answers in a retry of the request (multi
// round-trip requests,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).

// StatelessVersion is the protocol revision Options.Stateless offers.
const StatelessVersion = "2026-07-28"

// metaProtocolVersion is the _meta key carrying a stateless request's
// protocol version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// discover answers server/discover.
func (s *server) discover(context.Context, *request) (json.RawMessage, *rpcError) {
	type serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	return mustJSON(struct {
		ResultType        string                `json:"resultType"`
		SupportedVersions []string              `json:"supportedVersions"`
		Capabilities      json.RawMessage       `json:"capabilities"`
		Instructions      string                `json:"instructions,omitempty"`
		Meta              map[string]serverInfo `json:"_meta"`
	}{"complete", []string{StatelessVersion}, s.capabilities(), s.spec.Instructions,
		map[string]serverInfo{"io.modelcontextprotocol/serverInfo": {s.serverName(), s.serverVersion()}}}), nil
}

// listen answers subscriptions/listen: the acknowledgement of what it
// asked for, and then what Hub.Notify sends, for as long as the client
// keeps it open (over HTTP; over stdio every notification reaches the
// client anyway, and the stream is there because a 2026-07-28 client
// opens one). It is never answered.
func (s *server) listen(ctx context.Context, req *request) (json.RawMessage, *rpcError) {
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	_ = json.Unmarshal(req.params, &p)
	if isNull(p.Notifications) {
		p.Notifications = json.RawMessage(`{}`)
	}
	// The listener is entered as the acknowledgement is queued, under
	// the lock broadcast takes: a client that has read it may make a
	// notification be sent at once (Hub.Notify), which must reach this
	// stream, and after the acknowledgement. (An outlet queues; it does
	// not wait for the client.)
	s.mu.Lock()
	if s.listeners == nil {
		s.listeners = make(map[*request]outlet)
	}
	s.listeners[req] = req.out
	s.sendNotification(req.out, "notifications/subscriptions/acknowledged",
		append(append([]byte(`{"notifications":`), p.Notifications...), '}'))
	s.mu.Unlock()
	<-ctx.Done() // the client closed the stream, cancelled it, or the server stopped
	s.mu.Lock()
	delete(s.listeners, req)
	s.mu.Unlock()
	return nil, nil
}

// completeResult marks a final result of the stateless protocol as such: its
// servers MUST send resultType, "complete" for a final result (Result,
// https://modelcontextprotocol.io/specification/2026-07-28/schema#result).
// A result that has a resultType keeps it.
func completeResult(result json.RawMessage) json.RawMessage {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return result // not an object: left for the client to refuse
	}
	if _, ok := top["resultType"]; ok {
		return result
	}
	rest := bytes.TrimSpace(bytes.TrimSpace(result)[1:]) // after '{'
	out := make([]byte, 0, len(result)+24)
	out = append(out, `{"resultType":"complete"`...)
	if len(rest) > 1 { // more than '}'
		out = append(out, ',')
	}
	return append(out, rest...)
}

// statelessRequest reports whether a request's params._meta says it is
// of the stateless protocol (2026-07-28).
func statelessRequest(meta json.RawMessage) bool {
	return len(meta) > 0 && bytes.Contains(meta, []byte(metaProtocolVersion))
}

// parked is a tool call waiting, in Call.Ask, for the retry that brings
// the client's input.
type parked struct {
	retry chan retried
	entry *inflightEntry // the call's, for the retry's cancellation
}

// retried is a retry of a parked call.
type retried struct {
	id        json.RawMessage
	out       outlet
	responses map[string]json.RawMessage
}

// askStateless implements Call.Ask in the stateless protocol: it answers the call
// input_required, with one input request and a requestState naming the
// call, and waits for the retry carrying that state; the call goes on as
// the retry, whose id its answer will have.
func (s *server) askStateless(ctx context.Context, c *Call, method string, params json.RawMessage) (json.RawMessage, error) {
	n := strconv.FormatInt(s.nextServerID.Add(1), 10)
	key, state := "input-"+n, "mcptest-"+n
	p := &parked{retry: make(chan retried, 1)}
	s.mu.Lock()
	p.entry = s.inflight[idKey(c.id)] // the call's, or its last retry's
	s.parked[state] = p
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.parked, state)
		s.mu.Unlock()
	}()

	type inputRequest struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params,omitempty"`
	}
	result := mustJSON(struct {
		ResultType    string                  `json:"resultType"`
		InputRequests map[string]inputRequest `json:"inputRequests"`
		RequestState  string                  `json:"requestState"`
	}{"input_required", map[string]inputRequest{key: {method, params}}, state})
	id := c.id
	if s.opts.StringIDs {
		id = quoteID(id)
	}
	c.out.send(true, appendResponse(nil, id, result))

	select {
	case r := <-p.retry:
		c.id, c.out = r.id, r.out
		res, ok := r.responses[key]
		if !ok {
			return nil, newError(codeInvalidParams, "Invalid params: inputResponses lacks %s", key)
		}
		return res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// resume hands a retry of a parked call to it, and reports whether m was
// one. The retry is not answered here: the parked call answers it.
func (s *server) resume(m *message, out outlet) bool {
	if !bytes.Contains(m.Params, []byte(`"requestState"`)) {
		return false
	}
	var p struct {
		RequestState   string                     `json:"requestState"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return false
	}
	s.mu.Lock()
	pk := s.parked[p.RequestState]
	delete(s.parked, p.RequestState)
	if pk != nil && pk.entry != nil {
		s.inflight[idKey(m.ID)] = pk.entry
	}
	s.mu.Unlock()
	if pk == nil {
		return false
	}
	pk.retry <- retried{id: m.ID, out: out, responses: p.InputResponses}
	return true
}

// cacheable are the methods whose results carry caching hints in the
// stateless protocol.
var cacheable = map[string]bool{
	"tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
}

// withCacheHints adds ttlMs and cacheScope to an encoded result object.
func withCacheHints(result json.RawMessage, ttlMs int64, scope string) json.RawMessage {
	end := bytes.LastIndexByte(result, '}')
	if end < 0 {
		return result
	}
	out := append([]byte(nil), result[:end]...)
	out = append(out, `,"ttlMs":`+strconv.FormatInt(ttlMs, 10)...)
	if scope != "" {
		out = append(out, `,"cacheScope":`...)
		out = append(out, mustJSON(scope)...)
	}
	return append(out, result[end:]...)
}
