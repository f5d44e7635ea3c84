package jsonrpc

import (
	"encoding/json"
	"testing"

	"github.com/mcpactor/mcpactor/messages"
)

func TestParamsBufferClasses(t *testing.T) {
	for _, tc := range []struct {
		size, cap int
	}{
		{0, 128}, {100, 128}, {128, 128}, {129, 256}, {300, 512},
		{1024, 1024}, {1025, 2048}, {maxPooledParams, maxPooledParams},
		{maxPooledParams + 1, maxPooledParams + 1},
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
	params, err := AppendCallToolParams(buf, &messages.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)})
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
	grown := append(params, make([]byte, maxPooledParams)...)
	if Pooled(grown, buf) {
		t.Errorf("params that outgrew their buffer are Pooled")
	}
	own := make([]byte, 0, 100)
	if Pooled(own, own) {
		t.Errorf("a buffer of no class's size is Pooled")
	}
	big := ParamsBuffer(maxPooledParams + 1)
	if Pooled(big, big) {
		t.Errorf("a buffer larger than the largest class is Pooled")
	}
}

// A recycled buffer goes back to its own class: every buffer handed out
// has its class's capacity, whatever was recycled before it.
func TestRecycleKeepsClassesApart(t *testing.T) {
	for range 100 {
		for _, size := range []int{100, 200, 3000} {
			b := ParamsBuffer(size)
			if want := minPooledParams << paramsClass(size); cap(b) != want || len(b) != 0 {
				t.Fatalf("ParamsBuffer(%d): len %d cap %d, want 0 and %d", size, len(b), cap(b), want)
			}
			RecycleParams(append(b, "x"...))
		}
	}
}
