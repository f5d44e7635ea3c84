package messages

import (
	"encoding/json"
	"reflect"
	"testing"
)

// roundTrip marshals v, compares with want, decodes into a fresh *T and
// compares with v.
func roundTrip[T any](t *testing.T, v T, want string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Fatalf("marshal %T:\n got %s\nwant %s", v, b, want)
	}
	var back T
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Fatalf("unmarshal %T:\n got %#v\nwant %#v", v, back, v)
	}
}

func TestInitializeJSON(t *testing.T) {
	roundTrip(t, InitializeParams{
		ProtocolVersion: Version20251125,
		Capabilities: ClientCapabilities{
			Roots:       &RootsCapability{ListChanged: true},
			Sampling:    &SamplingCapability{Tools: &SamplingToolsCapability{}},
			Elicitation: &ElicitationCapability{Form: &ElicitationFormCapability{}, URL: &ElicitationURLCapability{}},
		},
		ClientInfo: Implementation{Name: "mcpactor", Version: "1.0"},
	}, `{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"mcpactor","version":"1.0"}}`)

	roundTrip(t, InitializeResult{
		ProtocolVersion: Version20250618,
		Capabilities: ServerCapabilities{
			Logging:     &LoggingCapability{},
			Completions: &CompletionsCapability{},
			Prompts:     &PromptsCapability{},
			Resources:   &ResourcesCapability{Subscribe: true},
			Tools:       &ToolsCapability{ListChanged: true},
		},
		ServerInfo:   Implementation{Name: "s", Title: "S", Version: "2"},
		Instructions: "use me",
	}, `{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"completions":{},"prompts":{},"resources":{"subscribe":true},"tools":{"listChanged":true}},"serverInfo":{"name":"s","title":"S","version":"2"},"instructions":"use me"}`)

	roundTrip(t, ServerCapabilities{}, `{}`)
	roundTrip(t, EmptyResult{}, `{}`)
}

func TestRequiredArraysNeverNull(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{ListToolsResult{}, `{"tools":[]}`},
		{ListResourcesResult{}, `{"resources":[]}`},
		{ListResourceTemplatesResult{}, `{"resourceTemplates":[]}`},
		{ReadResourceResult{}, `{"contents":[]}`},
		{ListPromptsResult{}, `{"prompts":[]}`},
		{GetPromptResult{}, `{"messages":[]}`},
		{CallToolResult{}, `{"content":[]}`},
		{ListRootsResult{}, `{"roots":[]}`},
		{CompleteResult{}, `{"completion":{"values":[]}}`},
		{CreateMessageParams{}, `{"messages":[],"maxTokens":0}`},
		{&ListToolsResult{NextCursor: "c"}, `{"tools":[],"nextCursor":"c"}`},
	} {
		b, err := json.Marshal(tt.v)
		if err != nil || string(b) != tt.want {
			t.Errorf("%T: %s %v, want %s", tt.v, b, err, tt.want)
		}
	}
}

func TestToolsJSON(t *testing.T) {
	roundTrip(t, ListToolsResult{
		Tools: []Tool{{
			Name: "get_weather", Title: "Weather", Description: "d",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations:  &ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
			Meta:         Meta{"x": "y"},
		}},
		NextCursor: "next",
	}, `{"tools":[{"name":"get_weather","title":"Weather","description":"d","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"openWorldHint":false},"_meta":{"x":"y"}}],"nextCursor":"next"}`)

	b, _ := json.Marshal(CallToolParams{Name: "f", Arguments: map[string]any{"a": 1}})
	if string(b) != `{"name":"f","arguments":{"a":1}}` {
		t.Fatalf("got %s", b)
	}
	roundTrip(t, CallToolResult{
		Content:           []Content{TextContent("22C")},
		StructuredContent: json.RawMessage(`{"temp":22}`),
		IsError:           true,
	}, `{"content":[{"type":"text","text":"22C"}],"structuredContent":{"temp":22},"isError":true}`)
}

