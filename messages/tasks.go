package messages

import (
	"encoding/json"
	"strconv"
	"time"
)

// Tasks come in two shapes on the wire, one per protocol:
//   - 2025-11-25: a client asks for a task by adding "task" to a
//     tools/call's params; the server answers {"task": Task}; tasks/get
//     polls, tasks/result fetches the result (blocking until the task
//     ends), tasks/list and tasks/cancel exist
//     (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
//   - 2026-07-28: the tasks extension (ExtensionTasks). The client
//     declares it; the server decides per request and answers with
//     resultType "task" and the Task's members inline; tasks/get carries
//     the result, the error or the input the server needs; tasks/update
//     answers that input; there is no tasks/result and no tasks/list
//     (https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html).
//
// Task holds both shapes' members; Status, TTL and PollEvery read them
// whichever protocol sent them.

// ExtensionTasks is the tasks extension's identifier, declared in the
// extensions of both sides' capabilities (2026-07-28).
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ResultTypeTask is the resultType of a CreateTaskResult (tasks extension,
// 2026-07-28).
const ResultTypeTask = "task"

// MethodTasksUpdate answers a task's input requests (tasks extension,
// 2026-07-28).
const MethodTasksUpdate = "tasks/update"

// The values of a tool's execution.taskSupport (2025-11-25); absent means
// forbidden.
const (
	TaskSupportForbidden = "forbidden"
	TaskSupportOptional  = "optional"
	TaskSupportRequired  = "required"
)

// TaskStatus is where a task is in its life.
type TaskStatus string

// The statuses of a task; the last three are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether a task with status s has ended.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is a server's account of one task.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps.
	CreatedAt     string `json:"createdAt,omitempty"`
	LastUpdatedAt string `json:"lastUpdatedAt,omitempty"`
	// TTLMillis (2025-11-25 "ttl") and TTLMs (2026-07-28 "ttlMs") are how
	// long the server keeps the task from its creation, in milliseconds;
	// null or absent: no limit.
	TTLMillis *int64 `json:"ttl,omitempty"`
	TTLMs     *int64 `json:"ttlMs,omitempty"`
	// PollInterval (2025-11-25) and PollIntervalMs (2026-07-28) are how
	// often the server would like to be polled, in milliseconds.
	PollInterval   *int64 `json:"pollInterval,omitempty"`
	PollIntervalMs *int64 `json:"pollIntervalMs,omitempty"`

	// The members below are the 2026-07-28 extension's, in tasks/get
	// results and notifications/tasks.

	// Result is a completed task's result, shaped as the original
	// request's (a CallToolResult for tools/call).
	Result json.RawMessage `json:"result,omitempty"`
	// Error is a failed task's JSON-RPC error.
	Error *Error `json:"error,omitempty"`
	// InputRequests are the requests the server needs answered (status
	// input_required), by key.
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
}

// TTL is how long the server keeps the task from its creation; 0 means no
// limit was given.
func (t *Task) TTL() time.Duration {
	if v := first(t.TTLMs, t.TTLMillis); v != nil && *v > 0 {
		return time.Duration(*v) * time.Millisecond
	}
	return 0
}

// PollEvery is the polling interval the server asked for; 0 when it gave
// none.
func (t *Task) PollEvery() time.Duration {
	if v := first(t.PollIntervalMs, t.PollInterval); v != nil && *v > 0 {
		return time.Duration(*v) * time.Millisecond
	}
	return 0
}

func first(a, b *int64) *int64 {
	if a != nil {
		return a
	}
	return b
}

// TaskRequest is the "task" member of a 2025-11-25 request that asks to
// run as a task.
type TaskRequest struct {
	// TTL is the requested lifetime in milliseconds; nil lets the server
	// choose.
	TTL *int64 `json:"ttl,omitempty"`
}

// CallToolTaskParams are a 2025-11-25 tools/call's params asking for a
// task.
type CallToolTaskParams struct {
	Name      string         `json:"name"`
	Arguments any            `json:"arguments,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
	Task      TaskRequest    `json:"task"`
}

// CreateTaskResult is a 2025-11-25 server's answer to a request that
// asked for a task.
type CreateTaskResult struct {
	Task *Task `json:"task"`
}

// TaskIDParams are the params of tasks/get, tasks/result and tasks/cancel.
type TaskIDParams struct {
	TaskID string `json:"taskId"`
}

// UpdateTaskParams are the params of tasks/update (2026-07-28): the
// answers to a task's input requests, by key.
type UpdateTaskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// ListTasksParams are the params of tasks/list (2025-11-25).
type ListTasksParams struct {
	Cursor string `json:"cursor,omitempty"`
}

// ListTasksResult is a page of tasks/list (2025-11-25).
type ListTasksResult struct {
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// TaskError is how a task that did not complete ends a call that awaited
// it: failed (Err is the task's JSON-RPC error, an *RPCError, so that
// errors.Is(err, mcpactor.ErrRPC) holds) or cancelled (Err is context.Canceled:
// errors.Is(err, context.Canceled) holds, as for a request cancelled).
type TaskError struct {
	Server  string
	TaskID  string
	Status  TaskStatus
	Message string // the task's statusMessage
	Err     error
}

// Error reads `MCP server "<server>": task "<id>" <status>: <message>:
// <cause>`, the message and cause only when known (no cause for a
// cancelled task).
func (e *TaskError) Error() string {
	s := "MCP server " + strconv.Quote(e.Server) + ": task " + strconv.Quote(e.TaskID) + " " + string(e.Status)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil && e.Status != TaskCancelled {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns Err: the task's *RPCError when it failed, context.Canceled
// when it was cancelled.
func (e *TaskError) Unwrap() error { return e.Err }
