# Everything a developer or CI runs. `make test` is the one CI calls.
GO      ?= go
BIN     := bin
PKGS    := ./...
FUZZTIME ?= 10s
RUNS    ?= 5

.PHONY: all build test unit cases fmt fmt-check vet fuzz bench capabilities clean

all: build test

build:
	$(GO) build -o $(BIN)/evaluate ./cmd/evaluate

# vet, formatting, Go tests (unit, golden, differential, CLI), then every
# case file and Rego unit test through the command a user types, on both
# engines. The last line is the case runner's "N passed, M failed".
test: vet fmt-check unit cases

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

# The Go benchmarks of the hot paths (allocations reported), then the table
# of bench/run.sh: evaluate match per engine against the plain-Go matcher.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./builtins ./engine
	RUNS=$(RUNS) bash bench/run.sh

# Rewrite policies/capabilities.json from the builtins' declarations.
capabilities:
	$(GO) test ./builtins -run TestCapabilitiesFileIsCurrent -update

clean:
	rm -rf $(BIN)
