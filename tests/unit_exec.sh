#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# unit_exec.sh UNIT INSTANCE [NAME=VALUE | NAME+=VALUE]...
#
# Exec what systemd starts for INSTANCE of the template UNIT (a rendered
# file, netslice-nf@.service): its ExecStart with %i, %% and $$ replaced,
# split at whitespace outside quotes, in this environment plus the unit's
# Environment= lines, then its EnvironmentFile= (which overrides them, as
# in systemd), then the arguments (NAME+=VALUE appends " VALUE"). Limits
# and capabilities are the caller's to apply (prlimit, setpriv): exec all
# the way down, so the NF has this script's PID. Only what the unit uses
# is understood; anything else is refused (exit 3), not guessed at.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: unit_exec.sh UNIT INSTANCE [NAME=VALUE]..." >&2; exit 3; }
unit=$1 inst=$2
shift 2

die() { echo "unit_exec.sh: $unit: $*" >&2; exit 3; }

# The value of each KEY= line, specifiers replaced.
values() {
	local line
	while IFS= read -r line; do
		line=${line//%%/$'\x01'}
		line=${line//%i/$inst}
		[[ $line != *%* ]] || die "a specifier other than %i and %%: $line"
		printf '%s\n' "${line//$'\x01'/%}"
	done < <(sed -n "s/^$1=//p" "$unit")
}

# split LINE: LINE split at whitespace outside quotes, as systemd splits a
# command line, into $argv. systemd's own variables ($NAME) are not
# expanded: the unit escapes its $ as $$, which becomes $.
split() {
	[[ ${1//\$\$/} != *[\$\\]* ]] || die "a \$ or \\ this script does not expand: $1"
	mapfile -d '' argv < <(python3 -c 'import shlex, sys
for w in shlex.split(sys.argv[1]):
    sys.stdout.write(w.replace("$$", "$") + "\0")' "$1")
	[ ${#argv[@]} -gt 0 ] || die "cannot split: $1"
}

# Captured first: a die in a command substitution stops the script.
envs=$(values Environment)
files=$(values EnvironmentFile)
cmd=$(values ExecStart)
if [ -z "$cmd" ] || [ "$(wc -l <<<"$cmd")" -ne 1 ]; then
	die "not one ExecStart"
fi
[[ $cmd == /* ]] || die "an ExecStart prefix (-, @, +, !) this script does not take: $cmd"

while IFS= read -r env; do
	[ -n "$env" ] || continue
	split "$env"
	for assignment in "${argv[@]}"; do
		export "${assignment?}"
	done
done <<<"$envs"
while IFS= read -r file; do
	[ -n "$file" ] || continue
	if [ -f "${file#-}" ]; then
		set -a
		# shellcheck disable=SC1090
		. "${file#-}"
		set +a
	elif [[ $file != -* ]]; then
		die "no EnvironmentFile $file"
	fi
done <<<"$files"
for assignment in "$@"; do
	case $assignment in
	*+=*) name=${assignment%%+=*} && export "$name=${!name:-} ${assignment#*+=}" ;;
	*=*) export "${assignment?}" ;;
	*) die "not NAME=VALUE: $assignment" ;;
	esac
done
split "$cmd"
exec "${argv[@]}"
