#!/usr/bin/env bash
# bench/doc.sh NAME COMMAND < TABLE: puts the table that COMMAND printed
# (standard input) into docs/performance.md (or $BENCH_DOC) between the
# lines "<!-- NAME: begin -->" and "<!-- NAME: end -->": a line naming the
# command, then the table as a text block. make bench calls it for
# bench/run.sh and bench/gatekeeper.sh.
set -euo pipefail
name=$1 command=$2
doc=${BENCH_DOC:-docs/performance.md}
begin="<!-- $name: begin -->" end="<!-- $name: end -->"
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || { echo "bench/doc.sh: $doc has no $begin ... $end" >&2; exit 1; }
table=$(mktemp)
trap 'rm -f "$table" "$doc.tmp"' EXIT
{ printf 'The last `make bench`, `%s`:\n\n```text\n' "$command"; cat; printf '```\n'; } >"$table"
awk -v b="$begin" -v e="$end" -v t="$table" '
  $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
  $0 == e { skip = 0 }
  !skip { print }' "$doc" >"$doc.tmp"
mv "$doc.tmp" "$doc"
