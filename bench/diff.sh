#!/usr/bin/env bash
# Measures `evaluate diff` against one `evaluate match` of the whole cluster,
# on a generated cluster of 300 models x 700 runtimes (evaluate generate,
# seed 1, each runtime with a realistic container spec), per engine, RUNS
# times each, alternating, and prints the median wall time, CPU time (user
# and system) and peak memory (RSS), and the ratios of wall and CPU times
# to match's (wall times vary with what else runs on the machine; CPU
# times less):
#
# - match:        evaluate match -f old -o json, every pair once;
# - diff 5:       evaluate diff old new, where new changes 5 runtimes (every
#                 140th: a new image, and the size range's max set to 1T);
# - diff all:     evaluate diff old new, where new changes every runtime: a
#                 new image, the size range's max set to 1T and every
#                 framework version 4.x made 5.x, so that no verdict of
#                 before can serve after: every pair is evaluated on both
#                 sides.
#
# diff reads both sides and evaluates only the pairs of the runtimes whose
# spec changed, so the targets are: diff 5 under one match, diff all at most
# twice one match.
#
# Each command alternates with the baseline's evaluate (bench/baseline.sh)
# on the same inputs, per OME release (RELEASES: "default" or a name for
# --ome-version; default "default v0.1.4"): base_cpu is the baseline's
# median CPU time, vs_base the median of the pairs' CPU-time ratios. A row
# is named diff/ENGINE/COMMAND (match, diff5 or diffall), and /RELEASE but
# for the default release (for BENCH_ALLOW).
#
# Usage: bench/diff.sh                  (from the repository's root; make bench)
#        RUNS=3 ENGINES=cel RELEASES=default bench/diff.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
ENGINES=${ENGINES:-cel rego}
RELEASES=${RELEASES:-default v0.1.4}
source bench/baseline.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/measure" ./bench/measure
ev=$work/evaluate

"$ev" generate --dir "$work/old" --models 300 --runtimes 700 --seed 1 >/dev/null
# new5: documents 0, 140, 280, 420 and 560 of runtimes.yaml changed.
mkdir -p "$work/new5" "$work/all"
cp "$work/old/models.yaml" "$work/new5/" && cp "$work/old/models.yaml" "$work/all/"
awk '/^kind:/ {doc++} { if ((doc - 1) % 140 == 0) { sub(/image: .*/, "image: example.com/runtime:v2"); sub(/^    max: .*/, "    max: 1T") } print }' \
  "$work/old/runtimes.yaml" >"$work/new5/runtimes.yaml"
awk '{ sub(/image: .*/, "image: example.com/runtime:v2"); sub(/^    max: .*/, "    max: 1T"); sub(/version: 4\./, "version: 5."); print }' \
  "$work/old/runtimes.yaml" >"$work/all/runtimes.yaml"
changed=$(diff "$work/old/runtimes.yaml" "$work/new5/runtimes.yaml" | grep -c '^>' || true)
[ "$changed" -ge 5 ] || { echo "bench/diff.sh: the change of 5 runtimes changed $changed lines" >&2; exit 1; }

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

# run NAME ARGS...: one run of this tree's evaluate, then one of the
# baseline's, into NAME.m and NAME.b; this tree's output into NAME.out.
run() {
  local name=$1; shift
  "$work/measure" -o "$work/$name.out" "$ev" "$@" >>"$work/$name.m"
  if [ -n "$base_ev" ]; then
    local bargs
    mapfile -t bargs < <(base_args "$@")
    "$work/measure" "$base_ev" "${bargs[@]}" >>"$work/$name.b"
  fi
}

echo "RUNS=$RUNS, median of each; 300 models x 700 runtimes (evaluate generate --seed 1); ratios to match's, same engine; vs_base: CPU time over the baseline's (bench/BASELINE), median of the pairs"
printf '%-6s %-8s %-10s %9s %9s %9s %8s %8s %9s %8s  %s\n' engine release command wall_ms cpu_ms peak_MB ratio cpu_ratio base_cpu vs_base evaluated
for e in $ENGINES; do
  for r in $RELEASES; do
    rel=()
    [ "$r" = default ] || rel=(--ome-version "$r")
    for who in match diff5 diffall; do rm -f "$work/$who.m" "$work/$who.b"; done
    for _ in $(seq "$RUNS"); do
      run match match -f "$work/old" -o json --engine "$e" "${rel[@]}"
      run diff5 diff "$work/old" "$work/new5" -o json --fail-on never --engine "$e" "${rel[@]}"
      run diffall diff "$work/old" "$work/all" -o json --fail-on never --engine "$e" "${rel[@]}"
    done
    match_ms=$(cut -d' ' -f1 "$work/match.m" | median)
    match_cpu=$(cut -d' ' -f3 "$work/match.m" | median)
    for who in match diff5 diffall; do
      ms=$(cut -d' ' -f1 "$work/$who.m" | median)
      kb=$(cut -d' ' -f2 "$work/$who.m" | median)
      cpu=$(cut -d' ' -f3 "$work/$who.m" | median)
      evaluated="210000 pairs"
      name=match
      if [ "$who" != match ]; then
        name="diff ${who#diff}"
        evaluated=$(awk '/"pairs":/ {gsub(/[,]/, ""); p=$2} /"allPairs":/ {gsub(/[,]/, ""); a=$2} END {print p " of " a " pairs"}' "$work/$who.out")
      fi
      row=diff/$e/$who
      [ "$r" = default ] || row=$row/$r
      bcpu=- vs=-
      if [ -n "$base_ev" ]; then
        bcpu=$(cut -d' ' -f3 "$work/$who.b" | median)
        vs=$(vs_base "$work/$who.m" "$work/$who.b")
        base_mark "$row" "$vs"
        vs=$(printf '%.2fx%s' "$vs" "$mark")
      fi
      awk -v e="$e" -v r="$r" -v w="$name" -v ms="$ms" -v kb="$kb" -v cpu="$cpu" -v m="$match_ms" -v mc="$match_cpu" -v ev="$evaluated" -v bc="$bcpu" -v vs="$vs" \
        'BEGIN {printf "%-6s %-8s %-10s %9d %9d %9.1f %7.2fx %7.2fx %9s %8s  %s\n", e, r, w, ms, cpu, kb/1024, ms/m, cpu/mc, bc, vs, ev}'
    done
  done
done
base_exit
