package refclient

import (
	"encoding/json"
	"testing"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

func TestUnescape(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\b\f\n\r\t\x01", "é日本😀", "\ufffd", "<>&\u2028"} {
		raw, _ := json.Marshal(s)
		got, ok := jsonscan.Unescape(raw[1 : len(raw)-1])
		if !ok || got != s {
			t.Errorf("jsonscan.Unescape(%s) = %q, %v", raw, got, ok)
		}
	}
	for raw, want := range map[string]string{
		`\ud83d\ude00`: "😀",
		`\uD83D\uDE00`: "😀",
		`\ud83dx`:      "\ufffdx",
		`\ude00`:       "\ufffd",
		`a\/b`:         "a/b",
	} {
		if got, ok := jsonscan.Unescape([]byte(raw)); !ok || got != want {
			t.Errorf("jsonscan.Unescape(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`\`, `\x`, `\u12`, `\u12g4`} {
		if _, ok := jsonscan.Unescape([]byte(raw)); ok {
			t.Errorf("jsonscan.Unescape(%s): ok", raw)
		}
	}
}

func TestParseAnswer(t *testing.T) {
	var a answer
	line := `{ "result" : {"content":[ {"text":"a\"}]","type":"text"} , {"x":[1]}],"isError":false} , "id" : 42 ,"jsonrpc":"2.0"}`
	if !parseAnswer([]byte(line), &a) || string(a.id) != "42" || !a.result || !a.textOK || string(a.text) != `a\"}]` || a.isError || a.method {
		t.Errorf("%+v", a)
	}
	line = `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`
	if !parseAnswer([]byte(line), &a) || !a.method || string(a.id) != `"s1"` {
		t.Errorf("%+v", a)
	}
	line = `{"id":3,"error":{"message":"no \"such\"","code":-32601}}`
	if !parseAnswer([]byte(line), &a) || !a.rpcErr || a.code != -32601 || string(a.message) != `no \"such\"` {
		t.Errorf("%+v", a)
	}
	line = `{"id":4,"result":{"content":[{"type":"image","data":"..."}],"isError":true}}`
	if !parseAnswer([]byte(line), &a) || a.textOK || !a.isError {
		t.Errorf("%+v", a)
	}
	for _, bad := range []string{``, `[]`, `{"id":1`, `{"id":1,"result":{"content":[{"text":"x}]}}`, `{"id":}`, `{"a" 1}`} {
		if parseAnswer([]byte(bad), &a) {
			t.Errorf("parseAnswer(%s): ok", bad)
		}
	}
}
