package harness

import (
	"fmt"
	"testing"
)

func TestLines(t *testing.T) {
	var l Lines
	for i := range keptLines + 5 {
		l.Add(fmt.Sprintf("line %d", i))
	}
	if l.Count() != keptLines+5 || len(l.All()) != keptLines {
		t.Fatalf("count %d, kept %d", l.Count(), len(l.All()))
	}
	if got := l.WithPrefix("line 999"); len(got) != 11 { // 999, 9990..9999
		t.Errorf("WithPrefix: %d lines", len(got))
	}
	if line := l.Wait(t, "line 42"); line != "line 42" {
		t.Errorf("Wait: %q", line)
	}
	if _, ok := l.Find("nope"); ok {
		t.Error("Find found a missing line")
	}
}
