# Everything a developer or CI runs. `make test` is the one CI calls.
GO      ?= go
BIN     := bin
PKGS    := ./...
FUZZTIME ?= 10s
# The short runs of the fuzz targets where a pull request's input enters
# (fuzz-input, part of make test), each.
FUZZSHORT ?= 3s
RUNS    ?= 5
BEFORE  ?=
BASE    ?=
GATOR_VERSION := v3.23.1
KYVERNO_VERSION := v1.19.1
# What make kyverno builds of Kyverno: its CLI and its admission controller
# (make kyverno-cli: the CLI alone).
KYVERNO_PARTS ?= cli/kubectl-kyverno kyverno
ETCD_VERSION  := v3.6.16
KUBE_VERSION  := v1.35.4
CLUSTER_DIR   := $(BIN)/cluster
# `evaluate version` shows these: the nearest tag (none: the module's
# build information decides) and the commit, "-dirty" with changes.
VERSION  ?= $(shell git describe --tags --dirty 2>/dev/null)
REVISION ?= $(shell git describe --always --dirty --abbrev=40 --exclude='*' 2>/dev/null)
LDFLAGS  := -X main.version=$(VERSION) -X main.revision=$(REVISION)

.PHONY: FORCE all build install docs prereqs test unit race cases fmt fmt-check vet fuzz fuzz-input bench capabilities celcache crdschema clean bundles gatekeeper gator gator-verify kyverno kyverno-cli kyverno-verify tools cluster cluster-down e2e e2e-vet screenshot

all: build test

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/evaluate ./cmd/evaluate

# evaluate into $(go env GOBIN), else $(go env GOPATH)/bin.
install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/evaluate

# vet, formatting, Go tests (unit, golden, differential, CLI, and the
# floors of docs/architecture.md held against the imports), the workers'
# shared batch under the race detector, a few seconds of fuzzing where a
# pull request's input enters (fuzz-input), the release's linux/amd64 snapshot
# (release-check, at the end of this file), gator on every Gatekeeper suite,
# the end-to-end checks on a local cluster, then every case file and Rego unit
# test through the command a user types, on both engines. The last line is
# the case runner's "N passed, M failed". Its prerequisites are checked
# first (prereqs).
test: prereqs vet fmt-check unit race fuzz-input release-check gator-verify kyverno-verify e2e cases

# What the tests need beyond Go and make (Chromium, git, a C compiler for
# the race detector), checked before anything else: installed with apt-get
# as root or with passwordless sudo, otherwise a stop with the command to
# run (scripts/prereqs.sh).
prereqs:
	@$(SHELL) scripts/prereqs.sh

# Every Go test, among them the report's tests in headless Chromium
# (report/browser_test.go; Debian's chromium package, which prereqs
# installs when missing).
unit: prereqs
	$(GO) test -count=1 -timeout 30m $(PKGS)

# The workers of `evaluate match` share the prepared runtimes: under the race
# detector, they only read them. The detector needs cgo, so a C compiler:
# scripts/prereqs.sh installs Debian's gcc when there is none, or stops with
# the command to run; the test never runs without -race.
race:
	@$(SHELL) scripts/prereqs.sh race
	CGO_ENABLED=1 $(GO) test -count=1 -race -run '^TestWorkersShareThePreparedRuntimes$$' ./engine

# Rewrite docs/report.png, the README's screenshot of the catalog's report,
# from the browser test that checks that report in headless Chromium.
screenshot: prereqs
	$(GO) test -count=1 ./report -run '^TestCatalogReportInBrowser$$' -screenshot $(CURDIR)/docs/report.png

# Every case file and Rego unit test through the command, each case on
# every OME release it holds for (its omeVersions, else every release).
cases: build
	$(BIN)/evaluate test --engine both --ome-version all testdata/cases policies

fmt:
	gofmt -w $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# Short fuzzing runs of the parsers and the stand-ins (FUZZTIME each).
fuzz:
	$(GO) test ./builtins -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./input -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./admission -run '^$$' -fuzz '^FuzzStandIn$$' -fuzztime $(FUZZTIME)
	$(GO) test ./admission -run '^$$' -fuzz '^FuzzTeamStandIns$$' -fuzztime $(FUZZTIME)
	$(GO) test ./output -run '^$$' -fuzz '^FuzzAppendJSONString$$' -fuzztime $(FUZZTIME)
	$(MAKE) fuzz-input FUZZSHORT=$(FUZZTIME)

