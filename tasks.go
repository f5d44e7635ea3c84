package mcpactor

import (
	"context"

	"github.com/mcpactor/mcpactor/messages"
)

// Tasks let a tool call outlive the request that started it: the server
// answers with a task, the client polls it and fetches its result later
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
// in the session era; the tasks extension
// https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html
// in the 2026-07-28 era). One API serves both.
//
// CallTool needs none of this: a tool that must run as a task, or a
// 2026-07-28 server that chooses to answer with one, is awaited within
// the call's timeout and its result returned as a plain call's. Use
// StartToolTask when the work may outlive its caller: keep the task id
// (with the server's name it is all a later AwaitTask needs, in this
// process or, for a server that keeps its tasks, in the next one).

// TaskError is how a task that failed or was cancelled ends AwaitTask; a
// failed task's Err is its JSON-RPC error (*RPCError).
type TaskError = messages.TaskError

// StartToolTask calls the tool name with args so that the server may run
// it as a task. It returns the task when the server made one (poll it
// with Task, wait for it with AwaitTask), or the result when the server
// answered at once (a tool or server without tasks, or a server that
// chose not to make one).
func (c *Client) StartToolTask(ctx context.Context, name string, args any, opts CallOptions) (*messages.Task, *messages.CallToolResult, error) {
	return c.h.StartToolTask(ctx, name, args, opts)
}

// Task returns the server's account of task id (tasks/get).
func (c *Client) Task(ctx context.Context, id string) (*messages.Task, error) {
	return c.h.GetTask(ctx, id)
}

// AwaitTask waits until task id ends and returns its result, polling at
// the interval the server asks for and answering the input the task asks
// for with the runtime's Handlers. onStatus, when not nil, hears each
// status change (and status message) on the calling goroutine: the
// task's progress. A task that failed or was cancelled ends with
// *TaskError. Only ctx bounds the wait; the task goes on at the server
// when it ends (CancelTask stops it).
func (c *Client) AwaitTask(ctx context.Context, id string, onStatus func(messages.Task)) (*messages.CallToolResult, error) {
	return c.h.AwaitTask(ctx, id, onStatus)
}

// CancelTask asks the server to cancel task id (tasks/cancel). The server
// decides: the task may still complete.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	return c.h.CancelTask(ctx, id)
}

// ListTasks returns the tasks the server lists (tasks/list, 2025-11-25).
// The 2026-07-28 tasks extension has no list: there it fails with
// ErrUnsupported *Error.
func (c *Client) ListTasks(ctx context.Context) ([]messages.Task, error) {
	return c.h.ListTasks(ctx)
}
