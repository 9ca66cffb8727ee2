#!/usr/bin/env bash
# Measures the commands that bench/run.sh, bench/lint.sh and bench/diff.sh do
# not, each beside the baseline's evaluate (bench/baseline.sh) in
# alternating runs on the same inputs, per engine and OME release
# (RELEASES: "default" or a name for --ome-version; default
# "default v0.1.4"), on a generated cluster of 30 models x 200 runtimes
# (evaluate generate --seed 1) with an InferenceService per model:
#
# - select:  evaluate select -o json, every InferenceService;
# - explain: evaluate explain of one model against every runtime;
# - report:  evaluate report, the HTML page of the whole cluster;
# - test:    evaluate test testdata/cases/sample-cases.yaml (on each
#            release a case holds for, with the default release).
#
# Each figure is the median of RUNS (default 5) runs of report, and of
# SHORT_RUNS (5 x RUNS unless set) runs of select, explain and test: a run
# of some 100 ms varies by several ms, and a median of 5 pairs does not
# settle it. The figures are wall_ms, cpu_ms (user and system), peak_MB;
# base_cpu is the baseline's median CPU time and vs_base the median of the
# pairs' CPU-time ratios. A row is named
# COMMAND/ENGINE, and /RELEASE but for the default release (for
# BENCH_ALLOW).
#
# Usage: bench/commands.sh              (from the repository's root; make bench)
#        RUNS=3 COMMANDS="select report" ENGINES=cel bench/commands.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SHORT_RUNS=${SHORT_RUNS:-$((5 * RUNS))}
ENGINES=${ENGINES:-cel rego}
RELEASES=${RELEASES:-default v0.1.4}
COMMANDS=${COMMANDS:-select explain report test}
source bench/baseline.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/measure" ./bench/measure
c=$work/cluster
"$work/evaluate" generate --dir "$c" --models 30 --runtimes 200 --seed 1 >/dev/null
awk '/^  name: model-/ {
  printf "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: isvc-%s\n  namespace: default\nspec:\n  model:\n    name: %s\n  engine: {}\n---\n", substr($2, 7), $2
}' "$c/models.yaml" >"$c/inferenceservices.yaml"

# args_of COMMAND: its arguments to evaluate.
args_of() {
  case $1 in
    select) printf '%s\n' select -f "$c" -o json ;;
    explain) printf '%s\n' explain -f "$c" --model-name model-0000 ;;
    report) printf '%s\n' report -f "$c" --out "$work/report.html" ;;
    test) printf '%s\n' test testdata/cases/sample-cases.yaml ;;
  esac
}

# runs_of COMMAND: how many pairs of runs time it.
runs_of() {
  case $1 in
    report) echo "$RUNS" ;;
    *) echo "$SHORT_RUNS" ;;
  esac
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

echo "RUNS=$RUNS (select, explain, test: $SHORT_RUNS), median of each; 30 models x 200 runtimes (evaluate generate --seed 1), an InferenceService per model; vs_base: CPU time over the baseline's (bench/BASELINE), median of the pairs"
printf '%-8s %-6s %-8s %9s %9s %9s %9s %8s\n' command engine release wall_ms cpu_ms peak_MB base_cpu vs_base
for cmd in $COMMANDS; do
  for e in $ENGINES; do
    for r in $RELEASES; do
      mapfile -t args < <(args_of "$cmd")
      args+=(--engine "$e")
      [ "$r" = default ] || args+=(--ome-version "$r")
      rm -f "$work/m" "$work/b"
      for _ in $(seq "$(runs_of "$cmd")"); do
        "$work/measure" "$work/evaluate" "${args[@]}" 2>/dev/null >>"$work/m"
        if [ -n "$base_ev" ]; then
          mapfile -t bargs < <(base_args "${args[@]}")
          "$work/measure" "$base_ev" "${bargs[@]}" 2>/dev/null >>"$work/b"
        fi
      done
      row=$cmd/$e
      [ "$r" = default ] || row=$row/$r
      bcpu=- vs=-
      if [ -n "$base_ev" ]; then
        bcpu=$(cut -d' ' -f3 "$work/b" | median)
        vs=$(vs_base "$work/m" "$work/b")
        base_mark "$row" "$vs"
        vs=$(printf '%.2fx%s' "$vs" "$mark")
      fi
      awk -v c="$cmd" -v e="$e" -v r="$r" -v ms="$(cut -d' ' -f1 "$work/m" | median)" -v cpu="$(cut -d' ' -f3 "$work/m" | median)" \
        -v kb="$(cut -d' ' -f2 "$work/m" | median)" -v bc="$bcpu" -v vs="$vs" \
        'BEGIN {printf "%-8s %-6s %-8s %9d %9d %9.1f %9s %8s\n", c, e, r, ms, cpu, kb/1024, bc, vs}'
    done
  done
done
base_exit
