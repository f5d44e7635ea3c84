package measure

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestStartHTTPProc(t *testing.T) {
	sh := func(script string) *exec.Cmd { return exec.Command("sh", "-c", script) }

	p, url, err := StartHTTPProc(sh("echo http://127.0.0.1:9/mcp; echo more output; exec cat >/dev/null"), 30*time.Second)
	if err != nil || url != "http://127.0.0.1:9/mcp" {
		t.Fatalf("StartHTTPProc = %q, %v", url, err)
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Errorf("Stop: %v", err)
	}

	if p, _, err := StartHTTPProc(sh("echo not a url; exec cat >/dev/null"), 30*time.Second); err == nil || p != nil {
		t.Errorf("a first line that is not a URL: %v, %v", p, err)
	}

	// A server that writes nothing is stopped when wait ends. The bound
	// is generous: only that it ends, with the error that says why, is
	// the behaviour.
	start := time.Now()
	p, _, err = StartHTTPProc(sh("exec cat"), 100*time.Millisecond)
	if p != nil || err == nil || !strings.Contains(err.Error(), "wrote no URL in 100ms") {
		t.Errorf("a silent server: %v, %v", p, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("a silent server took %v to give up on", d)
	}
}
