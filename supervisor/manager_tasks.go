package supervisor

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/errkind"
	"github.com/mcpactor/mcpactor/messages"
)

// Tasks across the manager's servers. A task is named by its server and
// its id (TaskRef), never by a client: each use finds the server's
// client of the moment, so a task outlives a reconnection or a restart
// of its server's connection whenever the server keeps it (a 2026-07-28
// server keeps no session; a session-era server may tie its tasks to the
// session it made them in, and then answers that it does not know the
// id, which is the server's error to tell).

// TaskRef names a task of a managed server. It encodes as JSON, so that
// a caller can keep it (in a database, a job queue) and await the task
// later, from another Manager as well.
type TaskRef struct {
	Server string `json:"server"`
	ID     string `json:"id"`
}

// ServerTask is a task as the manager lists it: the server's account of
// it, and which server.
type ServerTask struct {
	Server string
	messages.Task
}

// StartToolTask calls a tool by its exposed name so that its server may
// run it as a task (actors.Client.StartToolTask): the task's reference
// when the server made one, else the result.
func (m *Manager) StartToolTask(ctx context.Context, exposed string, args any, call actors.Call) (*TaskRef, *messages.CallToolResult, error) {
	ref, err := m.route(ctx, exposed, messages.MethodToolsCall)
	if err != nil {
		return nil, nil, err
	}
	start := time.Now()
	t, res, err := ref.client.StartToolTask(ctx, ref.tool, args, call)
	m.observe(ref.server, ref.health, err)
	if err = m.waitedOut(ctx, err, ref.server, messages.MethodToolsCall, start); err != nil {
		return nil, nil, err
	}
	if t == nil {
		return nil, res, nil
	}
	return &TaskRef{Server: ref.server, ID: t.TaskID}, nil, nil
}

// Task returns the server's account of the task ref names (tasks/get).
func (m *Manager) Task(ctx context.Context, ref TaskRef) (*messages.Task, error) {
	var t *messages.Task
	err := m.onTaskServer(ctx, ref.Server, messages.MethodTasksGet, func(c *actors.Client) (err error) {
		t, err = c.GetTask(ctx, ref.ID)
		return err
	})
	return t, err
}

// AwaitTask waits until the task ref names ends and returns its result
// (actors.Client.AwaitTask). A wait that loses the server's connection
// (a restart, a reconnection) goes on with the next one, bounded by ctx.
func (m *Manager) AwaitTask(ctx context.Context, ref TaskRef, onStatus func(messages.Task)) (*messages.CallToolResult, error) {
	for {
		var res *messages.CallToolResult
		err := m.onTaskServer(ctx, ref.Server, messages.MethodTasksGet, func(c *actors.Client) (err error) {
			res, err = c.AwaitTask(ctx, ref.ID, onStatus)
			return err
		})
		if err == nil || ctx.Err() != nil || !connectionLost(err) {
			return res, err
		}
	}
}

// connectionLost reports whether err ended a wait because its server's
// connection went away, not because of the task.
func connectionLost(err error) bool {
	return errors.Is(err, errkind.ErrTransportClosed)
}

// CancelTask asks the server to cancel the task ref names (tasks/cancel).
func (m *Manager) CancelTask(ctx context.Context, ref TaskRef) error {
	return m.onTaskServer(ctx, ref.Server, messages.MethodTasksCancel, func(c *actors.Client) error {
		return c.CancelTask(ctx, ref.ID)
	})
}

// ListTasks lists the tasks of every ready server that lists them
// (tasks/list: the 2025-11-25 servers that declared it), sorted by
// server. A server whose list fails is left out, its error joined to the
// one returned with the rest.
func (m *Manager) ListTasks(ctx context.Context) ([]ServerTask, error) {
	if m.closed.Load() {
		return nil, callerr.NewManagerClosed()
	}
	var out []ServerTask
	var errs []error
	for _, v := range m.servers() {
		c := v.client
		if c == nil || !listsTasks(c.Capabilities()) {
			continue
		}
		tasks, err := c.ListTasks(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, t := range tasks {
			out = append(out, ServerTask{Server: v.srv.Name, Task: t})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out, errors.Join(errs...)
}

// listsTasks reports whether a server declared tasks/list
// (capabilities.tasks.list, 2025-11-25).
func listsTasks(caps messages.ServerCapabilities) bool {
	return len(caps.Tasks) > 0 && actors.TasksCapability(caps).List
}

// onTaskServer runs f with the client of server once it can take a
// request, as a call by server name does (serverClient).
func (m *Manager) onTaskServer(ctx context.Context, server, method string, f func(*actors.Client) error) error {
	if m.closed.Load() {
		return callerr.NewManagerClosed()
	}
	s := m.snap.Load()
	start := time.Now()
	c, err := m.serverClient(ctx, s, server, method)
	if err != nil {
		return err
	}
	err = f(c)
	return m.waitedOut(ctx, err, server, method, start)
}
