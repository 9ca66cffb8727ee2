#!/usr/bin/env bash
# Measures `evaluate match -o json` per engine against the plain-Go matcher
# (bench/plaingo), side by side in one run: for OME's real catalog and for a
# generated cluster of 300 models x 700 runtimes, each command is run RUNS
# times, alternating, and the table shows the median wall time, the median
# peak memory (RSS) and the ratio to plain Go. It also times one model
# against one runtime in a fresh process.
#
# Usage: bench/run.sh            (from the repository root; make bench)
#        RUNS=7 bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/plaingo" ./bench/plaingo
go build -o "$work/measure" ./bench/measure
"$work/evaluate" generate --dir "$work/cluster" --models 300 --runtimes 700 --seed 1 >/dev/null

# measure NAME CMD...: one run, appends "wall_ms peak_kib" to $work/NAME.
measure() {
  local name=$1; shift
  "$work/measure" "$@" 2>/dev/null >>"$work/$name"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

dataset() {
  local label=$1 models=$2 runtimes=$3
  rm -f "$work"/m.*
  "$work/plaingo" -m "$models" -r "$runtimes" >"$work/want.json" || true
  for engine in cel rego; do
    "$work/evaluate" match -o json --engine "$engine" -m "$models" -r "$runtimes" >"$work/got.json" 2>/dev/null || true
    cmp -s "$work/want.json" "$work/got.json" || { echo "bench: $engine output differs from plain Go on $label" >&2; exit 1; }
  done
  for _ in $(seq "$RUNS"); do
    measure m.plaingo "$work/plaingo" -m "$models" -r "$runtimes"
    measure m.cel "$work/evaluate" match -o json --engine cel -m "$models" -r "$runtimes"
    measure m.rego "$work/evaluate" match -o json --engine rego -m "$models" -r "$runtimes"
  done
  local base
  base=$(cut -d' ' -f1 "$work/m.plaingo" | median)
  for who in plaingo cel rego; do
    local ms kb
    ms=$(cut -d' ' -f1 "$work/m.$who" | median)
    kb=$(cut -d' ' -f2 "$work/m.$who" | median)
    awk -v l="$label" -v w="$who" -v ms="$ms" -v kb="$kb" -v b="$base" \
      'BEGIN {printf "%-22s %-8s %9d %9.1f %7.2fx\n", l, w, ms, kb/1024, ms/b}'

  done
}

pairs_catalog=$(( $(find testdata/catalog/models -name config.json | wc -l) * $(find testdata/catalog/runtimes -name '*.yaml' | wc -l) ))
echo "RUNS=$RUNS, median of each; ratio = wall time / plain-Go wall time, same run"
printf '%-22s %-8s %9s %9s %8s\n' dataset matcher wall_ms peak_MB ratio
dataset "catalog ($pairs_catalog pairs)" testdata/catalog/models testdata/catalog/runtimes
dataset "generated (210000)" "$work/cluster/models.yaml" "$work/cluster/runtimes.yaml"

rm -f "$work"/m.*
for _ in $(seq "$RUNS"); do
  for engine in cel rego; do
    measure "m.one-$engine" "$work/evaluate" match -o json --engine "$engine" \
      -m testdata/examples/models/llama-3-2-3b-instruct.yaml -r testdata/examples/runtimes/srt-llama-3-2-3b-instruct.yaml
  done
done
for engine in cel rego; do
  awk -v w="$engine" -v ms="$(cut -d' ' -f1 "$work/m.one-$engine" | median)" -v kb="$(cut -d' ' -f2 "$work/m.one-$engine" | median)" \
    'BEGIN {printf "%-22s %-8s %9d %9.1f\n", "one pair, fresh process", w, ms, kb/1024}'
done
