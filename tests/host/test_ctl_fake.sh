#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# netslicectl's commands that need the kernel's answers, on the host:
# build/tests/netslicectl-fake is netslicectl over a made-up module
# (tests/host/fake_nl.c) whose slices' chains are a file. chain add sets
# a chain's links last first and undoes them when the kernel refuses one
# (a loop, no such slice), chain show prints each chain once from its
# first slice, in text and JSON; chain del and flush end chains; slice
# set next and slice show; batch mode. The guest's test_ctl.sh runs the
# same against the module.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/ktap.sh"
ctl=$top/build/tests/netslicectl-fake
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NETSLICE_FAKE_NL=$work/slices NETSLICE_FAKE_NL_LOG=$work/log
out=$work/out
[ -x "$ctl" ] || { echo "Bail out! $ctl is missing: run make host-test-bins"; exit 1; }

# slices N [S:NEXT...]: a module of N slices with those links, the log emptied.
slices() {
	local n=$1 l
	shift
	echo "$n" >"$NETSLICE_FAKE_NL"
	for l in "$@"; do echo "${l%:*} ${l#*:}"; done >>"$NETSLICE_FAKE_NL"
	: >"$NETSLICE_FAKE_NL_LOG"
}

# links: the module's links now, "S:NEXT ...".
links() { tail -n +2 "$NETSLICE_FAKE_NL" | tr ' \n' ': ' | sed 's/ $//'; }

# run WANT_STATUS CMD...: netslicectl CMD... exits WANT_STATUS; its output in $out.
run() {
	local want=$1 got
	shift
	"$ctl" "$@" >"$out" 2>&1
	got=$?
	[ "$got" -eq "$want" ] && return 0
	echo "# netslicectl $*: exit $got, want $want:"
	sed 's/^/#   /' "$out"
	return 1
}

# is WHAT GOT WANT: GOT is WANT, or say what it is.
is() {
	[ "$2" = "$3" ] && return 0
	echo "# $1: '$2', want '$3'"
	return 1
}

ktap_plan 8

ok=0
slices 8
run 0 chain add 0 '->' 1 '->' 2 && is output "$(cat "$out")" "" &&
	is links "$(links)" "0:1 1:2" &&
	is "order set" "$(tr '\n' ' ' <"$NETSLICE_FAKE_NL_LOG")" "1 2 0 1 " || ok=1
run 0 chain add 4 5 && run 0 chain add 6 '->' 2 && run 0 chain && is show "$(cat "$out")" \
	"$(printf '0 -> 1 -> 2\n4 -> 5\n6 -> 2')" || ok=1
run 0 chain show && is "chain show" "$(cat "$out")" "$(printf '0 -> 1 -> 2\n4 -> 5\n6 -> 2')" &&
	run 0 -j chain && is "-j chain" "$(cat "$out")" \
	'[{"slices":[0,1,2]},{"slices":[4,5]},{"slices":[6,2]}]' &&
	run 0 -p chain list && python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[1] != {"slices": [4, 5]})' "$out" ||
	ok=1
result "chain add sets the links last first; chain show: a line per chain from its first slice (-j, -p too)" $ok

ok=0
slices 4 2:0
run 2 chain add 0 1 2 &&
	is refusal "$(cat "$out")" "$(printf '%s\n' \
		"Error: slice 0 -> 1: the next slice's chain leads back to this slice: a loop." \
		"Undone: slice 1 next 2 (its next is none again).")" &&
	is links "$(links)" "2:0" || ok=1
slices 4 1:3
run 2 chain add 0 1 2 9 &&
	is refusal "$(cat "$out")" "Error: slice 2 -> 9: no such slice." && is links "$(links)" "1:3" ||
	ok=1
run 2 chain add 2 0 1 7 && is links "$(links)" "1:3" &&
	is undone "$(grep -c '^Undone' "$out")" 0 || ok=1
slices 4 0:2 1:3
run 2 chain add 2 1 0 &&
	is refusal "$(cat "$out")" "$(printf '%s\n' \
		"Error: slice 2 -> 1: the next slice's chain leads back to this slice: a loop." \
		"Undone: slice 1 next 0 (its next is 3 again).")" && is links "$(links)" "0:2 1:3" ||
	ok=1
slices 4 0:3
run 2 chain add 3 2 1 0 && is links "$(links)" "0:3" &&
	is undone "$(grep '^Undone' "$out" | tr '\n' '|')" \
		"Undone: slice 2 next 1 (its next is none again).|Undone: slice 1 next 0 (its next is none again).|" ||
	ok=1
result "chain add refused (a loop, no such slice): the kernel's message, the links it set undone" $ok

