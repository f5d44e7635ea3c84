package mcpactor_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// reportServer is a 2026-07-28 fake server whose "report" tool runs as a
// task of the tasks extension.
func reportServer() *mcptest.Server {
	return &mcptest.Server{Stateless: true, Tools: []mcptest.Tool{{
		Name: "report", Task: true,
		Handler: func(ctx context.Context, _ *mcptest.Call) (*messages.CallToolResult, error) {
			time.Sleep(50 * time.Millisecond) // the long work
			return &messages.CallToolResult{Content: []messages.Content{{Type: messages.ContentTypeText, Text: "report ready"}}}, nil
		},
	}}}
}

// A call that may outlive its caller: StartToolTask returns the task (or
// the result, if the server answered at once); its id is all AwaitTask
// needs, later, in this process or another. A plain CallTool of the same
// tool would await the task within the call's timeout by itself.
func ExampleClient_StartToolTask() {
	srv := reportServer()
	defer srv.Close()
	ctx := context.Background()
	rt, _ := mcpactor.Start(mcpactor.Options{})
	defer rt.Stop(ctx)
	c, err := rt.Connect(ctx, "reports", srv.InProcess())
	if err != nil {
		fmt.Println(err)
		return
	}

	// readme:begin tasks
	task, res, err := c.StartToolTask(ctx, "report", nil, mcpactor.CallOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if task != nil {
		// Keep task.TaskID (with the server's name) to come back later.
		var last messages.TaskStatus
		res, err = c.AwaitTask(ctx, task.TaskID, func(t messages.Task) {
			last = t.Status // the task's progress, once per change
		})
		if err != nil {
			fmt.Println(err) // a *mcpactor.TaskError if it failed or was cancelled
			return
		}
		fmt.Println("task", last)
	}
	fmt.Println(res.Content[0].Text)
	// readme:end tasks

	// Output:
	// task completed
	// report ready
}
