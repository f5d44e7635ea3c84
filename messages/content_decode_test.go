package messages

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// contentSeeds are single blocks covering each kind and the rules the
// single-pass decoder must keep: members of other kinds ignored whatever
// their type, repeated keys (the last wins; objects and slices merge as
// encoding/json merges them), null members, case-insensitive keys, and
// unknown kinds kept as JSON.
var contentSeeds = []string{
	`{"type":"text","text":"hello"}`,
	`{"type":"text","text":"a\nb \"q\" \u00e9\ud83d\ude00\ud800","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":[1,null]}}`,
	`{"text":"late type","type":"text"}`,
	`{"type":"image","data":"AQID","mimeType":"image/png","text":5,"uri":{},"size":"x","icons":1,"resource":[]}`,
	`{"type":"audio","data":"","mimeType":"","annotations":null,"_meta":null}`,
	`{"type":"resource_link","uri":"u","name":"n","title":"t","description":"d","mimeType":"m","size":3,"icons":[{"src":"s","sizes":["1x1"]}]}`,
	`{"type":"resource_link","uri":"u","name":"n","size":1.5}`,
	`{"type":"resource_link","uri":"u","name":"n","size":null,"icons":null}`,
	`{"type":"resource_link","icons":[{"src":"a","theme":"dark"},{"src":"b"}],"icons":[{"src":"c"}]}`,
	`{"type":"resource","resource":{"uri":"u","blob":""}}`,
	`{"type":"resource","resource":{"uri":"u","text":"t"},"resource":{"uri":"v"}}`,
	`{"type":"resource","resource":null}`,
	`{"type":"resource","resource":5}`,
	`{"type":"text","annotations":{"priority":1},"annotations":{"audience":["assistant"]}}`,
	`{"type":"text","_meta":{"a":1},"_meta":{"b":2}}`,
	`{"type":"text","text":"a","text":null}`,
	`{"type":"image","type":"text","text":"x"}`,
	`{"type":"text","type":null,"text":"x"}`,
	`{"TYPE":"text","Text":"x","_META":{"a":1},"ANNOTATIONS":{"priority":1}}`,
	`{"type":"resource_link","URI":"u","ſize":2,"mimetype":"m","DESCRIPTION":"d"}`,
	`{"t\u0079pe":"text","\u0074ext":"esc"}`,
	`{"type":"text","text":5}`, `{"type":"text","annotations":{"priority":"high"}}`,
	`{"type":"text","_meta":[]}`, `{"type":"image","data":true}`, `{"type":5}`, `{"type":"text","type":5}`,
	`{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris","n":[1, 2.5]},"_meta":{"a":1}}`,
	`{"type":"tool_result","toolUseId":"1","content":[{"type":"text","text":"r"}]}`,
	`{"type":"future","annotations":5,"_meta":{"a":1}}`, `{"type":"future","_meta":5}`,
	`{"type":"future","text":5,"size":"big"}`, `{ "type" : "x" , "y" : [ 1 , 2 ] }`,
	`{}`, `{"type":null}`, `{"type":""}`, `null`, `[]`, `"text"`, `5`, `true`, `[1]`,
	"{\"type\":\"text\",\"text\":\"\xff\"}", "{\"type\":\"te\xffxt\"}",
}

// resultSeeds are whole tools/call results.
var resultSeeds = []string{
	`{"content":[{"type":"text","text":"hello-117-48213"}]}`,
	`{"content":[{"type":"text","text":"x"},{"type":"future_kind","x":{"y":true}}],"isError":true}`,
	`{"content":[],"structuredContent":{"a":1,"b":"x"},"_meta":{"m":true}}`,
	`{"content":null}`, `{"content":[null]}`, `{"content":[null,null,{"type":"text","text":"t"}]}`,
	`{"content":[{"type":"text","text":"a"}],"content":[{"type":"image","data":"","mimeType":""}]}`,
	`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"content":[]}`,
	`{"isError":true,"isError":null}`, `{"isError":"yes"}`, `{"isError":1}`, `{"isError":false}`,
	`{"structuredContent":null}`, `{"structuredContent":[1, 2 ]}`, `{"structuredContent":"s","structuredContent":{}}`,
	`{"_meta":5}`, `{"_meta":{"a":1},"_meta":{"b":2}}`, `{"_meta":null}`,
	`{"Content":[{"type":"text","text":"folded"}],"ISERROR":true,"ſtructuredContent":{},"_Meta":{}}`,
	`{"content":{}}`, `{"content":"x"}`, `{"content":[1]}`, `{"content":[{"type":"text","text":1}]}`,
	`{"content":[{"type":5}],"isError":"x"}`, `{"isError":"x","content":[{"type":"text","text":1}]}`,
	`{"other":{"deep":[[[]]]},"content":[]}`, `{}`, `null`, ` { } `, `[]`, `"s"`, `0`,
	`{"content":[{"type":"text","text":"x"}]`, `{"content":[}`, `{"content":[{"type":"text"}]}x`,
}

// FuzzContentMatchesReference holds Content.UnmarshalJSON to the
// json.Unmarshal-based decoder it replaced (content_reference_test.go),
// decoding into a zero block and into one already holding a block.
func FuzzContentMatchesReference(f *testing.F) {
	for _, s := range contentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, start := range []func() Content{
			func() Content { return Content{} },
			func() Content {
				return Content{Type: ContentTypeText, Text: "old", Annotations: &Annotations{Priority: ptr(1.0)}, Meta: Meta{"old": true}}
			},
		} {
			got, ref := start(), referenceContent{start()}
			err := json.Unmarshal(data, &got)
			refErr := json.Unmarshal(data, &ref)
			compareDecoding(t, data, got, ref.c, err, refErr)
		}
	})
}

