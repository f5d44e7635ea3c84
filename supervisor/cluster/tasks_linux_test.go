//go:build linux

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// taskServer is the name of the test kit's task server in a cluster
// whose memberSpec sets TaskURL: a 2026-07-28 server over HTTP, which
// keeps its tasks in its own process, whoever asks
// (https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html).
const taskServer = "tasks"

// taskTools serves the task tools of these tests: "work" runs until
// release is closed, "broken" fails, "forever" runs until cancelled.
func taskTools(release <-chan struct{}) *mcptest.Server {
	return &mcptest.Server{Stateless: true, Tools: []mcptest.Tool{
		{Name: "work", Task: true, Handler: func(ctx context.Context, _ *mcptest.Call) (*messages.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &messages.CallToolResult{Content: []messages.Content{{Type: messages.ContentTypeText, Text: "worked"}}}, nil
		}},
		{Name: "broken", Task: true, Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
			return nil, &mcptest.RPCError{Code: -32603, Message: "the disk is full"}
		}},
		{Name: "forever", Task: true, Handler: func(ctx context.Context, _ *mcptest.Call) (*messages.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
	}}
}

// taskCluster starts the task server and n members that reach it.
func taskCluster(t *testing.T, n int, ttl time.Duration) (c *testCluster, srv *mcptest.Server, finish func()) {
	t.Helper()
	release := make(chan struct{})
	srv = taskTools(release)
	h := srv.StartHTTP()
	var once sync.Once
	finish = func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() {
		finish()
		h.Close()
		srv.Close()
	})
	return newClusterWith(t, etcdFor(t), n, memberSpec{TTL: ttl, TaskURL: h.URL}), srv, finish
}

// taskControl runs the "task-start" and "task-await" controls on a member
// child: the first starts c.Tool of c.Server by its exposed name and
// answers the task's reference as JSON, the second awaits the task whose
// reference is c.Args and answers its result's text, after the statuses
// it heard ("working|...|=worked").
func taskControl(ctx context.Context, m *Member, c control) (member, text string, err error) {
	e := m.As(c.Tenant).Exposed()
	switch c.Op {
	case "task-start":
		var args any
		if len(c.Args) > 0 {
			args = c.Args
		}
		ref, res, err := e.StartToolTask(ctx, "mcp__"+c.Server+"__"+c.Tool, args, mcpactor.CallOptions{})
		if err != nil {
			return m.Name(), "", err
		}
		if ref == nil {
			return m.Name(), "", errors.New("no task: the server answered at once: " + resultText(res))
		}
		b, err := json.Marshal(ref)
		return m.Name(), string(b), err
	default:
		var ref TaskRef
		if err := json.Unmarshal(c.Args, &ref); err != nil {
			return m.Name(), "", err
		}
		var statuses []string
		res, err := e.AwaitTask(ctx, ref, func(t messages.Task) { statuses = append(statuses, string(t.Status)) })
		if err != nil {
			return m.Name(), "", err
		}
		return m.Name(), strings.Join(statuses, "|") + "=" + resultText(res), nil
	}
}

func resultText(res *messages.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].Text
}

