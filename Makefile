# Everything a developer or CI runs. `make test` is the one CI calls.
GO      ?= go
BIN     := bin
PKGS    := ./...
FUZZTIME ?= 10s
RUNS    ?= 5
GATOR_VERSION := v3.23.1

.PHONY: all build test unit cases fmt fmt-check vet fuzz bench capabilities celcache clean gatekeeper gator gator-verify

all: build test

build:
	$(GO) build -o $(BIN)/evaluate ./cmd/evaluate

# vet, formatting, Go tests (unit, golden, differential, CLI), gator on
# every Gatekeeper suite, then every case file and Rego unit test through the
# command a user types, on both engines. The last line is the case runner's
# "N passed, M failed".
test: vet fmt-check unit gator-verify cases

unit:
	$(GO) test -count=1 $(PKGS)

cases: build
	$(BIN)/evaluate test --engine both testdata/cases policies

fmt:
	gofmt -w $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# Short fuzzing runs of the parsers (FUZZTIME each).
fuzz:
	$(GO) test ./builtins -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./policies/gatekeeper -run '^$$' -fuzz '^FuzzStandIn$$' -fuzztime $(FUZZTIME)

# The Go benchmarks of the hot paths (allocations reported), then the table
# of bench/run.sh: evaluate match per engine against the plain-Go matcher.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./builtins ./engine
	RUNS=$(RUNS) bash bench/run.sh

# Rewrite policies/capabilities.json from the builtins' declarations.
capabilities:
	$(GO) test ./builtins -run TestCapabilitiesFileIsCurrent -update

# Rewrite engine/celcompiled.gob.gz, the embedded CEL policies' checked
# expressions (a process then skips parsing them), after any change to
# policies/cel or to the CEL builtins. A Go test fails when it is stale.
celcache:
	$(GO) test ./engine -run TestPrecompiledCELIsCurrent -update

# Regenerate the Gatekeeper bundle (policies/gatekeeper: templates, sample
# constraints, gator suites, sync config) from the policies, and the gator
# suite of the sample selection cases. A Go test fails when they are stale.
gatekeeper: build
	$(BIN)/evaluate gatekeeper
	$(BIN)/evaluate gatekeeper suite -o testdata/gatekeeper/sample-selection testdata/cases/sample-selection.yaml

# Gatekeeper's gator CLI, installed into bin/ and reused while it is the
# pinned version (the first build takes a few minutes).
gator:
	@if ! $(GO) version -m $(BIN)/gator 2>/dev/null | grep -q 'gatekeeper/v3[[:space:]]*$(GATOR_VERSION)[[:space:]]'; then \
	  echo "installing gator $(GATOR_VERSION) into $(BIN)/"; \
	  GOBIN=$(CURDIR)/$(BIN) $(GO) install github.com/open-policy-agent/gatekeeper/v3/cmd/gator@$(GATOR_VERSION); \
	fi

# Every gator suite, on Gatekeeper's own engines: the templates' suites and
# the converted selection cases, once as Gatekeeper runs them by default (a
# template's CEL code when it has some) and once with Rego only.
gator-verify: gator
	@for s in $$(find policies/gatekeeper testdata/gatekeeper -name suite.yaml | sort); do \
	  $(BIN)/gator verify $$s || exit 1; \
	  $(BIN)/gator verify --enable-k8s-native-validation=false $$s || exit 1; \
	done

clean:
	rm -rf $(BIN)
