package fastserver

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records each write call on its own.
type writes struct {
	mu sync.Mutex
	w  []string
}

func (w *writes) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.w = append(w.w, string(b))
	w.mu.Unlock()
	return len(b), nil
}

func (w *writes) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.w...)
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		ProtocolVersion string `json:"protocolVersion"`
		Tools           []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestWire(t *testing.T) {
	longMsg := strings.Repeat("long ", 30000) // a line longer than the read buffer
	escaped := "q\"uote b\\ack\nnl é 😀"
	escapedJSON, _ := json.Marshal(escaped)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a\"b\\c","method":"ping"}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"server/discover"}`,
		`{"params":{"arguments":{"message":` + string(escapedJSON) + `},"name":"echo"},"method":"tools/call","id":1.5e3,"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + longMsg + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1e2}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1.5}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"big","arguments":{"bytes":10}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"big","arguments":{"bytes":3}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"message":7}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
		`{"jsonrpc":"2.0","id":12,"result":{}}`, // an answer: not answered
		`not json`,
		`{"jsonrpc":"2.0","id":"last","method":"ping"}`, // no newline at the end
	}, "\n")
	out := &writes{}
	if err := newServer(out).serve(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	const want = 15 // one answer per line but the notification's and the answer's
	var got []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got = out.get(); len(got) >= want {
			break
		}
	}
	if len(got) != want {
		for _, w := range got {
			t.Logf("%.200s", w)
		}
		t.Fatalf("%d writes, want %d", len(got), want)
	}
	byID := map[string]reply{}
	for _, w := range got {
		if strings.Count(w, "\n") != 1 || !strings.HasSuffix(w, "\n") {
			t.Errorf("a write is not exactly one line: %.200q", w)
		}
		var r reply
		if err := json.Unmarshal([]byte(w), &r); err != nil {
			t.Errorf("%v: %.200s", err, w)
		}
		byID[string(r.ID)] = r
	}
	text := func(id string) string {
		r, ok := byID[id]
		if !ok || r.Result == nil || len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" || r.Result.IsError {
			t.Errorf("id %s: no text result: %+v", id, r)
			return ""
		}
		return r.Result.Content[0].Text
	}
	errCode := func(id string) int {
		r, ok := byID[id]
		if !ok || r.Error == nil {
			t.Errorf("id %s: no error: %+v", id, r)
			return 0
		}
		return r.Error.Code
	}

	if r := byID[`"init"`]; r.Result == nil || r.Result.ProtocolVersion != "2024-11-05" {
		t.Errorf("initialize 2024-11-05: %+v", r)
	}
	if r := byID[`11`]; r.Result == nil || r.Result.ProtocolVersion != "2025-11-25" {
		t.Errorf("initialize of an unknown version: %+v", r)
	}
	if _, ok := byID[`"a\"b\\c"`]; !ok {
		t.Errorf("the string id was not echoed verbatim: %v", got)
	}
	if c := errCode(`12345678901234567890`); c != -32601 {
		t.Errorf("server/discover: code %d (the big number id must be echoed verbatim)", c)
	}
	if s := text(`1.5e3`); s != escaped {
		t.Errorf("echo: %q, want %q", s, escaped)
	}
	if s := text(`3`); s != longMsg {
		t.Errorf("echo of a long line: %d bytes, want %d", len(s), len(longMsg))
	}
	if s := text(`4`); s != "slept 100ms" {
		t.Errorf("sleep 1e2: %q", s)
	}
	if s := text(`5`); s != "slept 1.5ms" {
		t.Errorf("sleep 1.5: %q", s)
	}
	if c := errCode(`6`); c != -32602 {
		t.Errorf("unknown tool: code %d", c)
	}
	if r := byID[`7`]; r.Result == nil || len(r.Result.Tools) != 3 || r.Result.Tools[0].Name != "echo" || len(r.Result.Tools[2].InputSchema) == 0 {
		t.Errorf("tools/list: %+v", r)
	}
	if s := text(`8`); s != "xxxxxxxxxx" {
		t.Errorf("big 10: %q", s)
	}
	if s := text(`9`); s != "xxx" {
		t.Errorf("big 3: %q", s)
	}
	if r := byID[`10`]; r.Result == nil || !r.Result.IsError {
		t.Errorf("echo of a number: %+v, want isError", r)
	}
	if c := errCode(`null`); c != -32700 {
		t.Errorf("not json: code %d", c)
	}
	if r := byID[`"last"`]; r.Result == nil {
		t.Errorf("the last line, without a newline: %+v", r)
	}
}
