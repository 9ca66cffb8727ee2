#!/usr/bin/env bash
# Measures `evaluate match -o json` per engine against two plain-Go
# programs, side by side in one run: bench/bare, the bare program that shares
# nothing with the product (its own loader and writer; the ratio divides by
# its time), and bench/plaingo, the spec's rules in Go behind the product's
# own loader and writer. For OME's real catalog (its 66 models as one YAML
# file, its 207 runtime files) and for generated clusters of 300 models x
# 700 runtimes of three shapes (evaluate generate --shape few, ome, many),
# each command is run RUNS times, alternating, and the table shows the
# median wall time, the median peak memory (RSS), the ratio to bare and the
# median CPU time (user and system; less disturbed than wall time when other
# work shares the cores). It also times one model against one runtime in a
# fresh process, ONE_RUNS times (5 x RUNS unless set: a run of some 50 ms
# varies by several ms, and a median of 5 does not settle it).
#
# With BEFORE=REV (a commit), the evaluate of that commit runs beside, as
# the rows cel@REV and rego@REV, so that a change is measured side by side;
# and that commit's bench/bare as bare@REV (its ratio too is to this tree's
# bare), for a change that moves bare as well.
#
# Usage: bench/run.sh            (from the repository root; make bench)
#        RUNS=7 bench/run.sh
#        BEFORE=HEAD~3 bench/run.sh
#        DATASETS="catalog many" bench/run.sh   (some of: catalog few ome many one)
#        DATASETS=one ONE_RUNS=41 BEFORE=HEAD~1 bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
ONE_RUNS=${ONE_RUNS:-$((5 * RUNS))}
DATASETS=${DATASETS:-catalog few ome many one}
wants() { case " $DATASETS " in *" $1 "*) return 0 ;; esac; return 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "${BEFORE:-}" ] || git worktree remove --force "$work/before" 2>/dev/null || true' EXIT
engines="cel rego"
bares=""
if [ -n "${BEFORE:-}" ]; then
  git worktree add -q --detach "$work/before" "$BEFORE"
  (cd "$work/before" && go build -o "$work/evaluate@$BEFORE" ./cmd/evaluate)
  engines="cel rego cel@$BEFORE rego@$BEFORE"
  if [ -d "$work/before/bench/bare" ]; then
    (cd "$work/before" && go build -o "$work/bare@$BEFORE" ./bench/bare)
    bares="bare@$BEFORE"
  fi
fi

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/plaingo" ./bench/plaingo
go build -o "$work/bare" ./bench/bare
go build -o "$work/measure" ./bench/measure
for shape in few ome many; do
  "$work/evaluate" generate --dir "$work/$shape" --models 300 --runtimes 700 --seed 1 --shape "$shape" >/dev/null
done
"$work/plaingo" -dump -m testdata/catalog/models >"$work/catalog-models.yaml"

# measure NAME CMD...: one run, appends "wall_ms peak_kib cpu_ms" to $work/NAME.
# A CMD of "evaluate_of WHO ARGS..." runs the binary that WHO names.
measure() {
  local name=$1; shift
  if [ "$1" = evaluate_of ]; then
    local who=$2; shift 2
    set -- "$(evaluate_bin "$who")" "$@" --engine "${who%@*}"
  fi
  "$work/measure" "$@" 2>/dev/null >>"$work/$name"
}

# evaluate_bin WHO: the binary of "ENGINE" (this tree) or "ENGINE@REV".
evaluate_bin() {
  if [ "$1" = "${1%@*}" ]; then echo "$work/evaluate"; else echo "$work/evaluate@${1#*@}"; fi
}

# evaluate_of WHO ARGS...: runs that binary with --engine ENGINE.
evaluate_of() {
  local who=$1; shift
  "$(evaluate_bin "$who")" "$@" --engine "${who%@*}"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

dataset() {
  local label=$1 models=$2 runtimes=$3
  rm -f "$work"/m.*
  "$work/bare" -m "$models" -r "$runtimes" >"$work/want.json" || true
  "$work/plaingo" -m "$models" -r "$runtimes" >"$work/got.json" || true
  cmp -s "$work/want.json" "$work/got.json" || { echo "bench: plaingo output differs from bare on $label" >&2; exit 1; }
  for b in $bares; do
    "$work/$b" -m "$models" -r "$runtimes" >"$work/got.json" || true
    cmp -s "$work/want.json" "$work/got.json" || { echo "bench: $b output differs from bare on $label" >&2; exit 1; }
  done
  for who in $engines; do
    evaluate_of "$who" match -o json -m "$models" -r "$runtimes" >"$work/got.json" 2>/dev/null || true
    cmp -s "$work/want.json" "$work/got.json" || { echo "bench: $who output differs from bare on $label" >&2; exit 1; }
  done
  for _ in $(seq "$RUNS"); do
    measure m.bare "$work/bare" -m "$models" -r "$runtimes"
    measure m.plaingo "$work/plaingo" -m "$models" -r "$runtimes"
    for b in $bares; do
      measure "m.$b" "$work/$b" -m "$models" -r "$runtimes"
    done
    for who in $engines; do
      measure "m.$who" evaluate_of "$who" match -o json -m "$models" -r "$runtimes"
    done
  done
  local base
  base=$(cut -d' ' -f1 "$work/m.bare" | median)
  for who in bare plaingo $bares $engines; do
    local ms kb cpu
    ms=$(cut -d' ' -f1 "$work/m.$who" | median)
    kb=$(cut -d' ' -f2 "$work/m.$who" | median)
    cpu=$(cut -d' ' -f3 "$work/m.$who" | median)
    awk -v l="$label" -v w="$who" -v ms="$ms" -v kb="$kb" -v b="$base" -v cpu="$cpu" \
      'BEGIN {printf "%-22s %-14s %9d %9.1f %7.2fx %8d\n", l, w, ms, kb/1024, ms/b, cpu}'

  done
}

pairs_catalog=$(( $(find testdata/catalog/models -name config.json | wc -l) * $(find testdata/catalog/runtimes -name '*.yaml' | wc -l) ))
echo "RUNS=$RUNS, median of each; ratio = wall time / bare wall time, same run"
printf '%-22s %-14s %9s %9s %8s %8s\n' dataset matcher wall_ms peak_MB ratio cpu_ms
if wants catalog; then
  dataset "catalog ($pairs_catalog pairs)" "$work/catalog-models.yaml" testdata/catalog/runtimes
fi
for shape in few ome many; do
  if wants "$shape"; then
    dataset "300x700 $shape" "$work/$shape/models.yaml" "$work/$shape/runtimes.yaml"
  fi
done
wants one || exit 0

rm -f "$work"/m.*
one=(-m testdata/examples/models/llama-3-2-3b-instruct.yaml -r testdata/examples/runtimes/srt-llama-3-2-3b-instruct.yaml)
for _ in $(seq "$ONE_RUNS"); do
  measure m.one-bare "$work/bare" "${one[@]}"
  for b in $bares; do
    measure "m.one-$b" "$work/$b" "${one[@]}"
  done
  for who in $engines; do
    measure "m.one-$who" evaluate_of "$who" match -o json "${one[@]}"
  done
done
echo "one pair: median of $ONE_RUNS runs each"
for engine in bare $bares $engines; do
  awk -v w="$engine" -v ms="$(cut -d' ' -f1 "$work/m.one-$engine" | median)" -v kb="$(cut -d' ' -f2 "$work/m.one-$engine" | median)" \
    'BEGIN {printf "%-22s %-14s %9d %9.1f\n", "one pair, fresh process", w, ms, kb/1024}'
done
