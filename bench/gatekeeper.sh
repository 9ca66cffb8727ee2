#!/usr/bin/env bash
# Measures the Gatekeeper templates as a new user would, with gator test
# (Gatekeeper's own engine, bin/gator): the cost of one more object under
# review, all else equal. For each inventory size it times gator test with 1
# and with N objects under review (21 unless SELECTION_OBJECTS says; median
# of RUNS runs each) and prints (tN - t1) / (N - 1), the marginal cost per
# object, which leaves out gator's start-up and the inventory's loading.
# With BEFORE, each run times both trees in turn (for both templates), so
# that the machine's drift falls on both alike.
#
# OMERuntimeSelection: an inventory of N generated ClusterServingRuntimes and
# 50 ClusterBaseModels (evaluate generate --shape many --architectures 12
# --versions 150: every entry has the models' format and framework names,
# about a third with an ordering operator, some quantized), and
# InferenceServices that are admitted (their model has a selectable runtime)
# or refused (no runtime accepts their model: every runtime is excluded
# with its reason).
#
# OMEVersionLint: runtimes of 64 entries, on Rego and on K8sNativeValidation.
#
# With BEFORE=REV (a commit), the templates of that commit are measured
# beside, on the same inventories, as the rows marked @REV.
#
# With ONLY=lint, only OMEVersionLint is measured; with LINT_OBJECTS=N, its
# runtimes are 1 or N (21 unless set; more objects, less noise). With
# ONLY=selection, only OMERuntimeSelection is measured.
#
# With FLOOR=1, stand-ins of the two templates (the same kinds and
# parameters, other code) are measured beside, on the same objects, as the
# rows marked (floor): what no template can go below in gator. The
# OMEVersionLint stand-in finds nothing (its Rego matches no object, its
# CEL is one validation, true); the OMERuntimeSelection stand-in reads
# every ClusterServingRuntime as the template hands runtimes to the rules
# (kind, metadata, the spec fields the rules read) and refuses every
# InferenceService with their names.
#
# Usage: bench/gatekeeper.sh               (from the repository root; make bench)
#        SIZES="100 1000" RUNS=3 bench/gatekeeper.sh
#        BEFORE=HEAD~3 bench/gatekeeper.sh
#        ONLY=lint LINT_OBJECTS=101 RUNS=5 BEFORE=HEAD~1 bench/gatekeeper.sh
#        ONLY=selection SIZES=1000 BEFORE=HEAD~1 bench/gatekeeper.sh
#        ONLY=selection SIZES=1000 SELECTION_OBJECTS=101 RUNS=5 BEFORE=HEAD~1 bench/gatekeeper.sh
#        ONLY=lint LINT_OBJECTS=101 FLOOR=1 bench/gatekeeper.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
SIZES=${SIZES:-100 1000 10000}
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "${BEFORE:-}" ] || git worktree remove --force "$work/before" 2>/dev/null || true' EXIT
trees=.
if [ -n "${BEFORE:-}" ]; then
  git worktree add -q --detach "$work/before" "$BEFORE"
  trees=". $work/before"
fi
if [ -n "${FLOOR:-}" ]; then
  # The stand-ins: each template's kind and parameters (everything before
  # its code), its samples, and code of their own.
  for t in omeruntimeselection omeversionlint; do
    mkdir -p "$work/floor/policies/gatekeeper/$t"
    cp -r "policies/gatekeeper/$t/samples" "$work/floor/policies/gatekeeper/$t/"
    awk '/^      code:/ {exit} {print}' "policies/gatekeeper/$t/template.yaml" >"$work/floor/policies/gatekeeper/$t/template.yaml"
  done
  cat >>"$work/floor/policies/gatekeeper/omeruntimeselection/template.yaml" <<'EOF'
      code:
        - engine: Rego
          source:
            version: v1
            rego: |
              package omeruntimeselection

              violation contains {"msg": concat("; ", [r.metadata.name | some r in runtimes])} if {
              	input.review.object.kind == "InferenceService"
              }

              runtimes := [{
              	"kind": o.kind,
              	"metadata": {
              		"name": o.metadata.name,
              		"namespace": object.get(o, ["metadata", "namespace"], ""),
              		"creationTimestamp": object.get(o, ["metadata", "creationTimestamp"], null),
              	},
              	"spec": {k: v | some k in ["acceleratorRequirements", "disabled", "modelSizeRange", "supportedModelFormats"]; v := o.spec[k]},
              } |
              	some o in object.get(data.inventory, ["cluster", "ome.io/v1beta1", "ClusterServingRuntime"], {})
              ]
