#!/usr/bin/env bash
# bench/doc.sh SCRIPT [VAR...]: runs bash SCRIPT, its table shown as it
# comes, and, when it succeeds or exits 3 (rows more than 10% slower than
# the baseline, marked in the table) and BEFORE is empty, puts that table into
# docs/performance.md (or $BENCH_DOC) between the lines
# "<!-- SCRIPT: begin -->" and "<!-- SCRIPT: end -->": a line naming the
# command (with those VARs that are set), then the table as a text block.
# make bench calls it for each script; a script run by hand writes nothing.
# It exits with the script's status.
set -euo pipefail
script=$1
shift
doc=${BENCH_DOC:-docs/performance.md}
begin="<!-- $script: begin -->" end="<!-- $script: end -->"
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || { echo "bench/doc.sh: $doc has no $begin ... $end" >&2; exit 1; }
out=$(mktemp) table=$(mktemp)
trap 'rm -f "$out" "$table" "$doc.tmp"' EXIT
status=0
bash "$script" | tee "$out" || status=$?
[ "$status" = 0 ] || [ "$status" = 3 ] || exit "$status"
[ -z "${BEFORE:-}" ] || exit "$status"
command=""
for v in "$@"; do [ -z "${!v:-}" ] || command="$command$v=${!v} "; done
command="${command}bash $script"
{ printf 'The last `make bench`, `%s`:\n\n```text\n' "$command"; cat "$out"; printf '```\n'; } >"$table"
awk -v b="$begin" -v e="$end" -v t="$table" '
  $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
  $0 == e { skip = 0 }
  !skip { print }' "$doc" >"$doc.tmp"
mv "$doc.tmp" "$doc"
exit "$status"