# The fuzz targets where a pull request's input enters, FUZZSHORT each
# (part of make test): the reading of objects (sizes, aliases, nesting,
# links) and of a team's rules (their sandbox and limits). Their corpora
# are in testdata/fuzz of their packages.
fuzz-input:
	$(GO) test ./input -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZSHORT)
	$(GO) test ./rules -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZSHORT)

# The Go benchmarks of the hot paths (allocations reported), then the
# tables: bench/run.sh (evaluate match per engine against the bare plain-Go
# program, on the catalog and three shapes of generated cluster),
# bench/gatekeeper.sh (the templates per object in gator test, at 100, 1,000
# and 10,000 runtimes), bench/lint.sh (evaluate lint on one core, at 700,
# 11,200 and 45,000 runtimes, and with --rules at 700 and 11,200),
# bench/diff.sh (evaluate diff of 5 and of
# every runtime against one match, 300 x 700) and bench/commands.sh
# (select, explain, report and test) and bench/fleet.sh (10 clusters of
# 300 x 1,000 on fake API servers, in one run and in 10), each written into
# docs/performance.md between its markers. Every evaluate row runs beside
# the baseline's evaluate (bench/baseline.sh: the commit of bench/BASELINE,
# or BASE=REV, built once into bin/baseline/), in alternating runs, and
# states its ratio to it; make bench fails when a row is more than 10%
# slower than the baseline, unless BENCH_ALLOW="ROW ..." names it (the
# table marks it either way). BEFORE=REV measures that commit's Gatekeeper
# templates beside, and writes no table.
bench: gator
	$(GO) test -run '^$$' -bench . -benchmem ./builtins/... ./engine/... ./admission/... ./objects ./output
	status=0; \
	RUNS=$(RUNS) BASE=$(BASE) BENCH_ALLOW="$(BENCH_ALLOW)" bash bench/doc.sh bench/run.sh RUNS ONE_RUNS DATASETS RELEASES || status=1; \
	RUNS=$(RUNS) BEFORE=$(BEFORE) bash bench/doc.sh bench/gatekeeper.sh RUNS SIZES ONLY SELECTION_OBJECTS LINT_OBJECTS FLOOR || status=1; \
	BASE=$(BASE) BENCH_ALLOW="$(BENCH_ALLOW)" bash bench/doc.sh bench/lint.sh RUNS SIZES ENGINES RELEASES RULES_SIZES || status=1; \
	RUNS=$(RUNS) BASE=$(BASE) BENCH_ALLOW="$(BENCH_ALLOW)" bash bench/doc.sh bench/diff.sh RUNS ENGINES RELEASES || status=1; \
	RUNS=$(RUNS) BASE=$(BASE) BENCH_ALLOW="$(BENCH_ALLOW)" bash bench/doc.sh bench/commands.sh RUNS SHORT_RUNS ENGINES RELEASES COMMANDS || status=1; \
	bash bench/doc.sh bench/fleet.sh RUNS CLUSTERS MODELS RUNTIMES LATENCY || status=1; \
	exit $$status

# Rewrite docs/cli.md from the commands' help, the output and exit codes
# that README.md and docs/*.md show for their examples, and the table of
# docs/compatibility.md. Tests fail when any of them is stale.
docs:
	$(GO) test -count=1 ./cmd/evaluate -run '^(TestCLIDocIsCurrent|TestDocExamples|TestCompatibilityDocIsCurrent)$$' -update

# Rewrite policies/capabilities.json from the builtins' declarations.
capabilities:
	$(GO) test ./builtins/regolib -run TestCapabilitiesFileIsCurrent -update

# Rewrite engine/cel/precompiled.bin, the embedded CEL policies' checked
# expressions in cel-go's protobuf form (a process then skips parsing
# them), after any change to policies/cel, to the CEL builtins or to
# cel-go's version. A Go test fails when it is stale.
celcache:
	$(GO) test ./engine/cel -run TestPrecompiledCELIsCurrent -update

# Rewrite objects/crdschema (OME's CRD schemas for lint's crd-schema rule)
# from testdata/ome-crds. A Go test fails when it is stale.
crdschema:
	$(GO) test ./objects/crdschema -run TestCRDSchemasAreCurrent -update

