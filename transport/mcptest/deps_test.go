package mcptest_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencies keeps the kit out of programs that do not import it,
// and the kit itself free of dependencies: the root package does not link
// it (nor its engine, internal/testserver), and what the kit links beyond
// the root package is the standard library and this module.
func TestDependencies(t *testing.T) {
	const module = "github.com/mcpactor/mcpactor"
	root := nonStandardDeps(t, module)
	for _, p := range []string{module + "/transport/mcptest", module + "/internal/testserver"} {
		if slices.Contains(root, p) {
			t.Errorf("the root package links %s", p)
		}
	}
	for _, p := range goList(t, "{{range .Imports}}{{.}} {{end}}", module+"/transport/mcptest", module+"/internal/testserver") {
		if strings.Contains(p, ".") && p != module && !strings.HasPrefix(p, module+"/") {
			t.Errorf("the kit imports %s, outside the standard library and this module", p)
		}
	}
	for _, p := range nonStandardDeps(t, module+"/transport/mcptest") {
		if !slices.Contains(root, p) && p != module && !strings.HasPrefix(p, module+"/") {
			t.Errorf("the kit links %s, which is neither the standard library, this module, nor linked by the root package", p)
		}
	}
}

// nonStandardDeps lists what pkg links outside the standard library.
func nonStandardDeps(t *testing.T, pkg string) []string {
	t.Helper()
	return goList(t, "{{if not .Standard}}{{.ImportPath}}{{end}}", "-deps", pkg)
}

// goList runs go list -f format with args.
func goList(t *testing.T, format string, args ...string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("no go command: %v", err)
	}
	out, err := exec.Command(goTool, append([]string{"list", "-f", format}, args...)...).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list %s: %s", strings.Join(args, " "), msg)
	}
	return strings.Fields(string(out))
}
