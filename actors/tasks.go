package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport"
)

// Tasks, in both protocols (messages/tasks.go has the wire shapes):
// StartToolTask makes a tools/call that may end as a task, GetTask polls
// one, AwaitTask waits for its end and returns its result, CancelTask
// and ListTasks do what they say. A plain CallTool of a tool that must
// run as a task goes through StartToolTask and AwaitTask by itself
// (callAsTask), within the call's context.

// Polling bounds: a server's pollInterval is honoured within them, so
// that a server asking for 1 ms cannot make a busy loop of the client
// and one asking for an hour cannot make a short task look stuck.
const (
	minTaskPoll     = 50 * time.Millisecond
	defaultTaskPoll = time.Second
	maxTaskPoll     = 30 * time.Second
)

// taskAnswer is what a tools/call that may end as a task decodes into:
// the raw result, which in the stateless protocol (2026-07-28) is not
// awaited when it is a task (rounds hands it over as it is).
type taskAnswer struct{ raw json.RawMessage }

func (a *taskAnswer) UnmarshalJSON(b []byte) error {
	a.raw = append(a.raw[:0], b...)
	return nil
}

// StartToolTask calls the tool name with args so that the server may run
// it as a task: it returns the task when the server made one, or the
// result when the server answered at once (a server or a tool without
// tasks, or one that chose not to).
//
// In the session protocol (2025-11-25) the request carries "task" when
// the server declared tasks for tools/call
// (capabilities.tasks.requests.tools.call); in the stateless protocol
// (2026-07-28) the client declares the tasks extension on every request
// and the server decides
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks,
// https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html).
func (c *Client) StartToolTask(ctx context.Context, name string, args any, call Call) (*messages.Task, *messages.CallToolResult, error) {
	g, err := c.current(ctx)
	if err != nil {
		return nil, nil, err
	}
	var params any = &messages.CallToolParams{Name: name, Arguments: args, Meta: call.Meta}
	if !g.sess.stateless && serverTasksToolCalls(c.Capabilities()) {
		params = messages.CallToolTaskParams{Name: name, Arguments: args, Meta: call.Meta, Task: messages.TaskRequest{}}
	}
	var ans taskAnswer
	opts := options(&call)
	if err := c.callWith(ctx, messages.MethodToolsCall, params, &ans, &opts, call.OnProgress); err != nil {
		return nil, nil, err
	}
	return c.taskOrResult(ans.raw)
}

// taskOrResult reads an answer to StartToolTask: a 2025-11-25
// CreateTaskResult ({"task": ...}), a 2026-07-28 one (resultType "task",
// the task's members inline), or a CallToolResult.
func (c *Client) taskOrResult(raw json.RawMessage) (*messages.Task, *messages.CallToolResult, error) {
	if messages.ResultTypeOf(raw) == messages.ResultTypeTask {
		t, err := c.decodeTask(messages.MethodToolsCall, raw)
		return t, nil, err
	}
	var created messages.CreateTaskResult
	if err := json.Unmarshal(raw, &created); err == nil && created.Task != nil {
		if created.Task.TaskID == "" {
			return nil, nil, c.invalid(messages.MethodToolsCall, errors.New("task without a taskId"), raw)
		}
		return created.Task, nil, nil
	}
	res := new(messages.CallToolResult)
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, nil, c.invalid(messages.MethodToolsCall, err, raw)
	}
	return nil, res, nil
}

// GetTask asks the server where task id is (tasks/get).
func (c *Client) GetTask(ctx context.Context, id string) (*messages.Task, error) {
	var raw json.RawMessage
	if err := c.call(ctx, messages.MethodTasksGet, messages.TaskIDParams{TaskID: id}, &raw); err != nil {
		return nil, err
	}
	return c.decodeTask(messages.MethodTasksGet, raw)
}

func (c *Client) decodeTask(method string, raw json.RawMessage) (*messages.Task, error) {
	t := new(messages.Task)
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, c.invalid(method, err, raw)
	}
	if t.TaskID == "" || t.Status == "" {
		return nil, c.invalid(method, errors.New("task without a taskId or status"), raw)
	}
	return t, nil
}

func (c *Client) invalid(method string, err error, raw json.RawMessage) error {
	return callerr.NewInvalidResult(&callerr.Error{Server: c.name, Method: method, Cause: err, Body: snippet(raw)})
}

// CancelTask asks the server to cancel task id (tasks/cancel).
// Cancellation is the server's to grant: the task may still complete.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	return c.call(ctx, messages.MethodTasksCancel, messages.TaskIDParams{TaskID: id}, nil)
}