# Regenerate every bundle from the policies: Gatekeeper's (policies/gatekeeper:
# templates, sample constraints, gator suites, sync config), the
# ValidatingAdmissionPolicies (policies/kubernetes) and Kyverno's
# (policies/kyverno), and the gator suite of the sample selection cases. A Go
# test fails when they are stale. gatekeeper is its former name, kept as an alias.
bundles: build
	$(BIN)/evaluate gatekeeper
	$(BIN)/evaluate kyverno
	$(BIN)/evaluate gatekeeper suite --out testdata/gatekeeper/sample-selection testdata/cases/sample-selection.yaml

gatekeeper: bundles

# Gatekeeper's gator CLI, installed into bin/ and reused while it is the
# pinned version (the first build takes a few minutes).
gator:
	@if ! $(GO) version -m $(BIN)/gator 2>/dev/null | grep -q 'gatekeeper/v3[[:space:]]*$(GATOR_VERSION)[[:space:]]'; then \
	  echo "installing gator $(GATOR_VERSION) into $(BIN)/"; \
	  GOBIN=$(CURDIR)/$(BIN) $(GO) install github.com/open-policy-agent/gatekeeper/v3/cmd/gator@$(GATOR_VERSION); \
	fi

# Every gator suite, on Gatekeeper's own engines: the templates' suites and
# the converted selection cases, once as Gatekeeper runs them by default (a
# template's CEL code when it has some) and once with Rego only; then the
# suites of each older release's bundle.
gator-verify: build gator
	@for s in $$(find policies/gatekeeper testdata/gatekeeper -name suite.yaml | sort); do \
	  $(BIN)/gator verify $$s || exit 1; \
	  $(BIN)/gator verify --enable-k8s-native-validation=false $$s || exit 1; \
	done
	@# The bundle of each older OME release (policies/releases.yaml), with
	@# the suites of the cases that hold for it, made by the binary in an
	@# empty folder, as outside a clone.
	@for r in $$(sed -n 's/^- name: //p' policies/releases.yaml | tail -n +2); do \
	  d=$$(mktemp -d) || exit 1; \
	  (cd $$d && $(abspath $(BIN))/evaluate gatekeeper --ome-version $$r --out gatekeeper --native-out '') >/dev/null || { rm -rf $$d; exit 1; }; \
	  for s in $$(find $$d -name suite.yaml | sort); do \
	    $(BIN)/gator verify $$s || { echo "OME $$r: $$s"; rm -rf $$d; exit 1; }; \
	  done; \
	  rm -rf $$d; \
	done
	@# A team's own rules (examples/company-rules) in the Gatekeeper bundle:
	@# each rule's template run by gator on the lint objects, the example
	@# runtimes and a namespace prod, against what evaluate lint --rules
	@# finds; the rule that reads OME's decisions with all of them as the
	@# inventory.
	@d=$$(mktemp -d) || exit 1; \
	$(BIN)/evaluate gatekeeper --rules examples/company-rules \
	  --lint testdata/lint/bad,testdata/examples/runtimes,testdata/rules/prod.yaml --out $$d/gatekeeper --native-out '' >/dev/null 2>&1 || { rm -rf $$d; exit 1; }; \
	for s in $$(find $$d/gatekeeper/team -name suite.yaml | sort); do \
	  $(BIN)/gator verify $$s || { echo "team rules: $$s"; rm -rf $$d; exit 1; }; \
	done; \
	rm -rf $$d
	@# The rule forms of testdata/rules/corpus, each folder's rules in its
	@# own bundle (with the flags of its bundle-flags, such as exemptions),
	@# run by gator on the folder's objects against what evaluate lint
	@# --rules gives them (no violation for an exempt object); with
	@# exemptions, OME's own suites too.
	@for f in testdata/rules/corpus/*/; do \
	  d=$$(mktemp -d) || exit 1; \
	  $(BIN)/evaluate gatekeeper --rules $$f/rules --lint $$f/objects.yaml --out $$d/gatekeeper --native-out '' \
	    $$(cat $$f/bundle-flags 2>/dev/null) >/dev/null || { echo "corpus: $$f"; rm -rf $$d; exit 1; }; \
	  suites=$$d/gatekeeper/team; [ -f $$f/bundle-flags ] && suites=$$d/gatekeeper; \
	  for s in $$(find $$suites -name suite.yaml | sort); do \
	    $(BIN)/gator verify $$s >/dev/null || { $(BIN)/gator verify $$s; echo "corpus: $$f: $$s"; rm -rf $$d; exit 1; }; \
	  done; \
	  echo "corpus $$f: gator verify passes"; \
	  rm -rf $$d; \
	done

# Kyverno's CLI (kubectl-kyverno) and admission controller (kyverno, which
# the end-to-end checks run beside Gatekeeper), built from its Go module
# into bin/ and reused while they are the pinned version. `go install
# pkg@version` refuses the module (its go.mod has a replace directive), so
# they are built from a copy of the module in the module cache, at low
# priority (the first build of each takes several minutes).
kyverno:
	@for c in $(KYVERNO_PARTS); do \
	  b=$(BIN)/$$(basename $$c); \
	  $(GO) version -m $$b 2>/dev/null | grep -q 'BuildVersion=$(KYVERNO_VERSION)"' && continue; \
	  echo "building $$(basename $$c) (Kyverno $(KYVERNO_VERSION)) into $(BIN)/"; \
	  d=$$(mktemp -d) || exit 1; \
	  src=$$(cd $$d && GOFLAGS=-mod=mod $(GO) mod download -json github.com/kyverno/kyverno@$(KYVERNO_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p') && [ -n "$$src" ] || { rm -rf $$d; exit 1; }; \
	  cp -R $$src $$d/kyverno && chmod -R u+w $$d/kyverno || { rm -rf $$d; exit 1; }; \
	  (cd $$d/kyverno && nice -n 19 $(GO) build -ldflags '-s -w -X github.com/kyverno/kyverno/pkg/version.BuildVersion=$(KYVERNO_VERSION)' \
	    -o $(CURDIR)/$$b ./cmd/$$c) || { rm -rf $$d; exit 1; }; \
	  rm -rf $$d; \
	done

# Kyverno's CLI alone (kubectl-kyverno, a few minutes from cold caches), for
# kyverno test and kyverno apply without the admission controller.
kyverno-cli:
	@$(MAKE) --no-print-directory kyverno KYVERNO_PARTS=cli/kubectl-kyverno

# The Kyverno bundle of every OME release on Kyverno's own CLI: kyverno test
# on each lint policy's .kyverno-test (the lint objects of the gator
# suites), and each lint policy applied to the InferenceServices of the
# selection cases, which it must not refuse; then (admission/kyverno
# TestKyvernoCLIMessages) each lint refusal's message as kubectl-kyverno
# apply gives it, which must be OMEVersionLint's, and kyverno test on the
# selection policy's .kyverno-test (the selection cases of the gator suite,
# with their models and runtimes as the Tests' cluster resources) and on
# Tests made alike of OME's recorded answers
# (testdata/cases/sample-selection.yaml), whose every refusal must carry the
# case's message, OME's.
# policies/kyverno is the newest release's; the older releases' bundles are
# made by the binary in an empty folder, as outside a clone.
kyverno-verify: build kyverno-cli
	@set -e; for r in $$(sed -n 's/^- name: //p' policies/releases.yaml); do \
	  d=$$(mktemp -d); trap 'rm -rf $$d' EXIT; \
	  if [ $$r = $$(sed -n 's/^- name: //p' policies/releases.yaml | head -n 1) ]; then \
	    cp -R policies/kyverno $$d/kyverno; \
	  else \
	    (cd $$d && $(abspath $(BIN))/evaluate kyverno --ome-version $$r --out kyverno) >/dev/null; \
	  fi; \
	  echo "OME $$r: kubectl-kyverno test (lint; selection below, with its messages)"; \
	  for p in $$d/kyverno/ome-version-lint-*; do \
	    $(BIN)/kubectl-kyverno test --remove-color $$p > $$d/test.out 2>&1 || { cat $$d/test.out; echo "OME $$r: kubectl-kyverno test failed"; exit 1; }; \
	    echo "  $$(basename $$p): $$(grep '^Test Summary:' $$d/test.out)"; \
	  done; \
	  for t in $$d/kyverno/*/.kyverno-test/inferenceservices.yaml; do \
	    p=$$(dirname $$(dirname $$t)); \
	    $(BIN)/kubectl-kyverno apply $$p/$$(basename $$p).yaml --resource $$t --remove-color > $$d/apply.out 2>&1 || { cat $$d/apply.out; echo "OME $$r: $$(basename $$p) refuses an InferenceService"; exit 1; }; \
	    grep -q 'fail: 0, warn: 0, error: 0' $$d/apply.out || { cat $$d/apply.out; echo "OME $$r: $$(basename $$p) refuses an InferenceService"; exit 1; }; \
	    echo "  $$(basename $$p) admits the InferenceServices: $$(tail -n 1 $$d/apply.out)"; \
	  done; \
	  rm -rf $$d; trap - EXIT; \
	done
	@# kyverno test checks verdicts only: Kyverno's messages, byte for byte,
	@# and the selection policy's Tests (kubectl-kyverno test -o json); then
	@# the Tests evaluate kyverno -f writes of a team's own objects.
	KYVERNO_CLI=$(abspath $(BIN))/kubectl-kyverno $(GO) test -count=1 ./admission/kyverno ./rules/admit ./cmd/evaluate -run '^(TestKyvernoCLIMessages|TestKyvernoCLITeamPolicies|TestKyvernoTestsFromObjects)$$'
	@# A team's own rules as Kyverno ValidatingPolicies with their Tests
	@# (team/.kyverno-test), made of the lint objects as evaluate lint
	@# --rules judges them: kubectl-kyverno test on the example team's CEL
	@# rule and on each CEL rule form of testdata/rules/corpus.
	@set -e; d=$$(mktemp -d); trap 'rm -rf $$d' EXIT; \
	for f in examples/company-rules testdata/rules/corpus/cel-*; do \
	  rm -rf $$d/kyverno; \
	  if [ -d $$f/rules ]; then \
	    $(BIN)/evaluate kyverno --rules $$f/rules --lint $$f/objects.yaml --out $$d/kyverno >/dev/null; \
	  else \
	    $(BIN)/evaluate kyverno --rules $$f --lint testdata/lint/bad,testdata/examples/runtimes --out $$d/kyverno \
	      --leave-out company.prod_pins_runtime,company.prod_redundancy,company.runtime_size_range,company.transformers_floor >/dev/null 2>&1; \
	  fi; \
	  $(BIN)/kubectl-kyverno test --remove-color $$d/kyverno/team > $$d/test.out 2>&1 || { cat $$d/test.out; echo "$$f: kubectl-kyverno test failed"; exit 1; }; \
	  grep -Eq '^Test Summary: [1-9][0-9]* tests passed and 0 tests failed' $$d/test.out || { cat $$d/test.out; echo "$$f: no Test of the team's policies ran"; exit 1; }; \
	  echo "  $$f: $$(grep '^Test Summary:' $$d/test.out)"; \
	done

