# mcpactor: build and test entry points. `.ci/run` runs `make test`.
#
#   make peers   install the independent test peers (npm ci in testdata/npm,
#                build the go-sdk everything-server into bin/)
#   make test    peers, then go test -race ./..., the bench module's tests
#                (so it keeps compiling), then a short run of every fuzz
#                target; prints `N passed, N failed` last
#   make vet     go vet and a gofmt check
#   make bench   benchmarks in the bench/ module (when it exists)
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

NPM_DIR   := testdata/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.mcpactor-installed
GOSDK_DIR := testdata/peers/gosdk
GOSDK_PKG := github.com/modelcontextprotocol/go-sdk/conformance/everything-server
GOSDK_BIN := $(BIN)/gosdk-everything-server
TESTREPORT := $(BIN)/testreport

.PHONY: peers test vet bench demo clean

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
# and $(REPORTLOG). A go test run that exits non-zero adds a runner-exit event,
# so a failure that shows no failing test (go test could not start) still
# fails. Fuzz targets are found with `go test -list '^Fuzz'` (the "ok <pkg>"
# line follows each package's names) and run one at a time, without -race.
test: peers $(TESTREPORT)
	@mkdir -p $(BIN)
	@( rc=0; \
	  $(GO) test $(GOTESTFLAGS) -json ./... 2>&1 || { rc=$$?; \
	    echo "{\"Action\":\"runner-exit\",\"Package\":\"go test ./...\",\"Output\":\"$$rc\"}"; }; \
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
	  exit $$rc ) | tee $(TESTLOG) | $(TESTREPORT) | tee $(REPORTLOG)

vet:
	$(GO) vet ./...
	@if [ -f bench/go.mod ]; then $(GO) -C bench vet ./...; fi
	@unformatted=$$(find . -name '*.go' -not -path '*/testdata/*' -not -path './bin/*' -not -path '*/node_modules/*' -print0 | xargs -0 -r gofmt -l); \
	if [ -n "$$unformatted" ]; then echo "gofmt -w needed for:"; echo "$$unformatted"; exit 1; fi

bench:
	@if [ -f bench/go.mod ]; then \
	  $(GO) -C bench test -run '^$$' -bench . ./...; \
	else \
	  echo "bench/go.mod does not exist yet: no benchmarks to run"; \
	fi

demo:
	$(GO) run ./cmd/demo

clean:
	rm -rf $(BIN) $(NPM_DIR)/node_modules
