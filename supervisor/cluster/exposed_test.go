package cluster

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/messages"
)

// toolCaller is the Manager's calling convention that Exposed shares
// (tools, status, prompts and resources):
// code written against it runs on one machine or on a cluster.
type toolCaller interface {
	ListTools() []mcpactor.ManagedTool
	CallTool(ctx context.Context, exposed string, args any) (*messages.CallToolResult, error)
	CallToolWith(ctx context.Context, exposed string, args any, opts mcpactor.CallOptions) (*messages.CallToolResult, error)
	Status() []mcpactor.ServerStatus
	ListPrompts() []mcpactor.ManagedPrompt
	GetPrompt(ctx context.Context, exposed string, args map[string]string) (*messages.GetPromptResult, error)
	ListResources() []mcpactor.ManagedResource
	ReadResource(ctx context.Context, server, uri string) (*messages.ReadResourceResult, error)
}

var (
	_ toolCaller = (*mcpactor.Manager)(nil)
	_ toolCaller = Exposed{}
)

func TestCouldExpose(t *testing.T) {
	long := "a-server-whose-name-is-long-enough-to-shorten-every-tool-name"
	cases := []struct {
		server, exposed string
		want            bool
	}{
		{"alpha", "mcp__alpha__echo", true},
		{"alpha", "mcp__alpha__", false},
		{"alpha", "mcp__alphabet__echo", false},
		{"alpha", "mcp__beta__echo", false},
		{"my.server", "mcp__my_server__echo", true},
		{long, "mcp__" + long[:50] + "_0123abcd", true},
		{long, "mcp__" + long[:49] + "x_0123abcd", false},
	}
	for _, c := range cases {
		if got := couldExpose(c.server, c.exposed); got != c.want {
			t.Errorf("couldExpose(%q, %q) = %v, want %v", c.server, c.exposed, got, c.want)
		}
	}
}

func TestOptionsBound(t *testing.T) {
	cases := []struct {
		opts mcpactor.CallOptions
		want time.Duration
	}{
		{mcpactor.CallOptions{}, 0},
		{mcpactor.CallOptions{Timeout: time.Minute}, time.Minute},
		{mcpactor.CallOptions{Timeout: time.Minute, MaxTotalTimeout: time.Second}, time.Second},
		{mcpactor.CallOptions{Timeout: time.Second, ResetTimeoutOnProgress: true, MaxTotalTimeout: time.Hour}, time.Hour},
		{mcpactor.CallOptions{MaxTotalTimeout: time.Hour}, time.Hour},
	}
	for _, c := range cases {
		if got := optionsBound(c.opts); got != c.want {
			t.Errorf("optionsBound(%+v) = %v, want %v", c.opts, got, c.want)
		}
	}
}

// TestCallOptionsCrossTheHop: every field of mcpactor.CallOptions but
// OnProgress arrives on the owner as the caller set it, through the
// wire; a field added to CallOptions and not carried fails here.
func TestCallOptionsCrossTheHop(t *testing.T) {
	var opts mcpactor.CallOptions
	v := reflect.ValueOf(&opts).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch name := v.Type().Field(i).Name; {
		case name == "OnProgress":
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Type() == reflect.TypeFor[time.Duration]():
			f.SetInt(int64(time.Duration(i+1) * time.Second))
		case f.Type() == reflect.TypeFor[messages.Meta]():
			f.Set(reflect.ValueOf(messages.Meta{"example.com/k": "v"}))
		default:
			t.Fatalf("CallOptions.%s (%s): no test value; carry it across the hop (setCallOptions, callOptions) and add one", name, f.Type())
		}
	}
	req := &request{Server: "alpha", Method: methodCallTool, Name: "echo"}
	if err := req.setCallOptions(opts); err != nil {
		t.Fatal(err)
	}
	_, got, _, err := decode(encodeRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	back, err := got.callOptions()
	if err != nil || !reflect.DeepEqual(back, opts) {
		t.Errorf("options on the owner = %+v, %v; want %+v", back, err, opts)
	}
	// A forged negative duration counts as unset, never as a deadline
	// already past.
	got.CallTimeout, got.MaxTotalTimeout = -time.Second, -time.Second
	if back, _ := got.callOptions(); back.Timeout != 0 || back.MaxTotalTimeout != 0 {
		t.Errorf("negative durations gave %+v", back)
	}
}