func TestResourcesPromptsCompletionJSON(t *testing.T) {
	roundTrip(t, ListResourceTemplatesResult{ResourceTemplates: []ResourceTemplate{{URITemplate: "file:///{path}", Name: "f"}}},
		`{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"f"}]}`)
	roundTrip(t, ReadResourceResult{Contents: []ResourceContents{TextResource("u", "text/plain", "")}},
		`{"contents":[{"uri":"u","mimeType":"text/plain","text":""}]}`)
	roundTrip(t, ResourceUpdatedParams{URI: "u"}, `{"uri":"u"}`)
	roundTrip(t, GetPromptParams{Name: "p", Arguments: map[string]string{"a": "b"}}, `{"name":"p","arguments":{"a":"b"}}`)
	roundTrip(t, GetPromptResult{Description: "d", Messages: []PromptMessage{{Role: RoleUser, Content: TextContent("t")}}},
		`{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"t"}}]}`)
	roundTrip(t, ListPromptsResult{Prompts: []Prompt{{Name: "p", Arguments: []PromptArgument{{Name: "a", Required: true}}}}},
		`{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`)
	roundTrip(t, CompleteParams{
		Ref:      CompleteReference{Type: RefTypeResource, URI: "file:///{p}"},
		Argument: CompleteArgument{Name: "p", Value: "a"},
		Context:  &CompleteContext{Arguments: map[string]string{"x": "y"}},
	}, `{"ref":{"type":"ref/resource","uri":"file:///{p}"},"argument":{"name":"p","value":"a"},"context":{"arguments":{"x":"y"}}}`)
	total := 10
	roundTrip(t, CompleteResult{Completion: Completion{Values: []string{"a"}, Total: &total, HasMore: true}},
		`{"completion":{"values":["a"],"total":10,"hasMore":true}}`)
}

func TestNotificationsJSON(t *testing.T) {
	roundTrip(t, CancelledParams{RequestID: Int64ID(3), Reason: "user"}, `{"requestId":3,"reason":"user"}`)
	roundTrip(t, CancelledParams{RequestID: StringID("x")}, `{"requestId":"x"}`)
	roundTrip(t, CancelledParams{}, `{}`)
	roundTrip(t, ProgressParams{ProgressToken: "t", Progress: 1, Total: ptr(2.0), Message: "half"},
		`{"progressToken":"t","progress":1,"total":2,"message":"half"}`)
	roundTrip(t, LoggingMessageParams{Level: LevelWarning, Logger: "db", Data: json.RawMessage(`{"a":1}`)},
		`{"level":"warning","logger":"db","data":{"a":1}}`)
	roundTrip(t, SetLevelParams{Level: LevelDebug}, `{"level":"debug"}`)
	roundTrip(t, ElicitationCompleteParams{ElicitationID: "e"}, `{"elicitationId":"e"}`)
	roundTrip(t, ListRootsResult{Roots: []Root{{URI: "file:///r", Name: "r"}}}, `{"roots":[{"uri":"file:///r","name":"r"}]}`)
	roundTrip(t, SubscriptionsListenParams{Notifications: SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"u"}}},
		`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["u"]}}`)
	if LevelDebug.Severity() >= LevelEmergency.Severity() || LoggingLevel("x").Severity() != -1 {
		t.Fatal("severity order")
	}
}

func TestDiscoverAndInputRequired(t *testing.T) {
	in := `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`
	var d DiscoverResult
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	info, ok := d.Info()
	if !ok || info.Name != "s" || d.TTLMs == nil || *d.TTLMs != 0 || d.Capabilities.Tools == nil {
		t.Fatalf("%#v %#v", d, info)
	}
	roundTrip(t, d, in)

	ir := `{"resultType":"input_required","inputRequests":{"login":{"method":"elicitation/create","params":{"message":"who?"}}},"requestState":"opaque"}`
	if ResultTypeOf(json.RawMessage(ir)) != ResultTypeInputRequired || ResultTypeOf(json.RawMessage(`{}`)) != ResultTypeComplete {
		t.Fatal("ResultTypeOf")
	}
	var r InputRequiredResult
	if err := json.Unmarshal([]byte(ir), &r); err != nil {
		t.Fatal(err)
	}
	if r.InputRequests["login"].Method != MethodElicitationCreate {
		t.Fatalf("%#v", r)
	}
	roundTrip(t, r, ir)
}
