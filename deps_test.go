package mcpactor_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencies keeps the root package lean: a program that imports
// only github.com/mcpactor/mcpactor links the OpenTelemetry API, not the
// exporters (OTLP over gRPC and HTTP, stdout), the trace SDK or gRPC. Those
// are in package telemetry/otelenv, which only programs that want them
// import (cmd/demo does). Before the move the root linked 479 packages, 86
// of them gRPC.
//
// What protoactor-go itself imports is not fought: its actor package
// imports go.opentelemetry.io/otel/exporters/prometheus and
// go.opentelemetry.io/otel/sdk/metric (with sdk, sdk/resource,
// sdk/instrumentation and their internals) for its own actor metrics, so
// those are allowed when, and only when, they come from protoactor's own
// dependencies. gRPC, the OTLP protobufs, the OTLP and stdout exporters and
// the trace SDK are forbidden outright.
func TestDependencies(t *testing.T) {
	root := deps(t, "github.com/mcpactor/mcpactor")
	protoactor := deps(t, "github.com/asynkron/protoactor-go/actor")
	t.Logf("github.com/mcpactor/mcpactor links %d packages (%d of them come with protoactor-go/actor)", len(root), len(protoactor))

	forbidden := []string{
		"google.golang.org/grpc",
		"go.opentelemetry.io/otel/exporters/",
		"go.opentelemetry.io/otel/sdk",
		"go.opentelemetry.io/proto",
	}
	always := []string{ // never allowed, whoever brings them
		"google.golang.org/grpc",
		"go.opentelemetry.io/proto",
		"go.opentelemetry.io/otel/exporters/otlp",
		"go.opentelemetry.io/otel/exporters/stdout",
		"go.opentelemetry.io/otel/sdk/trace",
	}
	var tolerated []string
	for _, p := range root {
		if !hasAnyPrefix(p, forbidden) {
			continue
		}
		if hasAnyPrefix(p, always) || !slices.Contains(protoactor, p) {
			t.Errorf("the root package links %s", p)
			continue
		}
		tolerated = append(tolerated, p)
	}
	if len(tolerated) > 0 {
		t.Logf("linked because protoactor-go imports them: %s", strings.Join(tolerated, ", "))
	}
}

// deps runs go list -deps for pkg (standard library included).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	// go test puts its own GOROOT/bin first in PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %s", pkg, msg)
	}
	return strings.Fields(string(out))
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
