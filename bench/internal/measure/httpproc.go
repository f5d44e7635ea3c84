package measure

import (
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

// StartHTTPProc starts cmd, a server that writes the URL it listens on as
// its first line of stdout (as mcpactor's test server does in HTTP mode,
// see testserver.ReadURL), and returns the process and the URL. The rest
// of stdout is drained so the server never blocks on it. A server that
// writes no URL within wait, or fails to, is stopped.
func StartHTTPProc(cmd *exec.Cmd, wait time.Duration) (*Proc, string, error) {
	p, err := StartProc(cmd)
	if err != nil {
		return nil, "", err
	}
	type got struct {
		url string
		err error
	}
	ch := make(chan got, 1)
	go func() {
		u, err := testserver.ReadURL(p.Stdout)
		ch <- got{u, err}
		_, _ = io.Copy(io.Discard, p.Stdout)
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case g := <-ch:
		if g.err != nil {
			_ = p.Stop(5 * time.Second)
			return nil, "", g.err
		}
		return p, g.url, nil
	case <-timer.C:
		_ = p.Stop(5 * time.Second)
		return nil, "", fmt.Errorf("the server wrote no URL in %v", wait)
	}
}
