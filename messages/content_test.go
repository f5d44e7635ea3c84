package messages

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestContentRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		c    Content
		want string
	}{
		{"text", TextContent("hello"), `{"type":"text","text":"hello"}`},
		{"empty text", TextContent(""), `{"type":"text","text":""}`},
		{"text annotated", Content{
			Type: ContentTypeText, Text: "hi",
			Annotations: &Annotations{Audience: []Role{RoleUser}, Priority: ptr(0.5), LastModified: "2025-01-12T15:00:58Z"},
			Meta:        Meta{"k": "v"},
		}, `{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"k":"v"}}`},
		{"image", ImageContent([]byte{1, 2, 3}, "image/png"), `{"type":"image","data":"AQID","mimeType":"image/png"}`},
		{"audio", AudioContent([]byte("abc"), "audio/wav"), `{"type":"audio","data":"YWJj","mimeType":"audio/wav"}`},
		{"resource_link", ResourceLinkContent(Resource{
			URI: "file:///a.txt", Name: "a.txt", Title: "A", Description: "d",
			MimeType: "text/plain", Size: ptr(int64(42)), Icons: []Icon{{Src: "https://x/i.png"}},
		}), `{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","title":"A","description":"d","mimeType":"text/plain","size":42,"icons":[{"src":"https://x/i.png"}]}`},
		{"resource_link minimal", ResourceLinkContent(Resource{URI: "u", Name: "n"}),
			`{"type":"resource_link","uri":"u","name":"n"}`},
		{"resource text", EmbeddedResourceContent(TextResource("file:///a", "text/plain", "body")),
			`{"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"body"}}`},
		{"resource empty text", EmbeddedResourceContent(TextResource("file:///a", "", "")),
			`{"type":"resource","resource":{"uri":"file:///a","text":""}}`},
		{"resource blob", EmbeddedResourceContent(BlobResource("file:///b", "application/octet-stream", []byte{0xff})),
			`{"type":"resource","resource":{"uri":"file:///b","mimeType":"application/octet-stream","blob":"/w=="}}`},
		{"resource empty blob", EmbeddedResourceContent(BlobResource("file:///b", "", nil)),
			`{"type":"resource","resource":{"uri":"file:///b","blob":""}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("marshal:\n got %s\nwant %s", got, tt.want)
			}
			var back Content
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.c) {
				t.Fatalf("unmarshal:\n got %#v\nwant %#v", back, tt.c)
			}
		})
	}
}

func TestContentDropsFieldsOfOtherKinds(t *testing.T) {
	var c Content
	in := `{"type":"image","data":"AQID","mimeType":"image/png","text":"stray","uri":"x"}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.Text != "" || c.URI != "" {
		t.Fatalf("stray fields kept: %#v", c)
	}
	got, _ := json.Marshal(c)
	if want := `{"type":"image","data":"AQID","mimeType":"image/png"}`; string(got) != want {
		t.Fatalf("got %s want %s", got, want)
	}
	// A field of the wrong JSON type that does not belong to the kind is
	// ignored, not an error.
	if err := json.Unmarshal([]byte(`{"type":"text","text":"a","data":5}`), &c); err != nil {
		t.Fatalf("irrelevant field: %v", err)
	}
}

func TestContentUnknownTypePreserved(t *testing.T) {
	in := `{"type":"tool_use", "id":"call_1","name":"get_weather","input":{"city":"Paris","n":[1,2.5]},"_meta":{"a":1}}`
	var c Content
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.Type != ContentTypeToolUse || c.IsKnown() {
		t.Fatalf("type %q known=%v", c.Type, c.IsKnown())
	}
	if c.Meta["a"] != 1.0 {
		t.Fatalf("meta not decoded: %v", c.Meta)
	}
	got, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	_ = json.Compact(&want, []byte(in))
	if string(got) != want.String() {
		t.Fatalf("re-encoded\n got %s\nwant %s", got, want.String())
	}
	if !bytes.Equal(c.Raw(), want.Bytes()) {
		t.Fatalf("Raw() = %s", c.Raw())
	}

	// Inside a list, next to known kinds.
	var r CallToolResult
	list := `{"content":[{"type":"text","text":"x"},{"type":"future_kind","x":{"y":true}}]}`
	if err := json.Unmarshal([]byte(list), &r); err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(r)
	if string(got) != list {
		t.Fatalf("got %s want %s", got, list)
	}
}

func TestContentUnmarshalErrors(t *testing.T) {
	for _, in := range []string{`"text"`, `[1]`, `{"type":5}`, `{"type":"text","text":5}`, `{"type":"resource","resource":[]}`} {
		var c Content
		if err := json.Unmarshal([]byte(in), &c); err == nil {
			t.Errorf("%s: no error, got %#v", in, c)
		}
	}
}

func TestContentBytes(t *testing.T) {
	for _, tt := range []struct {
		c    Content
		want string
	}{
		{ImageContent([]byte("png!"), "image/png"), "png!"},
		{AudioContent([]byte("wav"), "audio/wav"), "wav"},
		{Content{Type: ContentTypeImage, Data: "cG5nIQ"}, "png!"}, // unpadded
		{TextContent("t"), "t"},
		{EmbeddedResourceContent(BlobResource("u", "", []byte("blob"))), "blob"},
		{EmbeddedResourceContent(TextResource("u", "", "text")), "text"},
	} {
		got, err := tt.c.Bytes()
		if err != nil || string(got) != tt.want {
			t.Errorf("%#v: Bytes() = %q, %v; want %q", tt.c, got, err, tt.want)
		}
	}
	if _, err := (Content{Type: ContentTypeImage, Data: "!!"}).Bytes(); err == nil {
		t.Error("bad base64: no error")
	}
	if _, err := (Content{Type: ContentTypeResourceLink}).Bytes(); err == nil {
		t.Error("resource_link: no error")
	}
}

func TestResourceContentsBlobWins(t *testing.T) {
	var rc ResourceContents
	if err := json.Unmarshal([]byte(`{"uri":"u","text":"t","blob":"AQ=="}`), &rc); err != nil {
		t.Fatal(err)
	}
	if !rc.IsBlob() || rc.Text != "" {
		t.Fatalf("%#v", rc)
	}
}

func FuzzContentUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"type":"text","text":"hello"}`,
		`{"type":"image","data":"AQID","mimeType":"image/png","annotations":{"priority":1}}`,
		`{"type":"audio","data":"","mimeType":""}`,
		`{"type":"resource_link","uri":"u","name":"n","size":3,"icons":[{"src":"s"}]}`,
		`{"type":"resource","resource":{"uri":"u","blob":""}}`,
		`{"type":"resource","resource":{"uri":"u","text":"<&>"},"_meta":{"x":[1,null]}}`,
		`{"type":"tool_use","id":"1","input":{}}`,
		`{"type":"tool_result","toolUseId":"1","content":[{"type":"text","text":"r"}]}`,
		`{}`, `null`, `[]`, `{"type":null}`, `{"type":"x","_meta":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Content
		if json.Unmarshal(data, &c) != nil {
			return
		}
		enc, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("marshal of decoded %q: %v", data, err)
		}
		var c2 Content
		if err := json.Unmarshal(enc, &c2); err != nil {
			t.Fatalf("re-decode of %s (from %q): %v", enc, data, err)
		}
		enc2, err := json.Marshal(c2)
		if err != nil {
			t.Fatalf("second marshal: %v", err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("not a fixpoint:\n%s\n%s", enc, enc2)
		}
	})
}
