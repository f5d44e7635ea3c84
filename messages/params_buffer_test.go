package messages

import (
	"encoding/json"
	"testing"
)

func TestParamsBufferClasses(t *testing.T) {
	for _, tc := range []struct {
		size, cap int
	}{
		{0, smallParams}, {100, smallParams}, {smallParams, smallParams},
		{smallParams + 1, largeParams}, {largeParams, largeParams},
		{largeParams + 1, largeParams + 1},
	} {
		b := ParamsBuffer(tc.size)
		if len(b) != 0 || cap(b) != tc.cap {
			t.Errorf("ParamsBuffer(%d): len %d cap %d, want 0 and %d", tc.size, len(b), cap(b), tc.cap)
		}
		RecycleParams(b)
	}
}

// Only params still at the start of the pooled buffer they were encoded
// into may be recycled: not a copy, not params that outgrew the buffer,
// not a part of it, not a buffer of no pool's.
func TestPooled(t *testing.T) {
	buf := ParamsBuffer(64)
	params, err := AppendCallToolParams(buf, &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !Pooled(params, buf) {
		t.Errorf("params encoded into their pooled buffer are not Pooled")
	}
	if Pooled(append([]byte(nil), params...), buf) {
		t.Errorf("a copy of the params is Pooled")
	}
	if Pooled(params[1:], buf) {
		t.Errorf("a part of the params is Pooled")
	}
	grown := append(params, make([]byte, smallParams)...)
	if Pooled(grown, buf) {
		t.Errorf("params that outgrew their buffer are Pooled")
	}
	own := make([]byte, 0, 100)
	if Pooled(own, own) {
		t.Errorf("a buffer of no pool's is Pooled")
	}
}
