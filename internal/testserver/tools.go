package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Tool is one entry of a server's tool catalogue: its tools/list entry
// and what answers its tools/call.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// Run answers a call: its result is the tools/call result, written
	// verbatim; an *RPCError is answered as a JSON-RPC error,
	// ErrNoAnswer leaves the request unanswered, and any other error is
	// answered -32603 with its text.
	Run func(ctx context.Context, c *Call) (json.RawMessage, error) `json:"-"`
	// Waits marks a tool that takes time (or waits for the client): it
	// runs on a goroutine of its own and its context ends when the
	// client cancels it. The others answer at once, on the reading
	// goroutine, and are never cancelled.
	Waits bool `json:"-"`
	// Task makes a call of the tool from a 2026-07-28 client a task of
	// the tasks extension (tasks.go); a client that does not declare the
	// extension is refused -32021.
	Task bool `json:"-"`

	run toolFunc // the built-in tools' form of Run
}

// Call is one tools/call being answered: what a tool's Run reads, and
// how it talks back to the client before its answer.
type Call struct {
	srv  *server
	tool *Tool
	id   json.RawMessage // the request's id, as it arrived
	args json.RawMessage // arguments, possibly nil
	meta json.RawMessage // params._meta, possibly nil
	out  outlet          // the request's outlet: what the tool sends goes there
	task *task           // the task the call runs as, if it does
}

// toolFunc runs a built-in tool. A nil result with a nil error leaves the
// request unanswered (crash does that).
type toolFunc func(s *server, ctx context.Context, c *Call) (json.RawMessage, *rpcError)

// runTool runs t for c in either form.
func (s *server) runTool(ctx context.Context, t *Tool, c *Call) (json.RawMessage, *rpcError) {
	if t.run != nil {
		return t.run(s, ctx, c)
	}
	if t.Run == nil {
		return nil, newError(codeInternalError, "Internal error: tool %s has no Run", t.Name)
	}
	res, err := t.Run(ctx, c)
	return answerOf(res, err, json.RawMessage(`{"content":[]}`))
}

// allTools is the catalogue, in tools/list order; toolCatalogue filters it.
var allTools = []*Tool{
	{Name: "echo", Description: "Returns message as text.", InputSchema: schema(`"message":{"type":"string"}`, "message"), run: (*server).toolEcho},
	{Name: "sleep", Description: "Sleeps ms milliseconds, unless cancelled.", InputSchema: schema(`"ms":{"type":"integer","minimum":0}`, "ms"), run: (*server).toolSleep, Waits: true},
	{Name: "progress", Description: "Reports steps progress notifications intervalMs apart, then returns done.", InputSchema: schema(`"steps":{"type":"integer","minimum":0},"intervalMs":{"type":"integer","minimum":0},"messageBytes":{"type":"integer","minimum":0}`, "steps"), run: (*server).toolProgress, Waits: true},
	{Name: "fail", Description: "Returns a tool error (isError) with message.", InputSchema: schema(`"message":{"type":"string"}`), run: (*server).toolFail},
	{Name: "rpc-error", Description: "Answers with a JSON-RPC error of the given code and message.", InputSchema: schema(`"code":{"type":"integer"},"message":{"type":"string"}`), run: (*server).toolRPCError},
	{Name: "big", Description: "Returns one text content of bytes 'x' characters.", InputSchema: schema(`"bytes":{"type":"integer","minimum":0}`, "bytes"), run: (*server).toolBig},
	{Name: "structured", Description: "Returns structured content matching its output schema.", InputSchema: schema(""), OutputSchema: schema(`"a":{"type":"integer"},"b":{"type":"string"}`, "a", "b"), run: (*server).toolStructured},
	{Name: "content-kinds", Description: "Returns one content block of each kind.", InputSchema: schema(""), run: (*server).toolContentKinds},
	{Name: "trace-meta", Description: "Returns the request's params._meta.", InputSchema: schema(""), run: (*server).toolTraceMeta},
	{Name: "ask-client", Description: "Sends a request to the client and returns its answer.", InputSchema: schema(`"method":{"type":"string"},"params":{"type":"object"}`, "method"), run: (*server).toolAskClient, Waits: true},
	{Name: "notify", Description: "Sends a notification to the client, then returns ok.", InputSchema: schema(`"method":{"type":"string"},"params":{"type":"object"}`, "method"), run: (*server).toolNotify},
	{Name: "crash", Description: "Writes stderr and exits the process with code, unanswered.", InputSchema: schema(`"code":{"type":"integer"},"stderr":{"type":"string"}`), run: (*server).toolCrash},
	{Name: "notify-flood", Description: "Sends count notifications of method, each padded to bytes, then returns ok.", InputSchema: schema(`"method":{"type":"string"},"count":{"type":"integer"},"bytes":{"type":"integer"}`, "count"), run: (*server).toolNotifyFlood},
	{Name: "stderr-flood", Description: "Writes bytes of text lines to stderr in the background, then returns ok at once.", InputSchema: schema(`"bytes":{"type":"integer"}`, "bytes"), run: (*server).toolStderrFlood},
	{Name: "stop-reading", Description: "Answers ok, then never reads stdin again.", InputSchema: schema(""), run: (*server).toolStopReading},
	{Name: "close-stdout", Description: "Closes stdout, unanswered, and keeps running.", InputSchema: schema(""), run: (*server).toolCloseStdout},
	{Name: "reply-raw", Description: "Answers with line verbatim, {{id}} replaced by the request's id.", InputSchema: schema(`"line":{"type":"string"}`, "line"), run: (*server).toolReplyRaw},
	{Name: "send-raw", Description: "Writes each of lines to stdout verbatim, then returns ok.", InputSchema: schema(`"lines":{"type":"array","items":{"type":"string"}}`, "lines"), run: (*server).toolSendRaw},
	{Name: "echo-env", Description: "Writes the named environment variables' values to stderr and answers a JSON-RPC error quoting them.", InputSchema: schema(`"names":{"type":"array","items":{"type":"string"}}`, "names"), run: (*server).toolEchoEnv},
}