# The local control plane's servers, built from their Go modules at the
# pinned versions into bin/ and reused while they are those versions: etcd
# and kube-apiserver from the tools modules under tools/ (about 2 and 9
# minutes from cold caches), Gatekeeper's manager with go install, Kyverno's
# admission controller as `make kyverno` builds it.
tools: $(BIN)/etcd $(BIN)/kube-apiserver $(BIN)/gatekeeper kyverno

$(BIN)/etcd: tools/etcd/go.mod tools/etcd/main.go
	@echo "building etcd $(ETCD_VERSION) into $(BIN)/"
	cd tools/etcd && $(GO) build -o $(CURDIR)/$@ .

$(BIN)/kube-apiserver: tools/kube-apiserver/go.mod tools/kube-apiserver/main.go
	@echo "building kube-apiserver $(KUBE_VERSION) into $(BIN)/ (about 9 minutes from cold caches)"
	cd tools/kube-apiserver && $(GO) build -o $(CURDIR)/$@ .

# Gatekeeper's manager, reinstalled when bin/gatekeeper is not the pinned version.
$(BIN)/gatekeeper: FORCE
	@if ! $(GO) version -m $@ 2>/dev/null | grep -q 'gatekeeper/v3[[:space:]]*$(GATOR_VERSION)[[:space:]]'; then \
	  echo "installing Gatekeeper's manager $(GATOR_VERSION) into $(BIN)/ (about 6 minutes from cold caches)"; \
	  GOBIN=$(CURDIR)/$(BIN) $(GO) install github.com/open-policy-agent/gatekeeper/v3@$(GATOR_VERSION); \
	fi

