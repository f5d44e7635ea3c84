package transport

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/callerr"
	"github.com/mcpactor/mcpactor/internal/harness"
	"github.com/mcpactor/mcpactor/internal/testserver"
)

// The policies on a given parent environment: all of it, the SDK's short
// list (without exported shell functions), or nothing; Env on top in each.
func TestServerEnvPolicies(t *testing.T) {
	parent := []string{"HOME=/home/u", "PATH=/bin", "AWS_SECRET_ACCESS_KEY=s3cr3t", "TERM=() { :; }; echo pwned", "USER=u", "Path=C:\\bin", "TEMP=C:\\t"}
	env := map[string]string{"API_KEY": "k", "PATH": "/opt/bin"}
	for _, tc := range []struct {
		policy  EnvInheritance
		windows bool
		want    []string
	}{
		{EnvInheritAll, false, append(slices.Clone(parent), "API_KEY=k", "PATH=/opt/bin")},
		{EnvInheritSafe, false, []string{"HOME=/home/u", "PATH=/bin", "USER=u", "API_KEY=k", "PATH=/opt/bin"}},
		{EnvInheritSafe, true, []string{"PATH=/bin", "Path=C:\\bin", "TEMP=C:\\t", "API_KEY=k", "PATH=/opt/bin"}},
		{EnvInheritNone, false, []string{"API_KEY=k", "PATH=/opt/bin"}},
	} {
		got, err := serverEnv(tc.policy, parent, env, tc.windows)
		if err != nil {
			t.Fatalf("%q: %v", tc.policy, err)
		}
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q (windows %v):\n got %q\nwant %q", tc.policy, tc.windows, got, tc.want)
		}
	}
	if _, err := serverEnv("Safe", parent, env, false); !errors.Is(err, errUnknownEnvInheritance) {
		t.Errorf("unknown policy: %v", err)
	}
}

// The policy reaches the process: a server under EnvInheritNone sees only
// Env, one under EnvInheritSafe no secret of the parent's; an unknown
// policy is refused at start, naming the server and the value.
func TestStdioEnvInheritance(t *testing.T) {
	t.Setenv("MCPACTOR_TEST_PARENT_SECRET", "parent-secret")
	for _, tc := range []struct {
		policy   EnvInheritance
		inherits bool
	}{{EnvInheritAll, true}, {EnvInheritSafe, false}, {EnvInheritNone, false}} {
		s := startServer(t, testserver.Options{}, nil, nil, func(c *StdioConfig) {
			c.Command, c.Args = "/bin/sh", []string{"-c", `echo "secret=[$MCPACTOR_TEST_PARENT_SECRET] own=[$OWN] path=[$PATH]" >&2`}
			c.Env = map[string]string{"OWN": "mine", "PATH": "/usr/bin:/bin"}
			c.InheritEnv = tc.policy
		})
		want := "secret=[] own=[mine]"
		if tc.inherits {
			want = "secret=[parent-secret] own=[mine]"
		}
		s.stderr.Wait(t, want)
		<-s.conn.Done()
	}

	sys := harness.ActorSystem(t)
	conn := SpawnStdio(sys.Root, sys.Root, nil, StdioConfig{Server: "files", Command: "/bin/true", InheritEnv: "everything"})
	<-conn.Done()
	err := conn.Err()
	var se *callerr.Error
	if !(errors.As(err, &se) && callerr.Start(se) == se) || !errors.Is(err, errUnknownEnvInheritance) || !strings.Contains(err.Error(), `"files"`) || !strings.Contains(err.Error(), `"everything"`) {
		t.Errorf("unknown policy: %v", err)
	}
}