// ListTasks returns the server's tasks, every page read (tasks/list). The
// 2026-07-28 extension has no list: there, it fails with
// ErrUnsupported error.
func (c *Client) ListTasks(ctx context.Context) ([]messages.Task, error) {
	g, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if g.sess.stateless {
		return nil, callerr.NewUnsupported(&callerr.Error{Server: c.name, Method: messages.MethodTasksList, Version: g.sess.version})
	}
	return collect(pages(c.name, messages.MethodTasksList, func(ctx context.Context, cursor string) (page[messages.Task], error) {
		var res messages.ListTasksResult
		err := c.call(ctx, messages.MethodTasksList, messages.ListTasksParams{Cursor: cursor}, &res)
		return page[messages.Task]{items: res.Tasks, next: res.NextCursor}, err
	})(ctx))
}

// AwaitTask waits until task id ends and returns its result: polling
// tasks/get at the interval the server asks (within minTaskPoll and
// maxTaskPoll), answering the input a 2026-07-28 task asks for with the
// client's handlers (tasks/update), and, in the session protocol
// (2025-11-25), fetching the result with tasks/result, which is also how
// that protocol's server
// delivers the requests of a task that needs input. onStatus, when not
// nil, hears each status the client sees, once per change.
//
// A task that failed or was cancelled ends with *messages.TaskError (a
// failed one's Err is the task's JSON-RPC error). The wait ends with ctx;
// the task goes on at the server (CancelTask ends it).
func (c *Client) AwaitTask(ctx context.Context, id string, onStatus func(messages.Task)) (*messages.CallToolResult, error) {
	var last messages.TaskStatus
	var lastMsg string
	answered := map[string]bool{}
	for {
		t, err := c.GetTask(ctx, id)
		if err != nil {
			return nil, err
		}
		if onStatus != nil && (t.Status != last || t.StatusMessage != lastMsg) {
			onStatus(*t)
		}
		last, lastMsg = t.Status, t.StatusMessage
		done, res, err := c.taskStep(ctx, t, answered)
		if done || err != nil {
			// A task's status message and error are the server's text:
			// masked, as every error the client returns is.
			return res, c.masked(err)
		}
		if err := sleepCtx(ctx, taskPoll(t)); err != nil {
			return nil, err
		}
	}
}

// taskStep acts on one poll's account of task t: the end of the wait
// (done, or an error: input the client could not give), or nothing (poll
// again).
func (c *Client) taskStep(ctx context.Context, t *messages.Task, answered map[string]bool) (bool, *messages.CallToolResult, error) {
	s := c.gen.Load().established()
	stateless := s != nil && s.stateless
	switch t.Status {
	case messages.TaskCancelled:
		return true, nil, &messages.TaskError{Server: c.name, TaskID: t.TaskID, Status: t.Status, Message: t.StatusMessage, Err: context.Canceled}
	case messages.TaskFailed:
		var cause error
		if t.Error != nil {
			cause = &callerr.RPCError{Server: c.name, Method: messages.MethodToolsCall, Code: t.Error.Code, Message: t.Error.Message, Data: t.Error.Data}
		} else if !stateless {
			// tasks/result returns the error the request would have.
			_, cause = c.taskResult(ctx, t.TaskID)
		}
		return true, nil, &messages.TaskError{Server: c.name, TaskID: t.TaskID, Status: t.Status, Message: t.StatusMessage, Err: cause}
	case messages.TaskCompleted:
		if t.Result != nil {
			res := new(messages.CallToolResult)
			if err := json.Unmarshal(t.Result, res); err != nil {
				return true, nil, c.invalid(messages.MethodTasksGet, err, t.Result)
			}
			return true, res, nil
		}
		res, err := c.taskResult(ctx, t.TaskID)
		return true, res, err
	case messages.TaskInputRequired:
		if len(t.InputRequests) > 0 {
			return false, nil, c.answerTask(ctx, t, answered)
		}
		if !stateless {
			// The 2025-11-25 server sends what it needs on the stream of
			// tasks/result, which blocks until the task ends.
			res, err := c.taskResult(ctx, t.TaskID)
			return true, res, err
		}
	}
	return false, nil, nil
}