FORCE:

$(BIN)/ome-cluster: $(wildcard e2e/go.mod e2e/cluster/*.go e2e/cmd/ome-cluster/*.go)
	cd e2e && $(GO) build -o $(CURDIR)/$@ ./cmd/ome-cluster

# etcd, kube-apiserver (OME's CRDs), Gatekeeper (sync.yaml, both
# templates, two constraints) and Kyverno (no policy) on 127.0.0.1; returns
# when Gatekeeper refuses what it should. Logs, pids and the admin kubeconfig are in bin/cluster/.
cluster: tools $(BIN)/ome-cluster
	$(BIN)/ome-cluster up -repo . -bin $(BIN) -dir $(CLUSTER_DIR)

# Stops exactly what `make cluster` started (recorded pids) and removes the state.
cluster-down:
	@if [ -x $(BIN)/ome-cluster ]; then $(BIN)/ome-cluster down -dir $(CLUSTER_DIR); else rm -rf $(CLUSTER_DIR); fi

e2e-vet:
	cd e2e && $(GO) vet ./...

# Cluster up, the end-to-end checks (e2e/), cluster down, also on failure.
e2e: build tools $(BIN)/ome-cluster e2e-vet
	@$(BIN)/ome-cluster down -dir $(CLUSTER_DIR) >/dev/null 2>&1 || true
	@status=0; \
	$(BIN)/ome-cluster up -repo . -bin $(BIN) -dir $(CLUSTER_DIR) && \
	  (cd e2e && OME_E2E_CLUSTER=$(CURDIR)/$(CLUSTER_DIR) OME_E2E_REPO=$(CURDIR) $(GO) test -count=1 -v -timeout 30m ./...) || status=$$?; \
	$(BIN)/ome-cluster down -dir $(CLUSTER_DIR) || status=1; \
	exit $$status

# Stops a running local cluster first: its pids are recorded under bin/.
clean: cluster-down
	rm -rf $(BIN)

# --- Release (issue 67) ---
# make release writes dist/ as a tag would publish it: HEAD with a tag (v*)
# and a clean tree gives that version, anything else a snapshot. The
# program is tools/release, a module of its own, so that its tools
# (cyclonedx-gomod, krew) leave the product's dependencies as they are. For
# linux and darwin on amd64 and arm64 and windows on amd64, an archive of
# the binary (stamped with the version and commit, -trimpath, CGO_ENABLED=0,
# dated at the commit) with LICENSE, NOTICE and README.md, and its CycloneDX
# SBOM; the Gatekeeper, ValidatingAdmissionPolicy and Kyverno bundles of
# each OME release, one archive each; the Linux images as an OCI layout;
# the krew manifest (evaluate.yaml); the release notes (CHANGELOG.md); and
# checksums.txt. Then sha256sum -c, the host's binary's version, the krew
# manifest on krew's validation and krew install of each platform's archive.
# release-check (in make test, before the cases, whose line stays last)
# builds the linux/amd64 snapshot alone and checks the archive, checksums,
# SBOM, stamped version, bundles, image, the krew manifest (validated,
# installed), scripts/install.sh and action.yml from it.
RELEASE_PLATFORMS := linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64
.PHONY: release release-check
release:
	$(GO) -C tools/release run . -repo $(CURDIR) -dist $(CURDIR)/dist
	cd dist && sha256sum --strict -c checksums.txt
	dist/build/$$($(GO) env GOOS)_$$($(GO) env GOARCH)/evaluate version
	$(GO) -C tools/release tool validate-krew-manifest -manifest $(CURDIR)/dist/evaluate.yaml -skip-install
	@for p in $(RELEASE_PLATFORMS); do \
	  a=$$(cd dist && ls evaluate_*_$$p.tar.gz evaluate_*_$$p.zip 2>/dev/null); r=$$(mktemp -d); \
	  KREW_ROOT=$$r KREW_OS=$${p%_*} KREW_ARCH=$${p#*_} $(GO) -C tools/release tool krew install \
	    --manifest $(CURDIR)/dist/evaluate.yaml --archive $(CURDIR)/dist/$$a > $$r.log 2>&1 && test -e $$r/bin/kubectl-evaluate* \
	    || { cat $$r.log; echo "krew install of $$a failed"; rm -rf $$r $$r.log; exit 1; }; \
	  echo "krew install --archive $$a: ok"; rm -rf $$r $$r.log; \
	done

release-check:
	cd tools/release && $(GO) vet . && $(GO) test -count=1 -timeout 20m .
