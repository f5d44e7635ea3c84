package harness

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// FreePort returns a loopback port that was free a moment ago: the kernel
// picks it for a listener that is closed at once. Whoever binds it next
// may find it taken in between, and should be ready to try another.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// EnvMap turns "K=V" entries into a map, as ServerConfig.Env expects.
func EnvMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// InChild reruns the calling test alone in a fresh process, marked by the
// environment variable envVar, and reports whether the caller is that
// child. The parent fails t if the child fails or does not run the test.
// Tests that change process-wide state (OpenTelemetry's global providers)
// use it, so that they neither see nor disturb the others.
func InChild(t *testing.T, envVar string) bool {
	t.Helper()
	if os.Getenv(envVar) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envVar+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("child process did not run %s:\n%s", t.Name(), out)
	}
	t.Logf("child process:\n%s", out)
	return false
}