ok=0
slices 6 0:1 1:2 3:4 4:5
run 0 chain del 1 4 1 && is links "$(links)" "0:1 3:4" && run 0 chain &&
	is show "$(cat "$out")" "$(printf '0 -> 1\n3 -> 4')" || ok=1
run 2 chain del 0 3 9 && is links "$(links)" "0:1 3:4" &&
	is refusal "$(head -n 1 "$out")" "Error: slice 9: no such slice." || ok=1
run 0 chain flush && is links "$(links)" "" && run 0 chain && is show "$(cat "$out")" "" &&
	run 0 -j chain && is "-j show" "$(cat "$out")" "[]" &&
	: >"$NETSLICE_FAKE_NL_LOG" && run 0 chain flush && is "flush of nothing" "$(cat "$NETSLICE_FAKE_NL_LOG")" "" ||
	ok=1
result "chain del ends the chains at its slices (each once; undone on a refusal); chain flush ends them all" $ok

ok=0
slices 4 3:0
run 0 slice set 1 next 3 && is links "$(links)" "1:3 3:0" && run 0 slice set 3 next none &&
	is links "$(links)" "1:3" && run 2 slice set 3 next 1 && is refusal "$(cat "$out")" \
	"Error: slice 3: the next slice's chain leads back to this slice: a loop." || ok=1
run 0 slice show && is "NEXT column" "$(awk '{ print $1 "=" $NF }' "$out" | tr '\n' ' ')" \
	"SLICE=NEXT 0=- 1=3 2=- 3=- " || ok=1
run 0 -j slice show && python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit([s.get("next") for s in j] != [None, 3, None, None])' "$out" ||
	ok=1
result "slice set next N|none changes the chain; slice show has the next slice (JSON: where there is one)" $ok

ok=0
slices 4 2:0
printf '%s\n' 'chain add 0 -> 1' 'chain add 3 2' '# and again' 'chain' >"$work/batch"
run 0 -b "$work/batch" && is "batch output" "$(cat "$out")" "3 -> 2 -> 0 -> 1" &&
	is links "$(links)" "0:1 2:0 3:2" || ok=1
printf '%s\n' 'chain del 3' 'chain add 1 -> 2' 'chain flush' >"$work/batch"
run 2 -b "$work/batch" && is links "$(links)" "0:1 2:0" &&
	is "batch refusal" "$(cat "$out")" \
	"$work/batch:2: Error: slice 1 -> 2: the next slice's chain leads back to this slice: a loop." ||
	ok=1
printf '%s\n' 'chain add 0 1' 'chain add 1 ->' >"$work/batch"
run 1 -b "$work/batch" && is links "$(links)" "0:1 2:0" &&
	grep -q "^netslicectl: $work/batch:2:[0-9]*: chain add: \"->\" goes between two slices" "$out" || ok=1
result "batch mode: chain lines as others; a refusal names FILE:LINE, a usage error FILE:LINE:COL" $ok

# A link set by another command is kept when this one is undone: only
# what this command changed goes back.
ok=0
slices 4 1:2 3:0
run 2 chain add 0 1 2 3 && is links "$(links)" "1:2 3:0" &&
	is "sets, then undone" "$(tr '\n' ' ' <"$NETSLICE_FAKE_NL_LOG")" "2 3 1 2 2 none " &&
	is undone "$(grep -c '^Undone' "$out")" 1 || ok=1
result "undo restores each slice's next as it was read: a link already there stays" $ok

ok=0
slices 12 3:4 4:5 5:6 6:7
run 0 chain add 0 1 2 3 && run 0 chain add 7 8 && : >"$NETSLICE_FAKE_NL_LOG" &&
	run 2 chain add 8 9 && is refusal "$(cat "$out")" \
		"Error: chain add: a chain of 10 slices: a parked payload is handed on at most 8 times." &&
	run 2 chain add 1 2 3 4 5 6 7 8 9 && is "nothing sent" "$(cat "$NETSLICE_FAKE_NL_LOG")" "" &&
	run 0 chain del 0 && run 0 chain add 8 9 && run 0 chain add 10 11 &&
	is links "$(links)" "1:2 2:3 3:4 4:5 5:6 6:7 7:8 8:9 10:11" || ok=1
result "chain add: no chain of more than NETSLICE_CHAIN_MAX_HOPS + 1 slices, with those there are" $ok

ok=0
slices 4
run 2 chain add 0 9 && is refusal "$(cat "$out")" "Error: slice 0 -> 9: no such slice." &&
	is links "$(links)" "" && run 2 chain del 7 && is links "$(links)" "" || ok=1
result "a slice there is not: refused, nothing changed" $ok

ktap_done
