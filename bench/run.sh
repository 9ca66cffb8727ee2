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
# Each evaluate row runs for each OME release of RELEASES ("default" or a
# name for --ome-version; default "default v0.1.4"), and alternates with
# the baseline's evaluate (bench/baseline.sh) on the same inputs: base_cpu
# is the baseline's median CPU time, vs_base the median of the pairs'
# CPU-time ratios. A row is named match/DATASET/ENGINE, one/ENGINE, and
# /RELEASE but for the default release (for BENCH_ALLOW).
#
# Usage: bench/run.sh            (from the repository root; make bench)
#        RUNS=7 bench/run.sh
#        BASE=HEAD~3 RELEASES=default bench/run.sh
#        DATASETS="catalog many" bench/run.sh   (some of: catalog few ome many one)
#        DATASETS=one ONE_RUNS=41 BASE=HEAD~1 bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
ONE_RUNS=${ONE_RUNS:-$((5 * RUNS))}
DATASETS=${DATASETS:-catalog few ome many one}
wants() { case " $DATASETS " in *" $1 "*) return 0 ;; esac; return 1; }
RELEASES=${RELEASES:-default v0.1.4}
source bench/baseline.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/plaingo" ./bench/plaingo
go build -o "$work/bare" ./bench/bare
go build -o "$work/measure" ./bench/measure
for shape in few ome many; do
  "$work/evaluate" generate --dir "$work/$shape" --models 300 --runtimes 700 --seed 1 --shape "$shape" >/dev/null
done
"$work/plaingo" -dump -m testdata/catalog/models >"$work/catalog-models.yaml"

# measure NAME CMD...: one run, appends "wall_ms peak_kib cpu_ms" to $work/NAME.
measure() {
  local name=$1; shift
  "$work/measure" "$@" 2>/dev/null >>"$work/$name"
}

# rows: each engine of this tree on each release, as "ENGINE" or
# "ENGINE/RELEASE"; args_of ROW: its arguments to evaluate.
rows=""
for e in cel rego; do
  for r in $RELEASES; do
    if [ "$r" = default ]; then rows="$rows $e"; else rows="$rows $e/$r"; fi
  done
done
args_of() {
  printf '%s\n' --engine "${1%%/*}"
  [ "$1" = "${1#*/}" ] || printf '%s\n' --ome-version "${1#*/}"
}

# pair NAME ROW ARGS...: one run of this tree's evaluate with ARGS and the
# row's arguments, then one of the baseline's, into m.NAME and b.NAME.
pair() {
  local name=$1 row=$2; shift 2
  local args
  mapfile -t args < <(args_of "$row")
  measure "m.$name" "$work/evaluate" "$@" "${args[@]}"
  if [ -n "$base_ev" ]; then
    mapfile -t args < <(base_args "$@" "${args[@]}")
    measure "b.$name" "$base_ev" "${args[@]}"
  fi
}

# base_cols NAME ROW: sets cols to the baseline's median CPU time and
# vs_base ("-" and "-" without a baseline), marking the row when slower.
base_cols() {
  cols=(- -)
  [ -n "$base_ev" ] || return 0
  local vs
  vs=$(vs_base "$work/m.$1" "$work/b.$1")
  base_mark "$2" "$vs"
  cols=("$(cut -d' ' -f3 "$work/b.$1" | median)" "$(printf '%.2fx%s' "$vs" "$mark")")
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

dataset() {
  local key=$1 label=$2 models=$3 runtimes=$4
  rm -f "$work"/m.* "$work"/b.*
  "$work/bare" -m "$models" -r "$runtimes" >"$work/want.json" || true
  "$work/plaingo" -m "$models" -r "$runtimes" >"$work/got.json" || true
  cmp -s "$work/want.json" "$work/got.json" || { echo "bench: plaingo output differs from bare on $label" >&2; exit 1; }
  for e in cel rego; do
    "$work/evaluate" match -o json -R -m "$models" -r "$runtimes" --engine "$e" >"$work/got.json" 2>/dev/null || true
    cmp -s "$work/want.json" "$work/got.json" || { echo "bench: $e output differs from bare on $label" >&2; exit 1; }
  done
  for _ in $(seq "$RUNS"); do
    measure m.bare "$work/bare" -m "$models" -r "$runtimes"
    measure m.plaingo "$work/plaingo" -m "$models" -r "$runtimes"
    for row in $rows; do
      pair "${row//\//_}" "$row" match -o json -R -m "$models" -r "$runtimes"
    done
  done
  local base
  base=$(cut -d' ' -f1 "$work/m.bare" | median)
  for who in bare plaingo $rows; do
    local ms kb cpu
    cols=(- -)
    ms=$(cut -d' ' -f1 "$work/m.${who//\//_}" | median)
    kb=$(cut -d' ' -f2 "$work/m.${who//\//_}" | median)
    cpu=$(cut -d' ' -f3 "$work/m.${who//\//_}" | median)
    case $who in bare | plaingo) ;; *) base_cols "${who//\//_}" "match/$key/$who" ;; esac
    awk -v l="$label" -v w="$who" -v ms="$ms" -v kb="$kb" -v b="$base" -v cpu="$cpu" -v bc="${cols[0]}" -v vs="${cols[1]}" \
      'BEGIN {printf "%-22s %-14s %9d %9.1f %7.2fx %8d %8s %8s\n", l, w, ms, kb/1024, ms/b, cpu, bc, vs}'
  done
}

# The catalog's pairs, as apply leaves its objects (four runtime names are
# given twice): the results bare writes.
pairs_catalog=$("$work/bare" -m "$work/catalog-models.yaml" -r testdata/catalog/runtimes | grep -c '"compatible"')
echo "RUNS=$RUNS, median of each; ratio = wall time / bare wall time, same run; vs_base: CPU time over the baseline's (bench/BASELINE), median of the pairs"
printf '%-22s %-14s %9s %9s %8s %8s %8s %8s\n' dataset matcher wall_ms peak_MB ratio cpu_ms base_cpu vs_base
if wants catalog; then
  dataset catalog "catalog ($pairs_catalog pairs)" "$work/catalog-models.yaml" testdata/catalog/runtimes
fi
for shape in few ome many; do
  if wants "$shape"; then
    dataset "$shape" "300x700 $shape" "$work/$shape/models.yaml" "$work/$shape/runtimes.yaml"
  fi
done
if wants one; then
  rm -f "$work"/m.* "$work"/b.*
  one=(-m testdata/examples/models/llama-3-2-3b-instruct.yaml -r testdata/examples/runtimes/srt-llama-3-2-3b-instruct.yaml)
  for _ in $(seq "$ONE_RUNS"); do
    measure m.bare "$work/bare" "${one[@]}"
    for row in $rows; do
      pair "${row//\//_}" "$row" match -o json "${one[@]}"
    done
  done
  echo "one pair: median of $ONE_RUNS runs each"
  for who in bare $rows; do
    cols=(- -)
    [ "$who" = bare ] || base_cols "${who//\//_}" "one/$who"
    awk -v w="$who" -v ms="$(cut -d' ' -f1 "$work/m.${who//\//_}" | median)" -v kb="$(cut -d' ' -f2 "$work/m.${who//\//_}" | median)" \
      -v cpu="$(cut -d' ' -f3 "$work/m.${who//\//_}" | median)" -v bc="${cols[0]}" -v vs="${cols[1]}" \
      'BEGIN {printf "%-22s %-14s %9d %9.1f %8s %8d %8s %8s\n", "one pair, fresh process", w, ms, kb/1024, "", cpu, bc, vs}'
  done
fi
base_exit
