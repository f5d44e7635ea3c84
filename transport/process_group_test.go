//go:build linux

package transport

import (
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/proctest"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// A helper the server started in its process group, holding none of our
// pipes, does not outlive the transport: whether the server exits on its
// own or is stopped by Close (closing stdin ends it), its group is ended
// with it, the leader having exited already.
func TestProcessGroupEndedWithTheServer(t *testing.T) {
	const helper = `sleep 60 </dev/null >/dev/null 2>&1 & echo "helper $!" >&2; `
	for _, tc := range []struct {
		name, script string
		close        bool
	}{
		{"server exits", helper + `exit 0`, false},
		{"server closed", helper + `cat >/dev/null; exit 0`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) {
				c.Command, c.Args = "/bin/sh", []string{"-c", tc.script}
			})
			s.stderr.Wait(t, "helper")
			if tc.close {
				// The server is running, and so is its helper.
				harness.WaitFor(t, "the server's helper", func() bool {
					return proctest.WithEnv(markVar+"="+s.mark, "sleep") != 0
				})
				s.close()
			}
			<-s.conn.Done()
			// Gone, or a zombie waiting for its new parent to reap it
			// (whose environment cannot be read).
			harness.WaitFor(t, "the helper to be killed", func() bool {
				return proctest.WithEnv(markVar+"="+s.mark, "sleep") == 0
			})
		})
	}
}
