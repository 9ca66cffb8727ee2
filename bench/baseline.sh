# bench/baseline.sh, sourced by the bench scripts from the repository's
# root: the baseline, the evaluate of an earlier commit that every row is
# timed against, side by side, in alternating runs on the same inputs.
#
# The commit is BASE, else the first word of bench/BASELINE. Its evaluate is
# built once per commit, in a git worktree, into bin/baseline/COMMIT/evaluate;
# later runs reuse it. BASE=none measures this tree alone.
#
# A row's vs_base is the median, over the pairs of alternating runs, of this
# tree's CPU time (user and system) over the baseline's: a ratio of two runs
# next to each other, so that it holds while the machine's load drifts. A
# row more than 10% slower than the baseline (vs_base above 1.10) is marked
# "!", and the script exits 3 at the end, unless BENCH_ALLOW (row names,
# separated by spaces or commas) names the row.

base_ref=${BASE:-$(awk 'NF && $1 !~ /^#/ {print $1; exit}' bench/BASELINE)}
base_ev="" base_name=""
if [ "$base_ref" != none ]; then
  base_commit=$(git rev-parse --verify "$base_ref^{commit}")
  base_name=$(git rev-parse --short "$base_commit")
  base_dir=bin/baseline/$base_commit
  if [ ! -x "$base_dir/evaluate" ]; then
    rm -rf "$base_dir/src"
    mkdir -p "$base_dir"
    git worktree add -q --detach "$base_dir/src" "$base_commit"
    (cd "$base_dir/src" && go build -o ../evaluate ./cmd/evaluate)
    git worktree remove --force "$base_dir/src"
  fi
  base_ev=$PWD/$base_dir/evaluate
fi

# base_args ARG...: the arguments for the baseline's evaluate: without
# --ome-version VALUE when the baseline has no such flag (before OME's
# releases, it states one set of rules), and report's --out FILE as -o FILE
# when the baseline's report names its page with -o.
# base_has COMMAND PATTERN says whether the baseline's help of COMMAND
# matches PATTERN (grep -E). The help is read whole before it is searched:
# under pipefail, grep -q's early exit would fail the pipe (a help written
# in several writes gets SIGPIPE) and read as "no such flag".
base_has() {
  local help
  help=$("$base_ev" "$1" --help 2>&1) || true
  grep -qE -- "$2" <<<"$help"
}
base_releases=no base_report_out=no
[ -z "$base_ev" ] || ! base_has match '--ome-version' || base_releases=yes
[ -z "$base_ev" ] || ! base_has report '--out[[:space:]]' || base_report_out=yes
base_args() {
  while [ $# -gt 0 ]; do
    case $1 in
      --ome-version) [ "$base_releases" = yes ] && printf '%s\n' "$1" "$2"; shift ;;
      --ome-version=*) [ "$base_releases" = no ] || printf '%s\n' "$1" ;;
      --out) [ "$base_report_out" = yes ] && printf '%s\n' "$1" || printf '%s\n' -o; printf '%s\n' "$2"; shift ;;
      *) printf '%s\n' "$1" ;;
    esac
    shift
  done
}

# vs_base FILE BASEFILE: the median of the ratios of the third fields (CPU
# ms) of the lines of FILE and BASEFILE, line by line (run i of this tree
# against run i of the baseline).
vs_base() {
  paste -d' ' "$1" "$2" | awk '{print ($6 > 0 ? $3 / $6 : 1)}' | sort -g |
    awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

# base_mark ROW RATIO: sets mark to "!" when RATIO is above 1.10, else to
# ""; such a row that BENCH_ALLOW does not name is recorded, and base_exit
# fails.
base_slow=""
base_mark() {
  mark=""
  if awk -v r="$2" 'BEGIN {exit !(r > 1.10)}'; then
    mark="!"
    local allow=${BENCH_ALLOW:-}
    case " ${allow//,/ } " in
      *" $1 "*) ;;
      *) base_slow="$base_slow $1" ;;
    esac
  fi
}

# base_exit: at a script's end, names the rows more than 10% slower than
# the baseline that BENCH_ALLOW does not name, and exits 3 if any.
base_exit() {
  [ -n "$base_slow" ] || return 0
  echo "more than 10% slower than the baseline ($base_name):$base_slow (BENCH_ALLOW=ROW accepts a row)" >&2
  exit 3
}
