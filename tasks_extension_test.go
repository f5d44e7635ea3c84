package mcpactor_test

// The tasks extension of the 2026-07-28 era against the test kit's task
// server (mcptest.Tool.Task): the server answers a call with a task, the
// client polls tasks/get, answers input with tasks/update, and cancels
// with tasks/cancel
// (https://modelcontextprotocol.github.io/ext-tasks/specification/draft/tasks.html).

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// taskServer is a 2026-07-28 test kit server whose tools run as tasks.
func taskServer() *mcptest.Server {
	return &mcptest.Server{Stateless: true, Tools: []mcptest.Tool{
		{Name: "slow", Task: true, Handler: func(ctx context.Context, _ *mcptest.Call) (*messages.CallToolResult, error) {
			select {
			case <-time.After(150 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &messages.CallToolResult{Content: []messages.Content{{Type: messages.ContentTypeText, Text: "done slowly"}}}, nil
		}},
		{Name: "ask", Task: true, Handler: func(ctx context.Context, c *mcptest.Call) (*messages.CallToolResult, error) {
			res, err := c.Elicit(ctx, messages.ElicitParams{Message: "which colour?", RequestedSchema: []byte(`{"type":"object","properties":{"colour":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return &messages.CallToolResult{Content: []messages.Content{{Type: messages.ContentTypeText, Text: "colour " + res.Content["colour"].(string)}}}, nil
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

// connectTasks connects srv with cfg as "tasks", from a runtime whose
// elicitation handler answers "teal", and fails t unless the 2026-07-28
// era was negotiated.
func connectTasks(t *testing.T, srv *mcptest.Server, cfg mcpactor.ServerConfig) *mcpactor.Client {
	t.Helper()
	c, _ := connectFake(t, mcpactor.Options{Handlers: mcpactor.Handlers{
		Elicitation: func(_ context.Context, _ string, p *messages.ElicitParams) (*messages.ElicitResult, error) {
			return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"colour": "teal"}}, nil
		},
	}}, srv, "tasks", cfg)
	if c.ProtocolVersion() != messages.Version20260728 {
		t.Fatalf("protocol %s, want %s", c.ProtocolVersion(), messages.Version20260728)
	}
	return c
}

// TestTaskExtensionCallTool: a plain CallTool that the server answers with
// a task returns the task's result; the client declared the extension and
// polled tasks/get.
func TestTaskExtensionCallTool(t *testing.T) {
	srv := taskServer()
	c := connectTasks(t, srv, srv.InProcess())
	res, err := c.CallTool(taskCtx(t), "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resultText(res) != "done slowly" {
		t.Fatalf("result = %q", resultText(res))
	}
	if !slices.Contains(srv.Methods(), messages.MethodTasksGet) {
		t.Errorf("methods = %v; want tasks/get", srv.Methods())
	}
	if _, ok := c.Capabilities().Extensions[messages.ExtensionTasks]; !ok {
		t.Errorf("the server's extensions %v lack %s", c.Capabilities().Extensions, messages.ExtensionTasks)
	}
}

// TestTaskExtensionInput: a task that asks for input gets it from the
// runtime's elicitation handler, through tasks/update.
func TestTaskExtensionInput(t *testing.T) {
	srv := taskServer()
	c := connectTasks(t, srv, srv.InProcess())
	ctx := taskCtx(t)
	task, res, err := c.StartToolTask(ctx, "ask", nil, mcpactor.CallOptions{})
	if err != nil || task == nil || res != nil {
		t.Fatalf("StartToolTask = %+v, %+v, %v; want a task", task, res, err)
	}
	var statuses []messages.TaskStatus
	res, err = c.AwaitTask(ctx, task.TaskID, func(x messages.Task) { statuses = append(statuses, x.Status) })
	if err != nil {
		t.Fatal(err)
	}
	if resultText(res) != "colour teal" {
		t.Fatalf("result = %q", resultText(res))
	}
	if !slices.Contains(statuses, messages.TaskInputRequired) {
		t.Errorf("statuses %v; want input_required among them", statuses)
	}
	if n := countOf(srv.Methods(), messages.MethodTasksUpdate); n != 1 {
		t.Errorf("tasks/update sent %d times, want once (an input is answered once)", n)
	}
}

// TestTaskExtensionFailed: a task that failed ends the call with
// *TaskError whose cause is the task's JSON-RPC error.
func TestTaskExtensionFailed(t *testing.T) {
	srv := taskServer()
	c := connectTasks(t, srv, srv.InProcess())
	_, err := c.CallTool(taskCtx(t), "broken", nil)
	var te *mcpactor.TaskError
	var rpc *mcpactor.RPCError
	if !errors.As(err, &te) || te.Status != messages.TaskFailed || !errors.As(err, &rpc) || rpc.Code != -32603 || !errors.Is(err, mcpactor.ErrRPC) {
		t.Fatalf("err = %v; want *TaskError failed with the -32603", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `"tasks"`) || !strings.Contains(msg, "the disk is full") {
		t.Errorf("error does not name the server and the cause: %s", msg)
	}
}

// TestTaskExtensionTimeoutCancels: a call whose task outlives the call's
// timeout ends with ErrTimeout, and the task nobody else knows of is
// cancelled.
func TestTaskExtensionTimeoutCancels(t *testing.T) {
	srv := taskServer()
	c := connectTasks(t, srv, srv.InProcess())
	_, err := c.CallToolWith(taskCtx(t), "forever", nil, mcpactor.CallOptions{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, mcpactor.ErrTimeout) {
		t.Fatalf("err = %v; want ErrTimeout", err)
	}
	if !slices.Contains(srv.Methods(), messages.MethodTasksCancel) {
		t.Errorf("methods = %v; want the abandoned task cancelled", srv.Methods())
	}
}

// TestTaskExtensionCancelAndList: CancelTask ends the task; ListTasks is
// not part of the extension.
func TestTaskExtensionCancelAndList(t *testing.T) {
	srv := taskServer()
	c := connectTasks(t, srv, srv.InProcess())
	ctx := taskCtx(t)
	cancelStartedTask(t, ctx, c, "forever", nil)
	if _, err := c.ListTasks(ctx); !errors.Is(err, mcpactor.ErrUnsupported) {
		t.Errorf("ListTasks = %v; want ErrUnsupported", err)
	}
}

// TestTaskExtensionHTTPRoutesByTask: over Streamable HTTP, tasks/get
// carries Mcp-Name = the task id, for routing to the instance that holds
// it.
func TestTaskExtensionHTTPRoutesByTask(t *testing.T) {
	srv := taskServer()
	h := srv.StartHTTP()
	t.Cleanup(h.Close)
	c := connectTasks(t, srv, h.Config())
	ctx := taskCtx(t)
	task, _, err := c.StartToolTask(ctx, "slow", nil, mcpactor.CallOptions{})
	if err != nil || task == nil {
		t.Fatalf("StartToolTask: %v, %v", task, err)
	}
	if _, err := c.AwaitTask(ctx, task.TaskID, nil); err != nil {
		t.Fatal(err)
	}
	gets := 0
	for _, m := range srv.Received() {
		if m.Method != messages.MethodTasksGet {
			continue
		}
		gets++
		if got := m.Header.Get("Mcp-Name"); got != task.TaskID {
			t.Errorf("tasks/get Mcp-Name = %q, want %q", got, task.TaskID)
		}
	}
	if gets == 0 {
		t.Error("no tasks/get seen")
	}
}

// TestTaskExtensionPersistedID: a task id outlives its client: a second
// runtime, given the id alone, awaits the result.
func TestTaskExtensionPersistedID(t *testing.T) {
	srv := taskServer()
	h := srv.StartHTTP()
	t.Cleanup(h.Close)
	first := connectTasks(t, srv, h.Config())
	ctx := taskCtx(t)
	task, _, err := first.StartToolTask(ctx, "slow", nil, mcpactor.CallOptions{})
	if err != nil || task == nil {
		t.Fatalf("StartToolTask: %v, %v", task, err)
	}
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}
	second := connectTasks(t, srv, h.Config())
	res, err := second.AwaitTask(ctx, task.TaskID, nil)
	if err != nil || resultText(res) != "done slowly" {
		t.Fatalf("AwaitTask from another client = %v, %v", res, err)
	}
}

// TestTaskExtensionInputNobodyAnswers: a task that asks for input the
// runtime has no handler for ends the wait at once with the error, not at
// the call's deadline.
func TestTaskExtensionInputNobodyAnswers(t *testing.T) {
	srv := taskServer()
	c, ctx := connectFake(t, mcpactor.Options{}, srv, "tasks", srv.InProcess())
	start := time.Now()
	_, err := c.CallToolWith(ctx, "ask", nil, mcpactor.CallOptions{Timeout: 20 * time.Second})
	if !errors.Is(err, mcpactor.ErrBadResponse) {
		t.Fatalf("err = %v; want the input no handler answers (ErrBadResponse)", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the wait ended after %v, at the deadline rather than at the refusal", d)
	}
}

// TestTaskErrorMasksSecrets: a task's error is the server's text; a
// configured credential it quotes is masked, as in every error.
func TestTaskErrorMasksSecrets(t *testing.T) {
	const secret = "planted-task-secret-7c1d"
	srv := &mcptest.Server{Stateless: true, Tools: []mcptest.Tool{{Name: "leak", Task: true,
		Handler: func(context.Context, *mcptest.Call) (*messages.CallToolResult, error) {
			return nil, &mcptest.RPCError{Code: -32603, Message: "token " + secret + " refused"}
		}}}}
	h := srv.StartHTTP()
	t.Cleanup(h.Close)
	cfg := h.Config()
	cfg.Headers = map[string]string{"Authorization": "Bearer " + secret}
	c := connectTasks(t, srv, cfg)
	ctx := taskCtx(t)
	task, _, err := c.StartToolTask(ctx, "leak", nil, mcpactor.CallOptions{})
	if err != nil || task == nil {
		t.Fatalf("StartToolTask: %v, %v", task, err)
	}
	_, err = c.AwaitTask(ctx, task.TaskID, nil)
	var te *mcpactor.TaskError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v; want *TaskError", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("the error shows the credential: %v", err)
	}
}