// TestTaskSurvivesOwnerKill: a task started through member A, whose
// identity member B owns, is awaited through member C; B is killed with
// SIGKILL while C's wait is in flight on it, and the wait goes on with
// the next owner, whose client polls the same HTTP server, and returns
// the task's result. The reference crosses as JSON, as a caller would
// keep it.
func TestTaskSurvivesOwnerKill(t *testing.T) {
	const ttl = 2 * time.Second
	c, srv, finish := taskCluster(t, 3, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	before := c.info(ctx, taskServer)
	var a, b, cc *memberProc
	for _, p := range c.members {
		switch {
		case p.name == before.Member:
			b = p
		case a == nil:
			a = p
		default:
			cc = p
		}
	}
	if b == nil {
		t.Fatalf("the owner %q is not a member child", before.Member)
	}
	started := a.do(control{Op: "task-start", Server: taskServer, Tool: "work"})
	if started.Err != "" {
		t.Fatalf("task-start through %s: %s", a.name, started.Err)
	}
	var ref TaskRef
	if err := json.Unmarshal([]byte(started.Text), &ref); err != nil || ref.Server != taskServer || ref.Tenant != "" || ref.ID == "" {
		t.Fatalf("reference %s (%v); want server %q, the shared session, an id", started.Text, err, taskServer)
	}
	polls := func() int { return countMethod(srv.Methods(), messages.MethodTasksGet) }
	awaited := make(chan controlReply, 1)
	go func() { awaited <- cc.do(control{Op: "task-await", Args: json.RawMessage(started.Text)}) }()
	c.eventually("the owner polling the task for C's wait", func() bool { return polls() >= 2 })
	b.signal(syscall.SIGKILL)
	killedAt, killed := time.Now(), polls()
	// The next owner's client polls the same server: the task is still
	// working there.
	c.eventually("the next owner polling the task", func() bool { return polls() > killed+1 })
	t.Logf("the task polled again %v after the owner's kill (lease TTL %v)", time.Since(killedAt).Round(time.Millisecond), ttl)
	finish()
	r := <-awaited
	if r.Err != "" {
		t.Fatalf("await through %s after %s was killed: %s", cc.name, b.name, r.Err)
	}
	statuses, text, _ := strings.Cut(r.Text, "=")
	if text != "worked" {
		t.Fatalf("await through %s = %q, want the task's result", cc.name, r.Text)
	}
	if seen := strings.Split(statuses, "|"); seen[0] != string(messages.TaskWorking) || seen[len(seen)-1] != string(messages.TaskCompleted) {
		t.Errorf("statuses heard %v; want working first, completed last", seen)
	}
	after := c.info(ctx, taskServer)
	if after.Member == b.name || after.Generation <= before.Generation {
		t.Errorf("owner after the kill %s (generation %d); want another than %s (generation %d)", after.Member, after.Generation, b.name, before.Generation)
	}
	if n := countMethod(srv.Methods(), messages.MethodToolsCall); n != 1 {
		t.Errorf("tools/call reached the server %d times, want once (the task is not started again)", n)
	}
}

// TestTaskErrorsAcrossTheHop: through a member that does not own the
// task server's identity, a failed task ends AwaitTask with
// *mcpactor.TaskError carrying the owner's fields (its Server the
// configured name) and its JSON-RPC cause; CancelTask reaches the
// server, and the cancelled task's await says so; Task polls; a
// reference of another tenant is refused before it is sent; the
// 2026-07-28 server lists no tasks.
func TestTaskErrorsAcrossTheHop(t *testing.T) {
	c, _, _ := taskCluster(t, 2, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	e := c.driver.Exposed()

	ref, res, err := e.StartToolTask(ctx, "mcp__tasks__broken", nil, mcpactor.CallOptions{})
	if err != nil || ref == nil || res != nil {
		t.Fatalf("StartToolTask = %+v, %+v, %v; want a task", ref, res, err)
	}
	_, err = e.AwaitTask(ctx, *ref, nil)
	var te *mcpactor.TaskError
	if !errors.As(err, &te) {
		t.Fatalf("AwaitTask of a failed task = %v (%T); want *mcpactor.TaskError", err, err)
	}
	if te.Server != taskServer || te.TaskID != ref.ID || te.Status != messages.TaskFailed {
		t.Errorf("TaskError %+v; want server %q, id %q, failed", te, taskServer, ref.ID)
	}
	var rpc *mcpactor.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32603 || rpc.Message != "the disk is full" || rpc.Server != taskServer {
		t.Errorf("the task's cause %+v; want -32603 \"the disk is full\" of %q", rpc, taskServer)
	}
	if strings.Contains(err.Error(), taskServer+".") {
		t.Errorf("error %q names the owner's internal server name", err)
	}

	ref, _, err = e.StartToolTask(ctx, "mcp__tasks__forever", nil, mcpactor.CallOptions{})
	if err != nil || ref == nil {
		t.Fatalf("StartToolTask forever = %+v, %v", ref, err)
	}
	task, err := e.Task(ctx, *ref)
	if err != nil || task.TaskID != ref.ID || task.Status.Terminal() {
		t.Fatalf("Task = %+v, %v; want the working task", task, err)
	}
	if err := e.CancelTask(ctx, *ref); err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	_, err = e.AwaitTask(ctx, *ref, nil)
	if !errors.As(err, &te) || te.Status != messages.TaskCancelled {
		t.Fatalf("AwaitTask of a cancelled task = %v; want *mcpactor.TaskError, cancelled", err)
	}

	if _, err := c.driver.As("bob").Exposed().Task(ctx, *ref); !errors.Is(err, ErrTaskTenant) {
		t.Errorf("another tenant's Task of the shared session's task = %v; want ErrTaskTenant", err)
	}
	tasks, err := e.ListTasks(ctx)
	if err != nil || len(tasks) != 0 {
		t.Errorf("ListTasks = %+v, %v; want none (the 2026-07-28 extension has no list)", tasks, err)
	}
	if _, _, err := e.StartToolTask(ctx, "mcp__tasks__nothing", nil, mcpactor.CallOptions{}); !errors.Is(err, mcpactor.ErrNotFound) {
		t.Errorf("StartToolTask of an unknown tool = %v; want ErrNotFound", err)
	}
}

func countMethod(methods []string, m string) int {
	return len(slices.DeleteFunc(slices.Clone(methods), func(x string) bool { return x != m }))
}
