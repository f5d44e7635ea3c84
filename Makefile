# mcpactor: build and test entry points. `.ci/run` runs `make -k check`,
# then `make -k test` (-k: every step runs, and a failed one fails the run).
#
#   make test         the peers (make peers), then go test -race ./..., the
#                     hot path's invariants without -race, the bench
#                     module's tests, a short run of every fuzz target, and
#                     the conformance scenarios (make conformance); go test
#                     runs through gotestsum, whose DONE line counts tests
#   make check        go vet (this module, with the conformance suite, and
#                     bench/), gofmt, staticcheck, the README's code against
#                     its Examples (internal/readme), and a build and vet
#                     for darwin/amd64 and windows/amd64; each also runs on
#                     its own (make vet, make cross-windows-amd64, ...)
#   make peers        the independent test peers (internal/peers/install:
#                     npm ci in testdata/npm, the go-sdk everything-server
#                     into bin/, Node 22 checked on linux-x64)
#   make conformance  the client scenarios of the MCP conformance suite,
#                     0.1.16 and 0.2.0-alpha.12, one subtest each
#                     (internal/conformance)
#   make bench        the benchmark suite (bench/cmd/benchrun), which writes
#                     docs/benchmarks.md's tables and charts (about 35
#                     minutes; BENCHFLAGS="-only stdio-echo", "-smoke", ...)
#   make soak         the soak under chaos (bench/cmd/soak): 50 servers of
#                     every kind, 2,000 callers and random faults for
#                     $(SOAK_DURATION) (SOAK_DURATION=5m for less); a passing
#                     run writes docs/reliability.md, and so does an
#                     inconclusive one (exit 3, labelled so, never over a
#                     pass). make test runs its short mode
#   make demo         go run ./cmd/demo

SHELL := /bin/bash
.SHELLFLAGS := -e -o pipefail -c
.DEFAULT_GOAL := test

GO  ?= go
NPM ?= npm
BIN := $(CURDIR)/bin

TEST_TIMEOUT ?= 5m
GOTESTFLAGS  ?= -race -count=1 -timeout=$(TEST_TIMEOUT)
# An iteration count rather than a duration: Go 1.26's fuzzer can report a
# spurious "context deadline exceeded" when a timed run ends on a loaded
# machine (golang/go#75804).
FUZZTIME ?= 200000x
# The hot path's invariants (allocations per call, the call record's size,
# the wait path's stack) are also run without -race, which allocates on
# its own: under -race they only report.
INVARIANTS := Allocations|SizeClass|FitsInFourKiB
SOAK_DURATION ?= 30m
# The platforms the library must build and vet for besides this one.
CROSS := darwin-amd64 windows-amd64

# Tools, installed into bin/ on first use and named by version, so that a
# new pin reinstalls: gotestsum runs go test and sums it up; staticcheck
# 2026.2.2 (module v0.8.2) reads Go 1.26 code.
GOTESTSUM_VERSION   ?= v1.13.0
STATICCHECK_VERSION ?= v0.8.2
GOTESTSUM   := $(BIN)/gotestsum-$(GOTESTSUM_VERSION)
STATICCHECK := $(BIN)/staticcheck-$(STATICCHECK_VERSION)

.PHONY: test test-race test-invariants test-bench test-fuzz peers conformance \
	check vet vet-bench gofmt staticcheck readme bench soak demo clean

test: peers test-race test-invariants test-bench test-fuzz conformance

test-race: peers $(GOTESTSUM)
	$(GOTESTSUM) --format pkgname --jsonfile $(BIN)/test.json -- $(GOTESTFLAGS) ./...

test-invariants: $(GOTESTSUM)
	$(GOTESTSUM) --format testname -- -count=1 -run '$(INVARIANTS)' . ./transport

# bench/ is a module of its own (it pins other MCP clients to compare
# with); its tests keep it compiling and run the soak's short mode.
test-bench: peers $(GOTESTSUM)
	cd bench && $(GOTESTSUM) --format pkgname -- -count=1 ./...

# Every fuzz target (go test -list prints a package's targets, then its
# "ok" line), one at a time and without -race; a failed one fails the step
# once every target has run.
test-fuzz:
	@$(GO) test -race -list '^Fuzz' ./... | \
	awk '/^Fuzz/ { f[n++] = $$1; next } /^ok / { for (i = 0; i < n; i++) print $$2, f[i] } { n = 0 }' | { \
	  rc=0; while read -r pkg name; do \
	    echo "fuzz $$pkg $$name"; \
	    $(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg || rc=1; \
	  done; exit $$rc; }

peers:
	$(GO) run ./internal/peers/install -npm $(NPM)

conformance: peers $(GOTESTSUM)
	$(GOTESTSUM) --format testname -- -tags conformance -count=1 -timeout 30m ./internal/conformance

check: vet vet-bench gofmt staticcheck readme $(addprefix cross-,$(CROSS))

vet:
	$(GO) vet -tags conformance ./...

vet-bench:
	$(GO) -C bench vet ./...

gofmt:
	@unformatted=$$(find . -name '*.go' -not -path '*/testdata/*' -not -path './bin/*' -not -path '*/node_modules/*' -print0 | xargs -0 -r gofmt -l); \
	if [ -n "$$unformatted" ]; then echo "gofmt -w needed for:"; echo "$$unformatted"; exit 1; fi

# Exceptions, each with its reason, are in staticcheck.conf files.
staticcheck: $(STATICCHECK)
	$(STATICCHECK) -tags conformance ./...

# Every Go block of README.md is a region of an Example
# (example_readme_test.go); go run ./internal/readme -w rewrites the README
# from them.
readme:
	$(GO) run ./internal/readme README.md

# cross-GOOS-GOARCH: the module (library, commands, tests) builds and vets
# for another platform. What differs per platform: docs/architecture.md,
# "Platforms".
cross-%:
	GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) $(GO) build ./...
	GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) $(GO) vet ./...

# install-tool PACKAGE@VERSION,NAME: go install into a scratch directory
# of bin/, then the binary NAME renamed to the target.
define install-tool
GOBIN=$@.tmp $(GO) install $(1)
mv $@.tmp/$(2) $@
rmdir $@.tmp
endef

$(GOTESTSUM):
	$(call install-tool,gotest.tools/gotestsum@$(GOTESTSUM_VERSION),gotestsum)

$(STATICCHECK):
	$(call install-tool,honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION),staticcheck)

bench:
	$(GO) -C bench run ./cmd/benchrun $(BENCHFLAGS)

soak: peers
	$(GO) -C bench run ./cmd/soak -duration $(SOAK_DURATION)

demo:
	$(GO) run ./cmd/demo

clean:
	rm -rf $(BIN) testdata/npm/node_modules