// noSchemaTool is added by Options.ToolWithoutSchema.
var noSchemaTool = &Tool{Name: "no-schema", Description: "A tool whose definition lacks inputSchema.", run: (*server).toolNoSchema}

// toolCatalogue returns the tools a server with opts offers.
func toolCatalogue(opts Options) []*Tool {
	tools := append([]*Tool(nil), allTools...)
	if opts.ToolWithoutSchema {
		tools = append(tools, noSchemaTool)
	}
	return tools
}

// schema builds an object JSON Schema from properties (a JSON object body)
// and the required property names.
func schema(properties string, required ...string) json.RawMessage {
	b := []byte(`{"type":"object","properties":{` + properties + `}`)
	if len(required) > 0 {
		b = append(b, `,"required":`...)
		b = append(b, mustJSON(required)...)
	}
	return append(b, '}')
}

func (s *server) toolsList(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	if n := s.toolLists.Add(1); n <= int64(s.opts.FailToolsList) {
		return nil, newError(codeInternalError, "tools/list %d of the %d made to fail (-fail-tools-list)", n, s.opts.FailToolsList)
	}
	page, next, err := paginate(s, req.params, s.catalog().Tools)
	if err != nil {
		return nil, err
	}
	return mustJSON(struct {
		Tools      []*Tool `json:"tools"`
		NextCursor string  `json:"nextCursor,omitempty"`
	}{page, next}), nil
}

// decodeCall decodes a tools/call request into req.call (or req.callErr)
// and reports whether it can be answered at once, on the reading goroutine.
func (s *server) decodeCall(req *request) (instant bool) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta"`
	}
	var ok bool
	if p.Name, p.Arguments, p.Meta, ok = decodeCallParams(req.params); !ok {
		p.Name, p.Arguments, p.Meta = "", nil, nil
		if err := json.Unmarshal(req.params, &p); err != nil {
			p.Name = ""
		}
	}
	if p.Name == "" {
		req.callErr = newError(codeInvalidParams, "Invalid params: tools/call needs a tool name")
		return true
	}
	for _, t := range s.catalog().Tools {
		if t.Name == p.Name {
			req.call = &Call{srv: s, tool: t, id: req.id, args: p.Arguments, meta: p.Meta, out: req.out}
			// The endless line never ends: it must not hold the reader.
			return !t.Waits && !(req.firstCall && s.endlessLine(req))
		}
	}
	req.callErr = newError(codeInvalidParams, "Unknown tool: %s", p.Name)
	return true
}

func (s *server) toolsCall(ctx context.Context, req *request) (json.RawMessage, *rpcError) {
	if req.call == nil && req.callErr == nil {
		s.decodeCall(req)
	}
	if req.callErr != nil {
		return nil, req.callErr
	}
	if req.call.tool.Task && s.opts.Stateless && statelessRequest(req.call.meta) {
		if !declaresTasks(req.call.meta) {
			return nil, missingTasks()
		}
		return s.startTask(req.call)
	}
	if req.firstCall {
		if s.endlessLine(req) {
			s.writeEndlessLine(ctx)
			return nil, nil
		}
		if s.opts.HugeFrameBytes > 0 {
			s.writeHugeFrame(req.out)
		}
	}
	return s.runTool(ctx, req.call.tool, req.call)
}