// taskResult fetches the result of a 2025-11-25 task (tasks/result): the
// original request's result, or its error. It may block until the task
// ends, so it is bounded by ctx alone, not by the request timeout.
func (c *Client) taskResult(ctx context.Context, id string) (*messages.CallToolResult, error) {
	res := new(messages.CallToolResult)
	opts := blockingOptions(ctx)
	if err := c.callWith(ctx, messages.MethodTasksResult, messages.TaskIDParams{TaskID: id}, res, &opts, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// answerTask answers the input requests of a 2026-07-28 task that the
// client has not answered yet (keys are unique over a task's life) with
// the handlers that answer a multi round-trip request's, and sends them
// with tasks/update.
func (c *Client) answerTask(ctx context.Context, t *messages.Task, answered map[string]bool) error {
	pending := map[string]messages.InputRequest{}
	for k, r := range t.InputRequests {
		if !answered[k] {
			pending[k] = r
		}
	}
	if len(pending) == 0 {
		return nil
	}
	g, err := c.current(ctx)
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"inputRequests": pending})
	if err != nil {
		return err
	}
	members, err := c.fulfil(ctx, g.sess.peer, body)
	if err != nil {
		return err
	}
	var upd messages.UpdateTaskParams
	if err := json.Unmarshal(append(append([]byte("{"), members...), '}'), &upd); err != nil {
		return err
	}
	upd.TaskID = t.TaskID
	if err := c.call(ctx, messages.MethodTasksUpdate, upd, nil); err != nil {
		return err
	}
	for k := range pending {
		answered[k] = true
	}
	return nil
}

// callAsTask is a tools/call of a tool that must run as a task, made
// whole within ctx: the task is started, awaited and its result returned.
func (c *Client) callAsTask(ctx context.Context, name string, args any, call *Call) (*messages.CallToolResult, error) {
	if call == nil {
		call = &Call{}
	}
	t, res, err := c.StartToolTask(ctx, name, args, *call)
	if err != nil || t == nil {
		return res, err
	}
	opts := options(call)
	return c.awaitOwnTask(ctx, t.TaskID, &opts)
}

// mustRunAsTask reports whether err is a 2025-11-25 server's refusal of
// a tools/call that was not made as a task while the tool requires one:
// -32601 from a server that declared tasks for tools/call
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#tool-level-negotiation).
func (c *Client) mustRunAsTask(err error) bool {
	var rpc *callerr.RPCError
	return errors.As(err, &rpc) && rpc.Code == messages.CodeMethodNotFound &&
		rpc.Method == messages.MethodToolsCall && serverTasksToolCalls(c.Capabilities())
}

// serverTasksToolCalls reports whether a 2025-11-25 server declared that
// tools/call may run as a task (capabilities.tasks.requests.tools.call).
func serverTasksToolCalls(caps messages.ServerCapabilities) bool {
	return TasksCapability(caps).ToolCalls
}

// ServerTasks is what a 2025-11-25 server declared of tasks
// (capabilities.tasks): which requests may run as tasks and which task
// methods it serves.
type ServerTasks struct {
	ToolCalls bool // tools/call may run as a task
	List      bool // tasks/list
	Cancel    bool // tasks/cancel
}

