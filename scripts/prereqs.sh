#!/bin/sh
# What `make test` needs beyond Go and make, checked before any long step:
# Chromium (the report's browser tests run chromium, chromium-browser or
# google-chrome from PATH, or $CHROMIUM), git (a test of the CI workflows
# runs it) and a C compiler (the race detector needs cgo, which calls
# $CC, else `go env CC`). With the argument "race", only what `make race`
# needs: the C compiler. What is missing is installed with Debian's apt-get
# when this runs as root or with passwordless sudo; otherwise this stops at
# once with the command to run.
set -u

target=${1:-test}

# cc: the C compiler cgo calls, by its command's name.
cc=${CC:-}
if [ -z "$cc" ] && command -v go >/dev/null 2>&1; then
	cc=$(go env CC 2>/dev/null)
fi
cc=${cc%% *}
[ -n "$cc" ] || cc=gcc

# missing: Debian's packages to install; elsewhere: what to install on
# other systems.
find_missing() {
	missing= elsewhere=
	if [ "$target" != race ]; then
		if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 &&
			! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
			missing=chromium
			elsewhere="Chromium or Google Chrome (Ubuntu: snap install chromium), or set CHROMIUM to its binary"
		fi
		if ! command -v git >/dev/null 2>&1; then
			missing="${missing:+$missing }git"
			elsewhere="${elsewhere:+$elsewhere; and }git"
		fi
	fi
	if ! command -v "$cc" >/dev/null 2>&1; then
		# Debian's gcc only recommends the C library's headers, which cgo
		# needs too.
		missing="${missing:+$missing }gcc libc6-dev"
		elsewhere="${elsewhere:+$elsewhere; and }a C compiler for the race detector ($cc, which cgo calls; or set CC to another)"
	fi
}

find_missing
[ -z "$missing" ] && exit 0

cmd="apt-get update && apt-get install -y $missing"
why= sudo=
if ! command -v apt-get >/dev/null 2>&1; then
	why="this system has no apt-get"
elif [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
		sudo=yes
	else
		why="installing needs root or passwordless sudo"
	fi
fi

# apt-get as root, or through sudo, never asking a question.
apt_get() {
	if [ -n "$sudo" ]; then
		sudo -n DEBIAN_FRONTEND=noninteractive apt-get "$@"
	else
		DEBIAN_FRONTEND=noninteractive apt-get "$@"
	fi
}

if [ -z "$why" ]; then
	echo "make $target: installing $missing with apt-get${sudo:+ through sudo}"
	# shellcheck disable=SC2086 # $missing is a list of package names
	if apt_get update -qq && apt_get install -y -qq $missing >/dev/null; then
		find_missing
		[ -z "$missing" ] && exit 0
		why="apt-get installed it, yet it is not on PATH"
	else
		why="apt-get failed"
	fi
fi

# The shell's own printf: the message needs nothing else on PATH.
printf '%s\n' >&2 \
	"make $target: missing: $missing ($why)." \
	"On Debian, run this as root, then make $target again:" \
	"  $cmd" \
	"Elsewhere, install $elsewhere."
exit 1
