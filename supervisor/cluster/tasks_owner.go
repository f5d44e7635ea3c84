package cluster

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/actors"
	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/messages"
)

// The owner's side of the task methods (tasks.go): each runs on the
// identity's server through the member's manager, which finds the
// server's client of the moment, so a task outlives a restart of the
// server's connection by the manager as well as a change of owner.

// errRoundOver ends a round of methodAwaitTask on the owner.
var errRoundOver = errors.New("cluster: await round over")

// invokeTask runs one of the task methods on act's server; ok is false
// for any other method.
func (m *Member) invokeTask(ctx context.Context, act *activation, req *request) (v any, ok bool, err error) {
	ref := mcpactor.TaskRef{Server: act.name, ID: req.Name}
	switch req.Method {
	case methodStartTask:
		var opts mcpactor.CallOptions
		if opts, err = req.callOptions(); err == nil {
			v, err = m.startTask(ctx, act, req.Name, req.toolArgs(), opts)
		}
	case methodGetTask:
		v, err = m.mgr.Task(ctx, ref)
	case methodCancelTask:
		err = m.mgr.CancelTask(ctx, ref)
		v = struct{}{}
	case methodAwaitTask:
		v, err = m.awaitTaskRound(ctx, ref, req)
	case methodListTasks:
		v, err = listTasks(ctx, act.client)
	default:
		return nil, false, nil
	}
	return v, true, err
}

// startTask is the task form of callTool (owned.go): the tool is called
// through the manager under the name it offers it, or on the server's
// client while the manager has no listing of it yet, and refused as the
// manager refuses it when the configuration leaves it out.
func (m *Member) startTask(ctx context.Context, act *activation, tool string, args any, opts mcpactor.CallOptions) (taskStart, error) {
	if !act.offers(tool) {
		return taskStart{}, callerr.NewUnknownTool(&callerr.Error{Tool: tool})
	}
	for _, fresh := range []bool{false, true} {
		exposed, ok := m.exposedName(act, tool, fresh)
		if !ok {
			continue
		}
		ref, res, err := m.mgr.StartToolTask(ctx, exposed, args, opts)
		if callerr.UnknownTool(err) != nil {
			continue // renamed or gone meanwhile: read the names again
		}
		if err != nil {
			return taskStart{}, err
		}
		if ref != nil {
			return taskStart{ID: ref.ID}, nil
		}
		return taskStart{Result: res}, nil
	}
	t, res, err := act.client.StartToolTask(ctx, tool, args, opts)
	if err != nil {
		return taskStart{}, err
	}
	if t != nil {
		return taskStart{ID: t.TaskID}, nil
	}
	return taskStart{Result: res}, nil
}

// awaitTaskRound waits for the task, within the round the caller asked
// for (req.CallTimeout), until it ends or its status differs from what
// the caller last heard (req.Args, a taskSeen): the task as last seen,
// and its result if it completed. A round cut short, by its own bound or
// by the owner's (Config.MaxServeTimeout, the member stopping), is a
// task that goes on, not an error: the caller starts another round.
func (m *Member) awaitTaskRound(ctx context.Context, ref mcpactor.TaskRef, req *request) (taskRound, error) {
	var seen taskSeen
	if len(req.Args) > 0 {
		if err := json.Unmarshal(req.Args, &seen); err != nil {
			return taskRound{}, err
		}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if req.CallTimeout > 0 {
		var stop context.CancelFunc
		wctx, stop = context.WithTimeoutCause(wctx, req.CallTimeout, errRoundOver)
		defer stop()
	}
	var last *messages.Task
	res, err := m.mgr.AwaitTask(wctx, ref, func(t messages.Task) {
		last = &t
		// A change that does not end the task ends the round, so that
		// the caller hears it now; an end is awaited to its result.
		if !t.Status.Terminal() && (t.Status != seen.Status || t.StatusMessage != seen.Message) {
			cancel(errRoundOver)
		}
	})
	if err != nil {
		if wctx.Err() != nil {
			return taskRound{Task: last}, nil
		}
		return taskRound{}, err
	}
	return taskRound{Task: last, Done: true, Result: res}, nil
}

// listTasks lists the tasks of c's server if it declared tasks/list,
// and none otherwise, as the Manager's ListTasks leaves such a server
// out.
func listTasks(ctx context.Context, c *mcpactor.Client) ([]messages.Task, error) {
	caps := c.Capabilities()
	if len(caps.Tasks) == 0 || !actors.TasksCapability(caps).List {
		return []messages.Task{}, nil
	}
	return c.ListTasks(ctx)
}
