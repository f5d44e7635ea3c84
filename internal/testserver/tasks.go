package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// The tasks extension of the 2026-07-28 revision, for tools marked
// Tool.Task: a client that declares the extension on a call is answered
// with a task at once (resultType "task"); the tool runs in the
// background; tasks/get reports it (with its result, its error, or the
// input it waits for), tasks/update brings that input, tasks/cancel ends
// it
// (https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html).
// A client that does not declare the extension is refused -32021.

// taskExtension is the extension's identifier.
const taskExtension = "io.modelcontextprotocol/tasks"

// codeMissingCapability is the error of a request the server cannot serve
// without a capability the client did not declare.
const codeMissingCapability = -32021

// taskPollMs is the polling interval the server asks for: short, tests
// are waiting.
const taskPollMs = 20

// task is one task's state, guarded by mu.
type task struct {
	id      string
	created time.Time
	cancel  context.CancelFunc

	mu      sync.Mutex
	status  string
	message string
	updated time.Time
	result  json.RawMessage
	err     *rpcError
	inputs  map[string]taskInput // outstanding input requests, by key
}

// taskInput is one input request a task waits on.
type taskInput struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	answer chan json.RawMessage
}

// declaresTasks reports whether a request's _meta declares the tasks
// extension among the client's capabilities.
func declaresTasks(meta json.RawMessage) bool {
	var m struct {
		Caps struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"io.modelcontextprotocol/clientCapabilities"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return false
	}
	_, ok := m.Caps.Extensions[taskExtension]
	return ok
}

// missingTasks is the refusal of a task tool's call from a client that
// did not declare the extension.
func missingTasks() *rpcError {
	return &rpcError{Code: codeMissingCapability, Message: "Missing required client capability",
		Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + taskExtension + `":{}}}}`)}
}

// startTask answers c with a new task and runs its tool in the
// background, under the server's lifetime.
func (s *server) startTask(c *Call) (json.RawMessage, *rpcError) {
	now := time.Now().UTC()
	t := &task{id: "task-" + strconv.FormatInt(s.nextServerID.Add(1), 10), created: now, updated: now, status: "working"}
	ctx, cancel := context.WithCancel(s.ctx)
	t.cancel = cancel
	c.task = t
	s.mu.Lock()
	if s.tasks == nil {
		s.tasks = map[string]*task{}
	}
	s.tasks[t.id] = t
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		res, err := s.runTool(ctx, c.tool, c)
		t.finish(ctx, res, err)
	}()
	return t.encode("task"), nil
}

// finish records the end of the task's tool.
func (t *task) finish(ctx context.Context, res json.RawMessage, err *rpcError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == "cancelled" {
		return
	}
	t.updated = time.Now().UTC()
	switch {
	case ctx.Err() != nil:
		t.status = "cancelled"
	case err != nil:
		t.status, t.err = "failed", err
	default:
		t.status, t.result = "completed", res
	}
}

// ask is Call.Ask for a call running as a task: the request is posted
// on the task (input_required) until tasks/update answers it.
func (t *task) ask(ctx context.Context, key, method string, params json.RawMessage) (json.RawMessage, error) {
	in := taskInput{Method: method, Params: params, answer: make(chan json.RawMessage, 1)}
	t.mu.Lock()
	if t.inputs == nil {
		t.inputs = map[string]taskInput{}
	}
	t.inputs[key] = in
	t.status, t.updated = "input_required", time.Now().UTC()
	t.mu.Unlock()
	select {
	case res := <-in.answer:
		return res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// encode is the task as resultType says: "task" for the CreateTaskResult,
// "complete" for tasks/get (a DetailedTask).
func (t *task) encode(resultType string) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := map[string]any{
		"resultType": resultType, "taskId": t.id, "status": t.status,
		"createdAt": t.created.Format(time.RFC3339Nano), "lastUpdatedAt": t.updated.Format(time.RFC3339Nano),
		"ttlMs": 60000, "pollIntervalMs": taskPollMs,
	}
	if t.message != "" {
		v["statusMessage"] = t.message
	}
	switch t.status {
	case "completed":
		v["result"] = t.result
	case "failed":
		v["error"] = t.err
	case "input_required":
		v["inputRequests"] = t.inputs
	}
	return mustJSON(v)
}

// taskOf finds the task a tasks/* request names.
func (s *server) taskOf(params json.RawMessage) (*task, *rpcError) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	s.mu.Lock()
	t := s.tasks[p.TaskID]
	s.mu.Unlock()
	if t == nil {
		return nil, newError(codeInvalidParams, "Invalid params: no task %q", p.TaskID)
	}
	return t, nil
}

func (s *server) tasksGet(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	t, err := s.taskOf(req.params)
	if err != nil {
		return nil, err
	}
	return t.encode("complete"), nil
}

// tasksUpdate delivers the answers to outstanding input requests; keys
// that are not outstanding are ignored, as the extension says.
func (s *server) tasksUpdate(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	t, err := s.taskOf(req.params)
	if err != nil {
		return nil, err
	}
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	_ = json.Unmarshal(req.params, &p)
	t.mu.Lock()
	for k, v := range p.InputResponses {
		if in, ok := t.inputs[k]; ok {
			in.answer <- v
			delete(t.inputs, k)
		}
	}
	if t.status == "input_required" && len(t.inputs) == 0 {
		t.status, t.updated = "working", time.Now().UTC()
	}
	t.mu.Unlock()
	return json.RawMessage(`{"resultType":"complete"}`), nil
}

func (s *server) tasksCancel(_ context.Context, req *request) (json.RawMessage, *rpcError) {
	t, err := s.taskOf(req.params)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.status == "working" || t.status == "input_required" {
		t.status, t.updated = "cancelled", time.Now().UTC()
	}
	t.mu.Unlock()
	t.cancel()
	return json.RawMessage(`{"resultType":"complete"}`), nil
}

// offersTasks reports whether a catalogue has a task tool.
func offersTasks(tools []*Tool) bool {
	for _, t := range tools {
		if t.Task {
			return true
		}
	}
	return false
}

// withTaskExtension adds the tasks extension to encoded capabilities.
func withTaskExtension(caps []byte) []byte {
	caps = bytes.TrimSuffix(caps, []byte("}"))
	return append(caps, `,"extensions":{"`+taskExtension+`":{}}}`...)
}

// capabilities are the server's capabilities: the spec's, with the tasks
// extension declared when its catalogue (which a Hub may change) has a
// task tool. (A spec whose capabilities declare extensions of their own
// declares this one itself.)
func (s *server) capabilities() json.RawMessage {
	caps := capabilitiesOf(s.spec)
	if offersTasks(s.catalog().Tools) && !bytes.Contains(caps, []byte(taskExtension)) {
		return withTaskExtension(caps)
	}
	return caps
}
