package messages

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSamplingMessageSingleAndArray(t *testing.T) {
	single := `{"role":"user","content":{"type":"text","text":"hi"}}`
	var m SamplingMessage
	if err := json.Unmarshal([]byte(single), &m); err != nil {
		t.Fatal(err)
	}
	if m.Contents != nil || m.Content.Text != "hi" || len(m.Blocks()) != 1 {
		t.Fatalf("%#v", m)
	}
	if b, _ := json.Marshal(m); string(b) != single {
		t.Fatalf("got %s", b)
	}

	array := `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}},{"type":"tool_use","id":"b","name":"g","input":{"x":1}}]}`
	if err := json.Unmarshal([]byte(array), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Contents) != 2 || m.Blocks()[1].Type != ContentTypeToolUse {
		t.Fatalf("%#v", m)
	}
	if b, _ := json.Marshal(m); string(b) != array {
		t.Fatalf("got %s", b)
	}
}

func TestCreateMessageRoundTrip(t *testing.T) {
	p := CreateMessageParams{
		Messages:         []SamplingMessage{{Role: RoleUser, Content: TextContent("q")}},
		ModelPreferences: &ModelPreferences{Hints: []ModelHint{{Name: "claude"}}, SpeedPriority: ptr(0.2)},
		SystemPrompt:     "be brief",
		IncludeContext:   IncludeContextNone,
		MaxTokens:        100,
		ToolChoice:       json.RawMessage(`{"mode":"auto"}`),
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"modelPreferences":{"hints":[{"name":"claude"}],"speedPriority":0.2},"systemPrompt":"be brief","includeContext":"none","maxTokens":100,"toolChoice":{"mode":"auto"}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back CreateMessageParams
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Fatalf("got %#v", back)
	}

	r := CreateMessageResult{Role: RoleAssistant, Content: TextContent("a"), Model: "m", StopReason: StopReasonEndTurn}
	b, _ = json.Marshal(r)
	if want := `{"role":"assistant","content":{"type":"text","text":"a"},"model":"m","stopReason":"endTurn"}`; string(b) != want {
		t.Fatalf("got %s", b)
	}
	var rb CreateMessageResult
	if err := json.Unmarshal(b, &rb); err != nil || !reflect.DeepEqual(rb, r) {
		t.Fatalf("%v %#v", err, rb)
	}
}
