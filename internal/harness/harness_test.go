package harness

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
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

func TestEnvMap(t *testing.T) {
	got := EnvMap([]string{"A=1", "B=x=y", "C="})
	if len(got) != 3 || got["A"] != "1" || got["B"] != "x=y" || got["C"] != "" {
		t.Errorf("EnvMap = %v", got)
	}
}

func TestFreePortCanBeBound(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("port %d: %v", port, err)
	}
	l.Close()
}

func TestLogIsSafeForConcurrentWrites(t *testing.T) {
	var l Log
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { fmt.Fprint(&l, "ab") })
	}
	wg.Wait()
	if got := l.String(); got != strings.Repeat("ab", 8) {
		t.Errorf("Log = %q", got)
	}
}
