package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// Tasks across members (docs/cluster.md, "Tasks"). A task is the
// server's: it lives in the server, and the member that owns the
// identity only relays to it, so a task is named by its identity and its
// id (TaskRef), never by a member. Any member polls, awaits or cancels it
// by that name, over the hop to the identity's owner of the moment, as
// it calls tools; when the owner is lost, its successor's client asks
// the same server, which still knows the task when it keeps its tasks
// beyond one connection (a 2026-07-28 server over HTTP: no session).
//
// The task methods of the MCP revisions
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks,
// https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html)
// run on the owner, through its manager (mcpactor.Manager's task
// methods): input a task asks for is answered there, by the owner
// runtime's Handlers.

// TaskRef names a task of a server of the cluster: the identity it was
// started on (Server as configured, and the Tenant, "" for the shared
// session) and the task's id. It encodes as JSON ({"server":...,
// "tenant":...,"id":...}, the tenant left out when ""), so that a caller
// can keep it and await the task later through any member; a shared
// session's reference reads as an mcpactor.TaskRef's.
type TaskRef struct {
	Server string `json:"server"`
	Tenant string `json:"tenant,omitempty"`
	ID     string `json:"id"`
}

// Identity is the session the task belongs to.
func (r TaskRef) Identity() Identity { return Identity{Server: r.Server, Tenant: r.Tenant} }

// ErrTaskTenant: a task reference names another tenant's task than the
// tenant whose sessions the value calls (see TaskTenantError).
var ErrTaskTenant = errors.New("cluster: task of another tenant")

// TaskTenantError refuses a task reference of another tenant: an
// Exposed value acts on its own tenant's tasks only, as it calls only
// that tenant's sessions. Use Member.As(Ref.Tenant).Exposed() for the
// task's own tenant. It matches ErrTaskTenant.
type TaskTenantError struct {
	Ref    TaskRef
	Tenant string // the value's tenant
	Member string // the calling member
}

func (e *TaskTenantError) Error() string {
	return fmt.Sprintf("cluster: task %q of %s: member %s: the value calls tenant %q's sessions, not %q's",
		e.Ref.ID, e.Ref.Identity(), e.Member, e.Tenant, e.Ref.Tenant)
}

func (e *TaskTenantError) Is(target error) bool { return target == ErrTaskTenant }

// taskStart is the owner's answer to methodStartTask: the task's id, or
// the result when the server answered at once.
type taskStart struct {
	ID     string                   `json:"id,omitempty"`
	Result *messages.CallToolResult `json:"result,omitempty"`
}

// taskRound is the owner's answer to one round of methodAwaitTask: the
// task as last seen, and its result once it completed (Done).
type taskRound struct {
	Task   *messages.Task           `json:"task,omitempty"`
	Done   bool                     `json:"done,omitempty"`
	Result *messages.CallToolResult `json:"result,omitempty"`
}

// taskSeen is what the caller last heard of a task, sent with each round
// of methodAwaitTask (in the request's Args): the owner ends the round
// as soon as it sees anything else, so that onStatus hears each change
// when it happens.
type taskSeen struct {
	Status  messages.TaskStatus `json:"status,omitempty"`
	Message string              `json:"message,omitempty"`
}

// awaitRound bounds one round of AwaitTask: the owner waits this long at
// most before it answers that the task goes on, so that a wait is never
// one hop longer than the owner may serve (Config.MaxServeTimeout), and
// a lost owner is noticed by the caller's next round, if not sooner.
const awaitRound = 10 * time.Second

// StartToolTask calls a tool by its exposed name so that its server may
// run it as a task, as the Manager's StartToolTask does: the task's
// reference when the server made one, else the result. Options are
// carried as CallToolWith carries them, but OnProgress is refused with
// *ProgressNotCarriedError: the task's progress goes on after the start
// returns, and the hop carries progress only until a response. A
// member lost during the call ends it with *MemberLostError, as a
// tools/call: the task may have been made.
func (e Exposed) StartToolTask(ctx context.Context, exposed string, args any, opts mcpactor.CallOptions) (*TaskRef, *messages.CallToolResult, error) {
	m := e.t.m
	if opts.OnProgress != nil {
		return nil, nil, &ProgressNotCarriedError{Tool: exposed, Member: m.cfg.Name}
	}
	pair, err := e.resolve(ctx, exposed)
	if err != nil {
		return nil, nil, err
	}
	req := &request{Server: pair.Server, Tenant: e.t.tenant, Method: methodStartTask, Name: pair.Tool}
	if err := req.setCallOptions(opts); err != nil {
		return nil, nil, fmt.Errorf("cluster: %s tools/call %s: member %s: %w", req.identity(), pair.Tool, m.cfg.Name, err)
	}
	if args != nil {
		if req.Args, err = json.Marshal(args); err != nil {
			return nil, nil, fmt.Errorf("cluster: %s tools/call %s: member %s: encode arguments: %w", req.identity(), pair.Tool, m.cfg.Name, err)
		}
	}
	var out taskStart
	if err := e.t.run(ctx, req, &out); err != nil {
		return nil, nil, err
	}
	if out.ID == "" {
		if out.Result == nil {
			out.Result = &messages.CallToolResult{}
		}
		return nil, out.Result, nil
	}
	return &TaskRef{Server: pair.Server, Tenant: e.t.tenant, ID: out.ID}, nil, nil
}