// TasksCapability reads the tasks capability of a 2025-11-25 server; the
// zero ServerTasks when it has none (or an unreadable one).
func TasksCapability(caps messages.ServerCapabilities) ServerTasks {
	if len(caps.Tasks) == 0 || bytes.Equal(caps.Tasks, []byte("null")) {
		return ServerTasks{}
	}
	var t struct {
		List     json.RawMessage `json:"list"`
		Cancel   json.RawMessage `json:"cancel"`
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	if json.Unmarshal(caps.Tasks, &t) != nil {
		return ServerTasks{}
	}
	return ServerTasks{ToolCalls: present(t.Requests.Tools.Call), List: present(t.List), Cancel: present(t.Cancel)}
}

// present reports whether a capability member is there (an object, even
// empty).
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// taskPoll is how long to wait before polling t again.
func taskPoll(t *messages.Task) time.Duration {
	d := t.PollEvery()
	if d == 0 {
		d = defaultTaskPoll
	}
	return min(max(d, minTaskPoll), maxTaskPoll)
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// blockingOptions are the options of a request that may wait as long as
// the task it asks about: no timer of its own, ctx is the bound.
func blockingOptions(context.Context) transport.RequestOptions {
	return transport.RequestOptions{Timeout: -1}
}

// taskWait is the context a call that became a task is awaited in: the
// call's own timeout (or the server's request timeout) bounds the whole
// call, task included, as it bounds a call answered at once; a negative
// timeout, none.
func (c *Client) taskWait(ctx context.Context, opts *transport.RequestOptions) (context.Context, context.CancelFunc) {
	d := opts.Timeout
	if opts.MaxTotalTimeout > 0 && opts.ResetTimeoutOnProgress {
		d = opts.MaxTotalTimeout
	}
	if d == 0 {
		d = c.cfg.Limits.RequestTimeout
	}
	if d == 0 {
		d = transport.DefaultRequestTimeout
	}
	if d < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, callerr.NewTimeout(&callerr.Error{Server: c.name, Method: messages.MethodToolsCall, After: d}))
}

// awaitRoundTask goes on from a 2026-07-28 tools/call the server answered
// with a task: the task is awaited within the call's timeout and its
// result decoded into out, as if the call had been answered with it.
// A caller that asked for the task itself (StartToolTask) gets it as it
// came.
func (c *Client) awaitRoundTask(ctx context.Context, method string, res json.RawMessage, out any, opts *transport.RequestOptions) error {
	if a, ok := out.(*taskAnswer); ok {
		a.raw = res
		return nil
	}
	if method != messages.MethodToolsCall {
		return c.invalid(method, errors.New("a task is only an answer to tools/call"), res)
	}
	t, err := c.decodeTask(method, res)
	if err != nil {
		return err
	}
	result, err := c.awaitOwnTask(ctx, t.TaskID, opts)
	if err != nil {
		return err
	}
	if tc, ok := out.(*toolCall); ok {
		tc.res = result
		return nil
	}
	b, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return decodeResult(b, out)
}

// taskTools is which tools of a session-protocol server must run as tasks
// (execution.taskSupport "required"), as the last tools/list read said.
// Only a server that declared tasks for tools/call has one: the others'
// calls never look.
type taskTools struct {
	required atomic.Pointer[map[string]bool] // nil until a list is read
}

func newTaskTools(caps messages.ServerCapabilities) *taskTools {
	if !serverTasksToolCalls(caps) {
		return nil
	}
	return &taskTools{}
}

// noteTaskTools gathers a page of tools' required tasks into acc and,
// on the last page, makes them the session's.
func (c *Client) noteTaskTools(tools []messages.Tool, acc map[string]bool, last bool) map[string]bool {
	s := c.gen.Load().established()
	if s == nil || s.taskTools == nil {
		return acc
	}
	if acc == nil {
		acc = map[string]bool{}
	}
	for _, t := range tools {
		if t.Execution != nil && t.Execution.TaskSupport == messages.TaskSupportRequired {
			acc[t.Name] = true
		}
	}
	if last {
		s.taskTools.required.Store(&acc)
	}
	return acc
}

// runsAsTask reports whether the tool name of session s must run as a
// task, reading the tools once if they have not been read: a server that
// refuses such a call made plainly may say so only in the tool's result.
func (c *Client) runsAsTask(ctx context.Context, s *session, name string) bool {
	m := s.taskTools.required.Load()
	if m == nil {
		// The read is the runtime's own work, not the call's: a trace of
		// its own (an INTERNAL refresh span), so that the call's trace
		// holds the call alone, as every other call's does.
		lctx, op := c.StartTask(trace.ContextWithSpanContext(ctx, trace.SpanContext{}), telemetry.TaskRefresh, learnTaskTools)
		_, err := c.ListTools(lctx)
		op.End(err, false)
		if err != nil {
			return false
		}
		if m = s.taskTools.required.Load(); m == nil {
			return false
		}
	}
	return (*m)[name]
}

// learnTaskTools is the reason of the refresh that reads a server's tools
// to learn which must run as tasks.
const learnTaskTools = "the first call of a server with tasks: which tools must run as tasks"

// awaitOwnTask awaits a task the runtime made for a call whose caller
// never saw it, within the call's timeout. If the wait ends first, the
// task is cancelled: nobody else knows its id to cancel it or to fetch
// its result, and a server should not work on for nobody.
func (c *Client) awaitOwnTask(ctx context.Context, id string, opts *transport.RequestOptions) (*messages.CallToolResult, error) {
	wctx, cancel := c.taskWait(ctx, opts)
	defer cancel()
	res, err := c.AwaitTask(wctx, id, nil)
	if err != nil && wctx.Err() != nil {
		cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), abandonTimeout)
		if cerr := c.CancelTask(cctx, id); cerr != nil {
			c.logger().Debug("mcp: cancel of an abandoned task failed", "server", c.name, "task", id, "err", cerr)
		}
		stop()
	}
	return res, err
}

// abandonTimeout bounds the tasks/cancel of a task its call gave up on.
const abandonTimeout = 5 * time.Second

// withTasks is caps with the tasks extension declared: the client handles
// a task answer to any tools/call (awaiting it when the caller did not
// ask for it), so it declares the extension on every 2026-07-28 request.
// The user's extensions are kept; the map is a copy.
func withTasks(caps messages.ClientCapabilities) messages.ClientCapabilities {
	ext := make(map[string]any, len(caps.Extensions)+1)
	for k, v := range caps.Extensions {
		ext[k] = v
	}
	if _, ok := ext[messages.ExtensionTasks]; !ok {
		ext[messages.ExtensionTasks] = struct{}{}
	}
	caps.Extensions = ext
	return caps
}
