// Package conformance runs the client scenarios of the MCP conformance
// suite (npm @modelcontextprotocol/conformance, on Node 22) against
// mcpactor's client for it, internal/conformance/client: each scenario is
// a subtest of TestClientScenarios, judged by
// testdata/conformance/verdict.js from the suite's own record of the run.
// The test is built with the tag conformance only, so that go test ./...
// leaves it out:
//
//	go test -tags conformance -count=1 ./internal/conformance
//
// `make conformance` runs it, and `make test` runs that last.
package conformance