EOF
  cat >>"$work/floor/policies/gatekeeper/omeversionlint/template.yaml" <<'EOF'
      code:
        - engine: Rego
          source:
            version: v1
            rego: |
              package omeversionlint

              violation contains {"msg": "never"} if input.review.object.kind == "NoSuchKind"
        - engine: K8sNativeValidation
          source:
            validations:
              - expression: "true"
                message: never
EOF
  trees="$trees $work/floor"
fi
# label_of TREE: what a row of TREE's templates says after its label.
label_of() {
  case $1 in
    .) ;;
    "$work/floor") printf ' (floor)' ;;
    *) printf ' @%s' "$BEFORE" ;;
  esac
}
[ -x bin/gator ] || make -s gator
[ -x bin/kubectl-kyverno ] || make -s kyverno
go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/measure" ./bench/measure
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

# gator_ms FILE ARGS...: appends the wall ms of one gator test ARGS to FILE.
gator_ms() {
  local out=$1; shift
  "$work/measure" bin/gator test "$@" 2>/dev/null | cut -d' ' -f1 >>"$out"
}

# isvc NAME MODEL: an InferenceService of namespace default on a ClusterBaseModel,
# with an engine that has no runner of its own, so that OME selects a runtime.
isvc() {
  printf 'apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {name: %s, namespace: default}\nspec:\n  model: {name: %s}\n  engine: {}\n---\n' "$1" "$2"
}

