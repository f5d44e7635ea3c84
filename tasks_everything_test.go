package mcpactor_test

// Tasks of the 2025-11-25 era against the reference server:
// server-everything's simulate-research-query requires to run as a task
// (execution.taskSupport "required") and takes four stages of a second;
// with ambiguous set it asks for a clarification (elicitation) in the
// middle, which it delivers on the stream of tasks/result
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/peers"
	"github.com/mcpactor/mcpactor/messages"
)

const researchTool = "simulate-research-query"

// taskPeer connects server-everything in a runtime whose elicitation
// handler picks the first interpretation offered.
func taskPeer(t *testing.T) (*mcpactor.Client, *elicitLog) {
	t.Helper()
	node, script := peers.ServerEverything(t)
	log := &elicitLog{}
	rt, err := mcpactor.Start(mcpactor.Options{Handlers: mcpactor.Handlers{Elicitation: log.answer}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := rt.Connect(ctx, "everything", mcpactor.ServerConfig{Command: node, Args: []string{script, "stdio"}, CloseGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c, log
}

type elicitLog struct {
	mu       sync.Mutex
	messages []string
}

func (l *elicitLog) answer(_ context.Context, _ string, p *messages.ElicitParams) (*messages.ElicitResult, error) {
	l.mu.Lock()
	l.messages = append(l.messages, p.Message)
	l.mu.Unlock()
	return &messages.ElicitResult{Action: messages.ElicitActionAccept, Content: map[string]any{"interpretation": "technical"}}, nil
}

func (l *elicitLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.messages)
}

func taskCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestTaskRequiredToolWithCallTool: a plain CallTool of a tool that must
// run as a task returns its result, the task made and awaited inside.
func TestTaskRequiredToolWithCallTool(t *testing.T) {
	c, _ := taskPeer(t)
	res, err := c.CallTool(taskCtx(t), researchTool, map[string]any{"topic": "actors"})
	if err != nil {
		t.Fatal(err)
	}
	if text := resultText(res); !strings.Contains(text, "# Research Report: actors") {
		t.Fatalf("result is not the report:\n%s", text)
	}
}

// TestTaskStartPollAwait starts a task, finds it with Task and
// ListTasks, and awaits its result, hearing each stage as a status.
func TestTaskStartPollAwait(t *testing.T) {
	c, _ := taskPeer(t)
	ctx := taskCtx(t)
	task, res, err := c.StartToolTask(ctx, researchTool, map[string]any{"topic": "queues"}, mcpactor.CallOptions{})
	if err != nil || task == nil || res != nil {
		t.Fatalf("StartToolTask = %+v, %+v, %v; want a task", task, res, err)
	}
	got, err := c.Task(ctx, task.TaskID)
	if err != nil || got.TaskID != task.TaskID || got.Status.Terminal() {
		t.Fatalf("Task = %+v, %v; want the task, not ended", got, err)
	}
	list, err := c.ListTasks(ctx)
	if err != nil || !slices.ContainsFunc(list, func(x messages.Task) bool { return x.TaskID == task.TaskID }) {
		t.Fatalf("ListTasks = %+v, %v; want it to hold %s", list, err, task.TaskID)
	}
	var seen []string
	res, err = c.AwaitTask(ctx, task.TaskID, func(x messages.Task) { seen = append(seen, x.StatusMessage) })
	if err != nil {
		t.Fatal(err)
	}
	if text := resultText(res); !strings.Contains(text, "# Research Report: queues") {
		t.Fatalf("result is not the report:\n%s", text)
	}
	// The stages run a second each and the server asks to be polled more
	// often than that, so more than one status message is seen.
	if len(seen) < 2 {
		t.Errorf("statuses heard: %q; want the stages", seen)
	}
}

// TestTaskInputRequired: a task that needs a clarification gets it from
// the runtime's elicitation handler, through tasks/result.
func TestTaskInputRequired(t *testing.T) {
	c, log := taskPeer(t)
	res, err := c.CallTool(taskCtx(t), researchTool, map[string]any{"topic": "python", "ambiguous": true})
	if err != nil {
		t.Fatal(err)
	}
	if log.count() != 1 {
		t.Errorf("elicitations = %d, want 1", log.count())
	}
	if text := resultText(res); !strings.Contains(text, "Clarification**: technical") {
		t.Fatalf("the clarification is not in the report:\n%s", text)
	}
}

// TestTaskCancel: a cancelled task ends AwaitTask with *TaskError.
func TestTaskCancel(t *testing.T) {
	c, _ := taskPeer(t)
	task, te := cancelStartedTask(t, taskCtx(t), c, researchTool, map[string]any{"topic": "cancel"})
	if te.TaskID != task.TaskID || te.Server != "everything" {
		t.Fatalf("AwaitTask after cancel = %v; want task %s of server everything", te, task.TaskID)
	}
}

// cancelStartedTask starts tool as a task on c, cancels it and returns the
// task and the *TaskError its AwaitTask ended with, failing t if it did not
// end cancelled.
func cancelStartedTask(t *testing.T, ctx context.Context, c *mcpactor.Client, tool string, args any) (*messages.Task, *mcpactor.TaskError) {
	t.Helper()
	task, _, err := c.StartToolTask(ctx, tool, args, mcpactor.CallOptions{})
	if err != nil || task == nil {
		t.Fatalf("StartToolTask: %v, %v", task, err)
	}
	if err := c.CancelTask(ctx, task.TaskID); err != nil {
		t.Fatal(err)
	}
	_, err = c.AwaitTask(ctx, task.TaskID, nil)
	var te *mcpactor.TaskError
	if !errors.As(err, &te) || te.Status != messages.TaskCancelled {
		t.Fatalf("AwaitTask after cancel = %v; want *TaskError cancelled", err)
	}
	return task, te
}

// TestTaskCallTimeout: a call whose task outlives the call's timeout ends
// with the timeout error, naming the server and the method.
func TestTaskCallTimeout(t *testing.T) {
	c, _ := taskPeer(t)
	start := time.Now()
	_, err := c.CallToolWith(taskCtx(t), researchTool, map[string]any{"topic": "slow"}, mcpactor.CallOptions{Timeout: 1500 * time.Millisecond})
	if !errors.Is(err, mcpactor.ErrTimeout) {
		t.Fatalf("err = %v; want ErrTimeout", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `"everything"`) || !strings.Contains(msg, "tools/call") {
		t.Errorf("error does not name the server and method: %s", msg)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the call ended after %v; its timeout was 1.5 s", d)
	}
}