// decodeArgs decodes a tool's arguments into v; absent arguments leave v
// as it is, so that every argument is optional and defaults to zero.
func decodeArgs(raw json.RawMessage, v any) *rpcError {
	if isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return newError(codeInvalidParams, "Invalid arguments: %v", err)
	}
	return nil
}

// textResult is a tool result holding one text content.
func textResult(text string, isError bool) json.RawMessage {
	b := make([]byte, 0, len(text)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = appendString(b, text)
	b = append(b, "}]"...)
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

// toolEcho is the benchmark's hot path: one small decode, one hand-built
// encode.
func (s *server) toolEcho(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	if msg, ok := stringArg(c.args, "message"); ok {
		return textResult(msg, false), nil
	}
	var a struct {
		Message string `json:"message"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	return textResult(a.Message, false), nil
}

func (s *server) toolSleep(ctx context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		MS float64 `json:"ms"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	if !sleep(ctx, time.Duration(a.MS*float64(time.Millisecond))) {
		return nil, nil
	}
	return textResult("slept "+strconv.FormatFloat(a.MS, 'f', -1, 64)+"ms", false), nil
}

func (s *server) toolProgress(ctx context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Steps        int     `json:"steps"`
		IntervalMS   float64 `json:"intervalMs"`
		MessageBytes int     `json:"messageBytes"` // pads each message to about this size
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	var meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	_ = decodeArgs(c.meta, &meta)
	interval := time.Duration(a.IntervalMS * float64(time.Millisecond))
	for i := 1; i <= a.Steps; i++ {
		if !sleep(ctx, interval) {
			return nil, nil
		}
		if isNull(meta.ProgressToken) {
			continue
		}
		p := []byte(`{"progressToken":`)
		p = append(p, meta.ProgressToken...)
		p = append(p, `,"progress":`...)
		p = strconv.AppendInt(p, int64(i), 10)
		p = append(p, `,"total":`...)
		p = strconv.AppendInt(p, int64(a.Steps), 10)
		p = append(p, `,"message":"step `...)
		p = strconv.AppendInt(p, int64(i), 10)
		if a.MessageBytes > 0 {
			p = append(p, ' ')
			p = append(p, bytes.Repeat([]byte{'x'}, a.MessageBytes)...)
		}
		p = append(p, `"}`...)
		s.sendNotification(c.out, "notifications/progress", p)
	}
	return textResult("done", false), nil
}

func (s *server) toolFail(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Message string `json:"message"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	return textResult(a.Message, true), nil
}

func (s *server) toolRPCError(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	if a.Code == 0 {
		a.Code = codeServerError
	}
	return nil, &rpcError{Code: a.Code, Message: a.Message}
}

func (s *server) toolBig(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Bytes int `json:"bytes"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	const head, tail = `{"content":[{"type":"text","text":"`, `"}]}`
	b := make([]byte, 0, len(head)+max(a.Bytes, 0)+len(tail))
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte{'x'}, max(a.Bytes, 0))...)
	return append(b, tail...), nil
}

func (s *server) toolStructured(context.Context, *Call) (json.RawMessage, *rpcError) {
	const data = `{"a":1,"b":"two"}`
	return json.RawMessage(`{"content":[{"type":"text","text":` + string(appendString(nil, data)) +
		`}],"structuredContent":` + data + `}`), nil
}

func (s *server) toolTraceMeta(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	meta := c.meta
	if isNull(meta) {
		meta = json.RawMessage(`{}`)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, meta); err != nil {
		return nil, newError(codeInvalidParams, "Invalid params: _meta: %v", err)
	}
	return mustJSON(struct {
		Content           []any           `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}{[]any{textContent(compact.String())}, compact.Bytes()}), nil
}

func (s *server) toolCrash(_ context.Context, c *Call) (json.RawMessage, *rpcError) {
	var a struct {
		Code   int    `json:"code"`
		Stderr string `json:"stderr"`
	}
	if err := decodeArgs(c.args, &a); err != nil {
		return nil, err
	}
	s.exit(a.Code, a.Stderr)
	return nil, nil
}

func (s *server) toolNoSchema(context.Context, *Call) (json.RawMessage, *rpcError) {
	return textResult("no schema", false), nil
}

// sleep waits d, or less if ctx ends first; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
