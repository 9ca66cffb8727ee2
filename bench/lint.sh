#!/usr/bin/env bash
# Measures `evaluate lint` on generated clusters of SIZES runtimes (evaluate
# generate: 300 models, the runtimes shaped like OME's catalog, each with a
# realistic container spec), on one core (taskset to CPU 0, and GOMAXPROCS=1
# so that the collector shares it), per engine and OME release (RELEASES:
# "default" or a name for --ome-version), RUNS times each, alternating with
# the baseline's evaluate (bench/baseline.sh) on the same cluster, and
# prints the median wall time, CPU time (user and system) and peak memory
# (RSS), the findings, the baseline's median CPU time and vs_base, the
# median of the pairs' CPU-time ratios. Lint reads an object at a time, so
# time and memory should grow with the runtimes, no faster; the target is
# 45,000 runtimes in under 20 s and 300 MB on one core with the default
# engine (CEL). A row is named lint/SIZE/ENGINE, and /RELEASE but for the
# default release (for BENCH_ALLOW).
#
# At each size of RULES_SIZES, one more row lints with the team's rules of
# examples/company-rules (--rules), on each engine of ENGINES and the
# default release: its rule over OME's decisions has lint hold every object
# and OME's decision about each, so its memory should grow with the
# runtimes too, no faster. Such a row is named lint/SIZE/ENGINE/rules. A
# baseline without --rules cannot run it: the row then runs alone, its
# base_cpu and vs_base "-".
#
# Usage: bench/lint.sh                  (from the repository root; make bench)
#        SIZES="700 11200" RUNS=3 ENGINES=cel bench/lint.sh
#        BASE=HEAD~3 SIZES="700 2800" RELEASES=v0.1.4 bench/lint.sh
#        SIZES=700 RULES_SIZES=700 ENGINES=cel RELEASES=default RUNS=1 bench/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
SIZES=${SIZES:-700 11200 45000}
ENGINES=${ENGINES:-cel rego}
RELEASES=${RELEASES:-default v0.1.5 v0.1.4}
RULES_SIZES=${RULES_SIZES:-700 11200}
source bench/baseline.sh
base_rules=no
[ -z "$base_ev" ] || ! base_has lint '--rules' || base_rules=yes
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/measure" ./bench/measure

# One core: CPU 0 where taskset is there, and the Go runtime told so.
pin=()
command -v taskset >/dev/null 2>&1 && pin=(taskset -c 0)

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

echo "RUNS=$RUNS, median of each, one core (${pin[*]:-GOMAXPROCS=1 only}, GOMAXPROCS=1); vs_base: CPU time over the baseline's (bench/BASELINE), median of the pairs"
printf '%-9s %-6s %-8s %-7s %9s %9s %9s %9s %9s %8s\n' runtimes engine release rules wall_ms cpu_ms peak_MB findings base_cpu vs_base

# row SIZE ENGINE RELEASE RULES ROW ARGS...: RUNS runs of evaluate ARGS,
# each beside one of the baseline's, and the table's row for them.
row() {
  local size=$1 e=$2 r=$3 rules=$4 name=$5
  shift 5
  local args=("$@") bev=$base_ev
  [ "$rules" = none ] || [ "$base_rules" = yes ] || bev=""
  rm -f "$work/m" "$work/b"
  for _ in $(seq "$RUNS"); do
    GOMAXPROCS=1 "$work/measure" -o "$work/out" "${pin[@]}" "$work/evaluate" "${args[@]}" 2>/dev/null >>"$work/m"
    if [ -n "$bev" ]; then
      mapfile -t bargs < <(base_args "${args[@]}")
      GOMAXPROCS=1 "$work/measure" "${pin[@]}" "$bev" "${bargs[@]}" 2>/dev/null >>"$work/b"
    fi
  done
  ms=$(cut -d' ' -f1 "$work/m" | median)
  kb=$(cut -d' ' -f2 "$work/m" | median)
  cpu=$(cut -d' ' -f3 "$work/m" | median)
  findings=$(tail -n 1 "$work/out" | awk '{print $3 + $5 + $7}')
  bcpu=- vs=- mark=""
  if [ -n "$bev" ]; then
    bcpu=$(cut -d' ' -f3 "$work/b" | median)
    vs=$(vs_base "$work/m" "$work/b")
    base_mark "$name" "$vs"
    vs=$(printf '%.2fx%s' "$vs" "$mark")
  fi
  awk -v s="$size" -v e="$e" -v r="$r" -v ru="$rules" -v ms="$ms" -v kb="$kb" -v cpu="$cpu" -v f="$findings" -v bc="$bcpu" -v vs="$vs" \
    'BEGIN {printf "%-9s %-6s %-8s %-7s %9d %9d %9.1f %9d %9s %8s\n", s, e, r, ru, ms, cpu, kb/1024, f, bc, vs}'
}

for size in $SIZES; do
  dir="$work/g$size"
  "$work/evaluate" generate --dir "$dir" --models 300 --runtimes "$size" --seed 1 >/dev/null
  for e in $ENGINES; do
    for r in $RELEASES; do
      args=(lint --engine "$e" "$dir")
      [ "$r" = default ] || args+=(--ome-version "$r")
      name=lint/$size/$e
      [ "$r" = default ] || name=$name/$r
      row "$size" "$e" "$r" none "$name" "${args[@]}"
    done
  done
  case " $RULES_SIZES " in
    *" $size "*)
      for e in $ENGINES; do
        row "$size" "$e" default company "lint/$size/$e/rules" lint --engine "$e" --rules examples/company-rules "$dir"
      done ;;
  esac
done
base_exit
