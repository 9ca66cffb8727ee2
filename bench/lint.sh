#!/usr/bin/env bash
# Measures `evaluate lint` on generated clusters of SIZES runtimes (evaluate
# generate: 300 models, the runtimes shaped like OME's catalog, each with a
# realistic container spec), on one core (taskset to CPU 0, and GOMAXPROCS=1
# so that the collector shares it), per engine, RUNS times each, and prints
# the median wall time, CPU time (user and system) and peak memory (RSS).
# Lint reads an object at a time, so time and memory should grow with the
# runtimes, no faster; the target is 45,000 runtimes in under 20 s and
# 300 MB on one core with the default engine (CEL).
#
# With BEFORE=REV (a commit), the evaluate of that commit runs beside, as
# cel@REV and rego@REV, except at sizes where it would take more than
# BEFORE_MAX_S seconds (default 120) by its time at the smaller sizes.
#
# Usage: bench/lint.sh                  (from the repository root; make bench)
#        SIZES="700 11200" RUNS=3 ENGINES=cel bench/lint.sh
#        BEFORE=HEAD~3 SIZES="700 2800" bench/lint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
SIZES=${SIZES:-700 11200 45000}
ENGINES=${ENGINES:-cel rego}
BEFORE_MAX_S=${BEFORE_MAX_S:-120}
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "${BEFORE:-}" ] || git worktree remove --force "$work/before" 2>/dev/null || true' EXIT

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/measure" ./bench/measure
whos=$ENGINES
if [ -n "${BEFORE:-}" ]; then
  git worktree add -q --detach "$work/before" "$BEFORE"
  (cd "$work/before" && go build -o "$work/evaluate@$BEFORE" ./cmd/evaluate)
  for e in $ENGINES; do whos="$whos $e@$BEFORE"; done
fi

# One core: CPU 0 where taskset is there, and the Go runtime told so.
pin=()
command -v taskset >/dev/null 2>&1 && pin=(taskset -c 0)

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

binary() { if [ "$1" = "${1%@*}" ]; then echo "$work/evaluate"; else echo "$work/evaluate@${1#*@}"; fi; }

declare -A last_ms last_size
echo "RUNS=$RUNS, median of each, one core (${pin[*]:-GOMAXPROCS=1 only}, GOMAXPROCS=1)"
printf '%-9s %-16s %9s %9s %9s %9s\n' runtimes engine wall_ms cpu_ms peak_MB findings
for size in $SIZES; do
  dir="$work/g$size"
  "$work/evaluate" generate --dir "$dir" --models 300 --runtimes "$size" --seed 1 >/dev/null
  for who in $whos; do
    # A run of the commit before that would take too long is left out, by
    # its time at the last size, growing as the square of the size.
    if [ "$who" != "${who%@*}" ] && [ -n "${last_ms[$who]:-}" ]; then
      est=$(awk -v ms="${last_ms[$who]}" -v a="${last_size[$who]}" -v b="$size" 'BEGIN {print int(ms * (b / a) ^ 2 / 1000)}')
      if [ "$est" -gt "$BEFORE_MAX_S" ]; then
        printf '%-9s %-16s %9s %9s %9s %9s\n' "$size" "$who" "(~${est}s)" - - -
        continue
      fi
    fi
    rm -f "$work/m"
    for _ in $(seq "$RUNS"); do
      GOMAXPROCS=1 "$work/measure" -o "$work/out" "${pin[@]}" "$(binary "$who")" lint --engine "${who%@*}" "$dir" 2>/dev/null >>"$work/m"
    done
    ms=$(cut -d' ' -f1 "$work/m" | median)
    kb=$(cut -d' ' -f2 "$work/m" | median)
    cpu=$(cut -d' ' -f3 "$work/m" | median)
    findings=$(tail -n 1 "$work/out" | awk '{print $3 + $5 + $7}')
    last_ms[$who]=$ms last_size[$who]=$size
    awk -v s="$size" -v w="$who" -v ms="$ms" -v kb="$kb" -v cpu="$cpu" -v f="$findings" \
      'BEGIN {printf "%-9s %-16s %9d %9d %9.1f %9d\n", s, w, ms, cpu, kb/1024, f}'
  done
done