sel=policies/gatekeeper/omeruntimeselection
objects=${SELECTION_OBJECTS:-21}
[ "${ONLY:-}" = lint ] && SIZES=
[ -n "$SIZES" ] && printf '%-34s %9s %11s %11s %13s\n' "OMERuntimeSelection" runtimes "admitted_ms" "refused_ms" "per object"
for n in $SIZES; do
  # An inventory of 10,000 runtimes takes minutes per gator run: once.
  runs=$RUNS; [ "$n" -lt 10000 ] || runs=1
  d="$work/inv-$n"
  "$work/evaluate" generate --dir "$d" --models 50 --runtimes "$n" --seed 7 --shape many --architectures 12 --versions 150 >/dev/null
  # A model no runtime accepts (its architecture is nobody's), so that a
  # refusal excludes every runtime with its reason.
  printf -- '---\napiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: unmatched}\nspec:\n  modelFormat: {name: safetensors, version: "1.0.0"}\n  modelFramework: {name: transformers, version: "4.40.0"}\n  modelArchitecture: NoSuchArchForCausalLM\n  storage: {storageUri: "hf://x/unmatched"}\n' >>"$d/models.yaml"
  # A model that is admitted, by the project's own selection, found among
  # the first 100 runtimes: the generator makes the same first runtimes
  # whatever their number, and a runtime that can be selected stays one.
  "$work/evaluate" generate --dir "$d/probe" --models 50 --runtimes 100 --seed 7 --shape many --architectures 12 --versions 150 >/dev/null
  : >"$d/all.yaml"
  for i in $(seq 0 49); do m=$(printf 'model-%04d' "$i"); isvc "$m" "$m" >>"$d/all.yaml"; done
  admitted=$("$work/evaluate" select -o json -f "$d/all.yaml" -f "$d/probe/models.yaml" -f "$d/probe/runtimes.yaml" 2>/dev/null |
    awk '/"inferenceService": [{]/ {f=1} f && /"name":/ {gsub(/[",]/, "", $2); n=$2; f=0} /"admitted": true/ {print n; exit}' || true)
  [ -n "$admitted" ] || { echo "gatekeeper.sh: no admitted model among the generated ones" >&2; exit 1; }
  for kind in admitted refused; do
    model=$admitted; [ $kind = refused ] && model=unmatched
    : >"$d/one-$kind.yaml"; : >"$d/many-$kind.yaml"
    isvc "isvc-0" "$model" >"$d/one-$kind.yaml"
    for i in $(seq 0 $((objects - 1))); do isvc "isvc-$i" "$model" >>"$d/many-$kind.yaml"; done
  done
  # Each run times every tree in turn: t.TREE.FILE gets one line per run.
  rm -f "$work"/t.*
  for _ in $(seq "$runs"); do
    t=0
    for tree in $trees; do
      args=(-f "$tree/$sel/template.yaml" -f "$tree/$sel/samples/default/constraint.yaml" -f "$d/models.yaml" -f "$d/runtimes.yaml")
      for f in one-admitted many-admitted one-refused many-refused; do
        gator_ms "$work/t.$t.$f" "${args[@]}" -f "$d/$f.yaml"
      done
      t=$((t + 1))
    done
  done
  t=0
  for tree in $trees; do
    label="  1/$objects InferenceServices$(label_of "$tree")"
    a1=$(median <"$work/t.$t.one-admitted"); a_many=$(median <"$work/t.$t.many-admitted")
    r1=$(median <"$work/t.$t.one-refused"); r_many=$(median <"$work/t.$t.many-refused")
    awk -v l="$label" -v n="$n" -v a1="$a1" -v am="$a_many" -v r1="$r1" -v rm="$r_many" -v k="$((objects - 1))" 'BEGIN {
      printf "%-34s %9d %5d/%-5d %5d/%-5d %6.1f / %6.1f ms\n", l, n, a1, am, r1, rm, (am-a1)/k, (rm-r1)/k }'
    t=$((t + 1))
  done
  # The Kyverno bundle's ome-runtime-selection on the same inventory and
  # InferenceServices, with kubectl-kyverno test (Kyverno's own engine; the
  # inventory is the Test's cluster resources, which resource.List reads),
  # up to 1,000 runtimes.
  [ "$n" -le 1000 ] || continue
  k="$work/kyverno-$n"
  mkdir -p "$k"
  cp -r policies/kyverno/ome-runtime-selection/.kyverno-test/crds "$k/"
  cp policies/kyverno/ome-runtime-selection/ome-runtime-selection.yaml "$k/policy.yaml"
  {
    printf 'apiVersion: cli.kyverno.io/v1alpha1\nkind: ClusterResource\nmetadata: {name: inventory}\nspec:\n  crds:\n'
    for c in "$k"/crds/*.yaml; do printf '  - ../crds/%s\n' "$(basename "$c")"; done
    printf '  resources:\n  - {apiVersion: v1, kind: Namespace, metadata: {name: default}}\n'
    # Each document of the inventory as an item of the list.
    awk 'FNR == 1 {first=1} /^---/ {first=1; next} /^$/ {next} { if (first) { print "  - " $0; first=0 } else print "    " $0 }' "$d/models.yaml" "$d/runtimes.yaml"
  } >"$k/cluster.yaml"
  # Beyond 600 models and runtimes, or 600 entries, the policy admits
  # without deciding (docs/kyverno.md: CEL's cost limit), the refused
  # InferenceServices too.
  objs=$(cat "$d/models.yaml" "$d/runtimes.yaml" | grep -c '^kind:')
  entries=$(grep -c 'modelFormat:' "$d/runtimes.yaml")
  decides=yes; [ "$objs" -le 600 ] && [ "$entries" -le 600 ] || decides=no
  for f in one-admitted many-admitted one-refused many-refused; do
    result=pass; case $f in *refused) [ $decides = no ] || result=fail ;; esac
    mkdir -p "$k/$f"
    cp "$d/$f.yaml" "$k/$f/resources.yaml"
    {
      printf 'apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: %s}\npolicies: [../policy.yaml]\nresources: [resources.yaml]\nclusterResources: [../cluster.yaml]\nresults:\n' "$f"
      grep -o 'name: isvc-[0-9]*' "$d/$f.yaml" | while read -r _ name; do
        printf -- '- {policy: ome-runtime-selection, isValidatingPolicy: true, kind: InferenceService, resources: [default/%s], result: %s}\n' "$name" "$result"
      done
    } >"$k/$f/kyverno-test.yaml"
  done
  rm -f "$work"/k.*
  for _ in $(seq "$runs"); do
    for f in one-admitted many-admitted one-refused many-refused; do
      "$work/measure" bin/kubectl-kyverno test "$k/$f" 2>/dev/null | cut -d' ' -f1 >>"$work/k.$f"
      bin/kubectl-kyverno test --detailed-results -o json "$k/$f" >"$work/k.out" 2>&1 || { cat "$work/k.out" >&2; echo "gatekeeper.sh: kubectl-kyverno test fails on $f" >&2; exit 1; }
    done
  done
  a1=$(median <"$work/k.one-admitted"); a_many=$(median <"$work/k.many-admitted")
  r1=$(median <"$work/k.one-refused"); r_many=$(median <"$work/k.many-refused")
  label="  1/$objects InferenceServices (Kyverno)"; [ $decides = yes ] || { label="$label*"; kyverno_note=1; }
  awk -v l="$label" -v n="$n" -v a1="$a1" -v am="$a_many" -v r1="$r1" -v rm="$r_many" -v k="$((objects - 1))" 'BEGIN {
    printf "%-34s %9d %5d/%-5d %5d/%-5d %6.1f / %6.1f ms\n", l, n, a1, am, r1, rm, (am-a1)/k, (rm-r1)/k }'
done
[ -z "${kyverno_note:-}" ] || echo "  * beyond 600 models and runtimes or entries: the policy admits without deciding"
[ "${ONLY:-}" != selection ] || exit 0

runs=$RUNS

# OMEVersionLint: runtimes of 64 entries (every eighth version an ordering
# operator with a suffix, so that findings are made), 1 or 21 of them, on
# each engine of the template.
lint=policies/gatekeeper/omeversionlint
runtime64() {
  printf 'apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: %s}\nspec:\n  supportedModelFormats:\n' "$1"
  for j in $(seq 0 63); do
    op=""; [ $((j % 8)) = 0 ] && op=", operator: GreaterThanOrEqual"
    printf '  - modelFormat: {name: safetensors, version: "1.0.0"}\n    modelFramework: {name: transformers, version: "4.%d.0.dev0"%s}\n    modelArchitecture: Arch%02dForCausalLM\n' "$j" "$op" "$j"
  done
  printf -- '---\n'
}
many=${LINT_OBJECTS:-21}
runtime64 lint-0 >"$work/lint-1.yaml"
: >"$work/lint-many.yaml"; for i in $(seq 0 $((many - 1))); do runtime64 "lint-$i" >>"$work/lint-many.yaml"; done
printf '\n%-34s %9s %11s %13s\n' "OMEVersionLint, 64 entries" engine "1/$many ms" "per object"
# As for selection, each run times every tree in turn.
rm -f "$work"/t.*
for _ in $(seq "$runs"); do
  t=0
  for tree in $trees; do
    for engine in Rego K8sNativeValidation; do
      flag=--enable-k8s-native-validation=true; [ $engine = Rego ] && flag=--enable-k8s-native-validation=false
      args=("$flag" -f "$tree/$lint/template.yaml" -f "$tree/$lint/samples/deny-errors/constraint.yaml" -f "$tree/$lint/samples/warn-warnings/constraint.yaml")
      gator_ms "$work/t.$t.$engine.one" "${args[@]}" -f "$work/lint-1.yaml"
      gator_ms "$work/t.$t.$engine.many" "${args[@]}" -f "$work/lint-many.yaml"
    done
    t=$((t + 1))
  done
done
t=0
for tree in $trees; do
  label="  1/$many runtimes$(label_of "$tree")"
  for engine in Rego K8sNativeValidation; do
    l1=$(median <"$work/t.$t.$engine.one"); lm=$(median <"$work/t.$t.$engine.many")
    awk -v l="$label" -v e="$engine" -v l1="$l1" -v lm="$lm" -v m="$many" 'BEGIN {printf "%-34s %9s %5d/%-5d %6.1f ms\n", l, e, l1, lm, (lm-l1)/(m-1)}'
  done
  t=$((t + 1))
done