// Task returns the server's account of the task ref names (tasks/get),
// asked through the identity's owner, wherever it is.
func (e Exposed) Task(ctx context.Context, ref TaskRef) (*messages.Task, error) {
	if err := e.ownTask(ref); err != nil {
		return nil, err
	}
	var t messages.Task
	if err := e.t.run(ctx, &request{Server: ref.Server, Tenant: ref.Tenant, Method: methodGetTask, Name: ref.ID}, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// CancelTask asks the server to cancel the task ref names (tasks/cancel)
// through the identity's owner. The server decides: the task may still
// complete.
func (e Exposed) CancelTask(ctx context.Context, ref TaskRef) error {
	if err := e.ownTask(ref); err != nil {
		return err
	}
	var out json.RawMessage
	return e.t.run(ctx, &request{Server: ref.Server, Tenant: ref.Tenant, Method: methodCancelTask, Name: ref.ID}, &out)
}

// AwaitTask waits until the task ref names ends and returns its result,
// as the Manager's AwaitTask does: a task that failed or was cancelled
// ends it with *mcpactor.TaskError (the same fields as on the owner; its
// Server names the identity). The owner waits in rounds of at most
// awaitRound, each ended early by a change of the task's status, which
// onStatus then hears on the calling goroutine. A round that loses the
// owner (its member killed, stopped or fenced) is sent again to the next
// owner, whose client asks the same server: the wait goes on for as long
// as ctx allows, and ends with the server's error if the server does not
// know the task any more (a stdio server that died with its member).
// Without a deadline in ctx, only ctx's cancellation ends the wait.
func (e Exposed) AwaitTask(ctx context.Context, ref TaskRef, onStatus func(messages.Task)) (*messages.CallToolResult, error) {
	if err := e.ownTask(ref); err != nil {
		return nil, err
	}
	var seen taskSeen
	for {
		round := awaitRound
		if dl, ok := ctx.Deadline(); ok {
			round = min(round, time.Until(dl))
		}
		if round <= 0 {
			return nil, fmt.Errorf("cluster: %s task %q: member %s: %w", ref.Identity(), ref.ID, e.t.m.cfg.Name, context.DeadlineExceeded)
		}
		args, _ := json.Marshal(seen)
		req := &request{Server: ref.Server, Tenant: ref.Tenant, Method: methodAwaitTask, Name: ref.ID, Args: args, CallTimeout: round}
		rctx, cancel := context.WithTimeout(ctx, round+callGrace)
		var out taskRound
		err := e.t.run(rctx, req, &out)
		cancel()
		if err != nil {
			if ctx.Err() == nil && rctx.Err() != nil && routing(err) {
				continue // the owner was lost or moving all round: the next one
			}
			return nil, err
		}
		if t := out.Task; t != nil && (t.Status != seen.Status || t.StatusMessage != seen.Message) {
			seen = taskSeen{Status: t.Status, Message: t.StatusMessage}
			if onStatus != nil {
				onStatus(*t)
			}
		}
		if out.Done {
			if out.Result == nil {
				out.Result = &messages.CallToolResult{}
			}
			return out.Result, nil
		}
	}
}

// routing reports whether err is the hop's, not the task's: no owner
// answered (lost, moving, none yet) before the round's deadline.
func routing(err error) bool {
	return errors.Is(err, ErrMemberLost) || errors.Is(err, ErrNotOwner) || errors.Is(err, ErrNoMember) ||
		errors.Is(err, context.DeadlineExceeded)
}

// ListTasks lists the tasks of the value's tenant's sessions that have a
// live owner now and whose server lists tasks (tasks/list: the
// 2025-11-25 servers that declared it; the 2026-07-28 extension has
// none), sorted by server, as the Manager's ListTasks lists its ready
// servers'. No session is started for it. A server whose list failed is
// left out, its error joined to the one returned with the rest. A
// listed task's reference is TaskRef{Server, the value's tenant, ID}.
func (e Exposed) ListTasks(ctx context.Context) ([]mcpactor.ServerTask, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		out  []mcpactor.ServerTask
		errs []error
	)
	for server := range e.t.m.cfg.Servers {
		if !e.ownerLive(server) {
			continue
		}
		wg.Go(func() {
			var tasks []messages.Task
			err := e.t.run(ctx, &request{Server: server, Tenant: e.t.tenant, Method: methodListTasks}, &tasks)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for _, t := range tasks {
				out = append(out, mcpactor.ServerTask{Server: server, Task: t})
			}
		})
	}
	wg.Wait()
	slices.SortStableFunc(out, func(a, b mcpactor.ServerTask) int { return strings.Compare(a.Server, b.Server) })
	return out, joinSorted(errs)
}

// ownTask refuses a reference to another tenant's task, or to a server
// the configuration does not have.
func (e Exposed) ownTask(ref TaskRef) error {
	m := e.t.m
	if ref.Tenant != e.t.tenant {
		return &TaskTenantError{Ref: ref, Tenant: e.t.tenant, Member: m.cfg.Name}
	}
	if _, ok := m.cfg.Servers[ref.Server]; !ok {
		return &UnknownServerError{Server: ref.Server, Member: m.cfg.Name, Method: "tasks"}
	}
	return nil
}
