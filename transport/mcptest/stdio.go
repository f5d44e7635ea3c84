package mcptest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// envServer names, in a re-executed test binary, the server it is to be.
const envServer = "MCPTEST_SERVER"

// RunIfChild makes this process the server servers[name] when it was
// started by Stdio(name), serving stdin and stdout until stdin ends, and
// exits; otherwise it returns at once. Call it first thing in TestMain:
//
//	var servers = map[string]*mcptest.Server{"weather": weather}
//
//	func TestMain(m *testing.M) {
//		mcptest.RunIfChild(servers)
//		os.Exit(m.Run())
//	}
//
// The servers must be declared at package level (or built by TestMain
// before this call), so that the child has the same ones: it is a new
// process running the same binary.
func RunIfChild(servers map[string]*Server) {
	name, ok := os.LookupEnv(envServer)
	if !ok {
		return
	}
	s := servers[name]
	if s == nil {
		fmt.Fprintf(os.Stderr, "mcptest: no server %q in RunIfChild's map\n", name)
		os.Exit(2)
	}
	spec := s.spec()
	spec.Exit = os.Exit // a crash is the process's exit, stderr first
	opts := s.options()
	if s.Faults.IgnoreSIGTERM {
		signal.Ignore(syscall.SIGTERM)
		opts.IgnoreSIGTERM = true // and outlive stdin
	}
	err := testserver.ServeSpec(context.Background(), os.Stdin, os.Stdout, os.Stderr, opts, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Stdio returns a configuration starting this test binary again as the
// server RunIfChild finds under name, a subprocess over real pipes: the
// way a stdio server is reached, exit statuses and stderr included.
// SIGTERM ends the child as it ends any process. The child is given
// -test.run=^$, so that a test binary whose TestMain forgot RunIfChild
// runs none of its tests again (and the connection fails on its output)
// rather than all of them.
func Stdio(name string) mcpactor.ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	env := map[string]string{envServer: name}
	// A race-enabled binary sleeps a second when it exits with status 0,
	// for late race reports: spare every child that second.
	if gorace := os.Getenv("GORACE"); !strings.Contains(gorace, "atexit_sleep_ms") {
		env["GORACE"] = strings.TrimSpace(gorace + " atexit_sleep_ms=0")
	}
	return mcpactor.ServerConfig{Command: exe, Args: []string{"-test.run=^$"}, Env: env}
}
