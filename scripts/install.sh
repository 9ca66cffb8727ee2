#!/usr/bin/env bash
# Installs evaluate from a release's assets: the archive for this OS and
# architecture, checked against the release's checksums.txt (sha256), its
# binary into a folder. The CI action (action.yml) runs it; so can anyone:
#
#   scripts/install.sh [--version vX.Y.Z|latest] [--dir DIR] [--base-url URL]
#
#   --version   the release's tag (default: latest)
#   --dir       where to put evaluate (default: $HOME/.local/bin)
#   --base-url  where the release's assets are (default: the project's
#               GitHub release of --version); any URL curl reads, such as
#               file:///path/to/dist or http://127.0.0.1:8080
#
# EVALUATE_OS and EVALUATE_ARCH override what uname says (linux, darwin,
# windows; amd64, arm64). It prints the installed binary's path.
set -euo pipefail

repo=https://github.com/ome-policy/evaluator
version=latest
dir="${HOME:-.}/.local/bin"
base=
usage() { sed -n '2,15s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --version|--dir|--base-url)
      if [ $# -lt 2 ] || [ -z "$2" ]; then
        echo "install.sh: $1 needs a value (--help says what each takes)" >&2; exit 2
      fi
      case "$1" in
        --version) version="$2" ;;
        --dir) dir="$2" ;;
        --base-url) base="$2" ;;
      esac
      shift 2 ;;
    *) echo "install.sh: unknown argument $1 (--help says what it takes)" >&2; exit 2 ;;
  esac
done
if [ -z "$base" ]; then
  if [ "$version" = latest ]; then
    base="$repo/releases/latest/download"
  else
    base="$repo/releases/download/$version"
  fi
fi
base="${base%/}"

os="${EVALUATE_OS:-}"
if [ -z "$os" ]; then
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) echo "install.sh: no release for $(uname -s)" >&2; exit 1 ;;
  esac
fi
arch="${EVALUATE_ARCH:-}"
if [ -z "$arch" ]; then
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "install.sh: no release for $(uname -m)" >&2; exit 1 ;;
  esac
fi
ext=tar.gz exe=evaluate
if [ "$os" = windows ]; then ext=zip exe=evaluate.exe; fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fetch() {
  curl -fsSL --retry 3 -o "$2" "$1" || { echo "install.sh: cannot fetch $1 (is --version or --base-url right?)" >&2; exit 2; }
}

fetch "$base/checksums.txt" "$tmp/checksums.txt"
# The archive's name carries the version: checksums.txt names it, so
# "latest" needs no lookup of its tag.
archive="$(awk -v s="_${os}_${arch}.${ext}" '{ n = $2; sub(/^\*/, "", n) } n ~ /^evaluate_/ && substr(n, length(n) - length(s) + 1) == s { print n }' "$tmp/checksums.txt")"
if [ -z "$archive" ] || [ "$(printf '%s\n' "$archive" | wc -l)" -ne 1 ]; then
  echo "install.sh: checksums.txt at $base names no single archive for $os/$arch" >&2
  exit 1
fi
fetch "$base/$archive" "$tmp/$archive"
want="$(awk -v n="$archive" '$2 == n || $2 == "*" n { print $1 }' "$tmp/checksums.txt")"
if command -v sha256sum >/dev/null 2>&1; then
  got="$(sha256sum "$tmp/$archive" | awk '{ print $1 }')"
else
  got="$(shasum -a 256 "$tmp/$archive" | awk '{ print $1 }')"
fi
if [ "$got" != "$want" ]; then
  echo "install.sh: $archive: sha256 $got, checksums.txt says $want" >&2
  exit 1
fi

mkdir -p "$tmp/x" "$dir"
if [ "$ext" = zip ] && command -v unzip >/dev/null 2>&1; then
  (cd "$tmp/x" && unzip -q "../$archive" "$exe")
elif [ "$ext" = zip ]; then
  tar -xf "$tmp/$archive" -C "$tmp/x" "$exe"   # bsdtar reads zip
else
  tar -xzf "$tmp/$archive" -C "$tmp/x" "$exe"
fi
chmod 0755 "$tmp/x/$exe"
mv -f "$tmp/x/$exe" "$dir/$exe"
echo "$dir/$exe"