// FuzzCallToolResultMatchesReference holds CallToolResult.UnmarshalJSON to
// encoding/json's decoding of the struct as it was, into a zero result and
// into one whose slice has stale blocks past its length (encoding/json
// decodes into those), and checks that calling UnmarshalJSON directly gives
// what json.Unmarshal gives.
func FuzzCallToolResultMatchesReference(f *testing.F) {
	for _, s := range resultSeeds {
		f.Add([]byte(s))
	}
	for _, s := range contentSeeds {
		f.Add([]byte(`{"content":[` + s + `]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, start := range []func() CallToolResult{
			func() CallToolResult { return CallToolResult{} },
			prepopulatedResult,
		} {
			got, ref := start(), referenceOf(start())
			err := json.Unmarshal(data, &got)
			refErr := json.Unmarshal(data, &ref)
			compareDecoding(t, data, got, ref.result(), err, refErr)

			direct := start()
			directErr := direct.UnmarshalJSON(data)
			if (directErr == nil) != (err == nil) || (err != nil && directErr.Error() != err.Error()) {
				t.Fatalf("%q: UnmarshalJSON: %v; json.Unmarshal: %v", data, directErr, err)
			}
			if err == nil && !reflect.DeepEqual(direct, got) {
				t.Fatalf("%q:\nUnmarshalJSON %#v\njson.Unmarshal %#v", data, direct, got)
			}

			// The same decoding when the result may keep data's memory.
			owned := start()
			ownedErr := owned.UnmarshalOwned(slices.Clone(data))
			if (ownedErr == nil) != (err == nil) || (err != nil && ownedErr.Error() != err.Error()) {
				t.Fatalf("%q: UnmarshalOwned: %v; json.Unmarshal: %v", data, ownedErr, err)
			}
			if err == nil && !reflect.DeepEqual(owned, got) {
				t.Fatalf("%q:\nUnmarshalOwned %#v\njson.Unmarshal %#v", data, owned, got)
			}
		}
	})
}

// prepopulatedResult has a block past its slice's length, which a decoded
// array longer than the slice reuses, and a buffer for structuredContent.
func prepopulatedResult() CallToolResult {
	blocks := make([]Content, 3)
	blocks[0] = TextContent("old-0")
	blocks[1] = ImageContent([]byte{1}, "image/png")
	blocks[2] = Content{Type: "future", Meta: Meta{"stale": true}}
	sc := make(json.RawMessage, 0, 64)
	return CallToolResult{
		Meta:              Meta{"old": 1.0},
		Content:           blocks[:1],
		StructuredContent: append(sc, `{"old":true}`...),
		IsError:           true,
	}
}

// compareDecoding fails unless both decoders failed, with the same kind of
// error, or both succeeded with the same value. Error texts may differ:
// the new ones name the Go types the old ones hid (Content rather than an
// anonymous struct or textWire).
func compareDecoding[T any](t *testing.T, data []byte, got, want T, err, wantErr error) {
	t.Helper()
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%q: error %v, reference error %v", data, err, wantErr)
	}
	if err != nil {
		if reflect.TypeOf(err) != reflect.TypeOf(wantErr) {
			t.Fatalf("%q: error %T %v, reference error %T %v", data, err, err, wantErr, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
	}
}

func TestCallToolResultTypeErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"isError":"yes"}`, "json: cannot unmarshal string into Go struct field CallToolResult.isError of type bool"},
		{`{"content":{}}`, "json: cannot unmarshal object into Go struct field CallToolResult.content of type []messages.Content"},
		{`{"content":[{"type":"text","text":1}]}`, "json: cannot unmarshal number into Go struct field CallToolResult.content.text of type string"},
		{`{"_meta":5}`, "json: cannot unmarshal number into Go struct field CallToolResult._meta of type messages.Meta"},
		{`[]`, "json: cannot unmarshal array into Go value of type messages.CallToolResult"},
	} {
		var r CallToolResult
		err := json.Unmarshal([]byte(tt.in), &r)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %s", tt.in, err, tt.want)
		}
	}
}

// TestUnmarshalOwnedShares: a result decoded with UnmarshalOwned holds its
// text in the data it was given (one copy of a large result, not two),
// and one decoded with UnmarshalJSON holds a copy of its own.
func TestUnmarshalOwnedShares(t *testing.T) {
	text := strings.Repeat("x", 1<<16)
	data := []byte(`{"content":[{"type":"text","text":"` + text + `"}]}`)
	var owned, copied CallToolResult
	if err := owned.UnmarshalOwned(data); err != nil {
		t.Fatal(err)
	}
	if err := copied.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	if owned.Content[0].Text != text || copied.Content[0].Text != text {
		t.Fatal("text decoded wrong")
	}
	within := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&data[0]))
		return p >= start && p < start+uintptr(len(data))
	}
	if !within(owned.Content[0].Text) {
		t.Error("UnmarshalOwned copied the text")
	}
	if within(copied.Content[0].Text) {
		t.Error("UnmarshalJSON shares the caller's data")
	}
}
