package mcpactor

import (
	"context"

	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/supervisor"
)

// TaskRef names a task of a managed server: its server's name (Server)
// and the task's id (ID). It encodes as JSON ({"server":...,"id":...}), so that a
// caller can keep it and await the task later, from another Manager too.
type TaskRef = supervisor.TaskRef

// ServerTask is a task as Manager.ListTasks lists it: its Server and the
// server's account of it (messages.Task).
type ServerTask = supervisor.ServerTask

// StartToolTask calls a tool by its exposed name so that its server may
// run it as a task (Client.StartToolTask): the task's reference when the
// server made one, else the result. The task is the caller's to await
// (AwaitTask) or cancel (CancelTask).
func (m *Manager) StartToolTask(ctx context.Context, exposed string, args any, opts CallOptions) (*TaskRef, *messages.CallToolResult, error) {
	return m.m.StartToolTask(ctx, exposed, args, opts)
}

// Task returns the server's account of the task ref names (tasks/get).
func (m *Manager) Task(ctx context.Context, ref TaskRef) (*messages.Task, error) {
	return m.m.Task(ctx, ref)
}

// AwaitTask waits until the task ref names ends and returns its result,
// as Client.AwaitTask does. The wait outlives a restart or reconnection
// of the server's connection (it goes on with the next one), bounded by
// ctx.
func (m *Manager) AwaitTask(ctx context.Context, ref TaskRef, onStatus func(messages.Task)) (*messages.CallToolResult, error) {
	return m.m.AwaitTask(ctx, ref, onStatus)
}

// CancelTask asks the server to cancel the task ref names (tasks/cancel).
func (m *Manager) CancelTask(ctx context.Context, ref TaskRef) error {
	return m.m.CancelTask(ctx, ref)
}

// ListTasks lists the tasks of every ready server that lists them
// (tasks/list, 2025-11-25; the 2026-07-28 extension has no list), sorted
// by server. The servers whose list failed are left out and their errors
// joined in the error returned with the rest.
func (m *Manager) ListTasks(ctx context.Context) ([]ServerTask, error) {
	return m.m.ListTasks(ctx)
}
