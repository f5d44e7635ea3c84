package testserver

import (
	"encoding/base64"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestResources(t *testing.T) {
	c := startPipe(t, Options{})
	var list struct{ Resources []resourceInfo }
	mustUnmarshal(t, c.call("resources/list", nil), &list)
	if len(list.Resources) != 2 {
		t.Fatalf("resources = %+v", list)
	}
	var templates struct{ ResourceTemplates []resourceTemplate }
	mustUnmarshal(t, c.call("resources/templates/list", nil), &templates)
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "test://dynamic/{id}" {
		t.Errorf("templates = %+v", templates)
	}
	read := func(uri string) resourceContent {
		var res struct{ Contents []resourceContent }
		mustUnmarshal(t, c.call("resources/read", map[string]any{"uri": uri}), &res)
		if len(res.Contents) != 1 || res.Contents[0].URI != uri {
			t.Fatalf("read %s = %+v", uri, res)
		}
		return res.Contents[0]
	}
	if r := read("test://static/1"); r.Text == "" {
		t.Errorf("static/1 = %+v", r)
	}
	if r := read("test://static/2"); r.Blob != base64.StdEncoding.EncodeToString(staticBlob) {
		t.Errorf("static/2 = %+v", r)
	}
	if r := read("test://dynamic/7"); r.Text != "dynamic resource 7" {
		t.Errorf("dynamic = %+v", r)
	}
	resp, _ := c.responseTo(c.request("resources/read", map[string]any{"uri": "test://missing"}))
	if resp.Error == nil || resp.Error.Code != codeResourceNotFound || resp.Error.Message != "Resource not found" {
		t.Errorf("missing = %+v", resp.Error)
	}
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
		if got := string(c.call(m, map[string]any{"uri": "test://static/1"})); got != "{}" {
			t.Errorf("%s = %s", m, got)
		}
	}
	c.expectSilence(30 * time.Millisecond)
}

func TestPromptsAndCompletion(t *testing.T) {
	c := startPipe(t, Options{})
	var list struct{ Prompts []promptInfo }
	mustUnmarshal(t, c.call("prompts/list", nil), &list)
	if len(list.Prompts) != 2 || list.Prompts[1].Name != "greet" || !list.Prompts[1].Arguments[0].Required {
		t.Fatalf("prompts = %+v", list)
	}
	var got struct {
		Messages []struct {
			Role    string
			Content textBlock
		}
	}
	mustUnmarshal(t, c.call("prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada"}}), &got)
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" || got.Messages[0].Content.Text != "Hello, Ada!" {
		t.Errorf("greet = %+v", got)
	}
	mustUnmarshal(t, c.call("prompts/get", map[string]any{"name": "simple"}), &got)
	if got.Messages[0].Content.Type != "text" {
		t.Errorf("simple = %+v", got)
	}
	resp, _ := c.responseTo(c.request("prompts/get", map[string]any{"name": "greet"}))
	if resp.Error == nil || resp.Error.Code != codeInvalidParams {
		t.Errorf("greet without name: %+v", resp.Error)
	}

	var comp struct {
		Completion struct {
			Values  []string
			Total   int
			HasMore bool
		}
	}
	mustUnmarshal(t, c.call("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "greet"},
		"argument": map[string]any{"name": "name", "value": "al"},
	}), &comp)
	if !slices.Equal(comp.Completion.Values, []string{"Alice", "Alan", "Albert"}) || comp.Completion.Total != 3 || comp.Completion.HasMore {
		t.Errorf("completion = %+v", comp)
	}
}

func TestSetLevel(t *testing.T) {
	c := startPipe(t, Options{})
	id := c.request("logging/setLevel", map[string]any{"level": "warning"})
	if resp := c.recv(); idKey(resp.ID) != fmt.Sprint(id) || string(resp.Result) != "{}" {
		t.Fatalf("answer = %+v", resp)
	}
	n := c.recv()
	if n.Method != "notifications/message" ||
		string(n.Params) != `{"level":"warning","logger":"testserver","data":"level set to warning"}` {
		t.Errorf("notification = %s %s", n.Method, n.Params)
	}
	resp, _ := c.responseTo(c.request("logging/setLevel", map[string]any{"level": "loud"}))
	if resp.Error == nil {
		t.Error("bad level accepted")
	}
}
