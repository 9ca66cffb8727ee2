#!/usr/bin/env bash
# Measures a fleet read in one run against the same clusters read one run
# each: CLUSTERS (default 10) fake API servers (bench/fakeapi, on
# 127.0.0.1), each a synthetic cluster of MODELS (300) ClusterBaseModels
# and RUNTIMES (1000) ClusterServingRuntimes, of a seed of its own, each
# answer after LATENCY (default 0s; 50ms is a remote API server's round
# trip);
#
# - fleet:  evaluate match -o summary --all-contexts, one process;
# - serial: evaluate match -o summary --context cNN, one process a cluster,
#           one after the other (wall and CPU time summed, peak memory the
#           largest of the runs).
#
# Each figure is the median of RUNS (default 3) runs: wall_ms, cpu_ms (user
# and system), peak_MB; ratio is serial's over fleet's, per figure.
#
# Usage: bench/fleet.sh               (from the repository's root; make bench)
#        RUNS=1 CLUSTERS=4 bench/fleet.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
CLUSTERS=${CLUSTERS:-10}
MODELS=${MODELS:-300}
RUNTIMES=${RUNTIMES:-1000}
LATENCY=${LATENCY:-0s}
work=$(mktemp -d)
api=""
trap '[ -z "$api" ] || kill "$api" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

go build -o "$work/evaluate" ./cmd/evaluate
go build -o "$work/measure" ./bench/measure
go build -o "$work/fakeapi" ./bench/fakeapi
kc=$work/kubeconfig
"$work/fakeapi" -clusters "$CLUSTERS" -models "$MODELS" -runtimes "$RUNTIMES" -latency "$LATENCY" -kubeconfig "$kc" &
api=$!
for _ in $(seq 600); do [ -e "$kc" ] && break; sleep 0.1; done
[ -e "$kc" ] || { echo "bench/fleet.sh: the fake API servers did not start" >&2; exit 1; }

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print int((a[NR/2]+a[NR/2+1])/2)}'; }

rm -f "$work/fleet" "$work/serial"
for _ in $(seq "$RUNS"); do
  "$work/measure" "$work/evaluate" match -o summary --kubeconfig "$kc" --all-contexts >>"$work/fleet"
  : >"$work/one"
  for i in $(seq 0 $((CLUSTERS - 1))); do
    "$work/measure" "$work/evaluate" match -o summary --kubeconfig "$kc" --context "$(printf 'c%02d' "$i")" >>"$work/one"
  done
  awk '{ms += $1; cpu += $3; if ($2 > kb) kb = $2} END {print ms, kb, cpu}' "$work/one" >>"$work/serial"
done

echo "RUNS=$RUNS, median of each; $CLUSTERS clusters of $MODELS models x $RUNTIMES runtimes (fake API servers on 127.0.0.1 answering after $LATENCY, synthetic clusters of evaluate generate's shape); evaluate match -o summary"
printf '%-7s %9s %9s %9s\n' run wall_ms cpu_ms peak_MB
for r in fleet serial; do
  awk -v r="$r" -v ms="$(cut -d' ' -f1 "$work/$r" | median)" -v cpu="$(cut -d' ' -f3 "$work/$r" | median)" -v kb="$(cut -d' ' -f2 "$work/$r" | median)" \
    'BEGIN {printf "%-7s %9d %9d %9.1f\n", r, ms, cpu, kb/1024}'
done
