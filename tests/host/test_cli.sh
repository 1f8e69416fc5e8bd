#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The programs' command lines, on the host, where no module is loaded:
# netslicectl parses a command before it opens netlink (help and syntax
# errors need no module; exit 1 for the command line, 2 for the module),
# every program has --help and --version, and an unknown option is one
# line of stderr naming it.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
work=$(mktemp -d)
out=$work/out
trap 'rm -rf "$work"' EXIT
. "$top/tests/host/ktap.sh"
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")
nfs=(nf-fwd nf-firewall nf-nat nf-lb nf-ipsec nf-monitor)

# run WANT_STATUS CMD...: CMD exits WANT_STATUS; its output is in $out.
run() {
	local want=$1 got
	shift
	"$@" >"$out" 2>&1
	got=$?
	[ "$got" -eq "$want" ] && return 0
	echo "# $*: exit $got, want $want:"
	sed 's/^/#   /' "$out"
	return 1
}

# one_line PATTERN: $out is one line and matches PATTERN.
one_line() {
	[ "$(wc -l <"$out")" -eq 1 ] && grep -qE "$1" "$out" && return 0
	echo "# want one line matching '$1':"
	sed 's/^/#   /' "$out"
	return 1
}

ktap_plan 21
if [ -e /sys/module/netslice ]; then
	echo "# the netslice module is loaded here: the tests need a host without it"
	exit 4
fi

run 0 "$bin/netslicectl" help && grep -q '^usage: netslicectl' "$out" &&
	run 0 "$bin/netslicectl" --help && grep -q '^usage: netslicectl' "$out" &&
	run 0 "$bin/netslicectl" -j help
result "netslicectl help and --help print the usage without the module (exit 0)" $?

ok=0
for cmd in "slice set 0 bogus on" "slice set 0 multi-read maybe" "slice set 0" \
	"slice set 0 slicing" "slice set 0 cut fixed:0" "slice set 0 cut off,gso" \
	"slice set 0 cut auto cut off" "slice set 0 cut fixed" \
	"rule add dport 0- slice 1" "rule add proto tcp" "rule add dport 80 dport 81 slice 1" \
	"rule add from 10.0.0.0/8 src 10.1.0.0/16 slice 1" "link attach" "link show dev" \
	"stats reset slice x" "monitor now" "frob" "chain add 0" "chain add 0 -> -> 1" \
	"chain add -> 0 1" "chain add 0 1 ->" "chain add 0 x" "chain add 0 1 0" "chain del" \
	"chain del 256" "chain flush now" "chain show 0" "chain frob" "slice set 0 next" \
	"slice set 0 next x" "slice set 0 next 256"; do
	# shellcheck disable=SC2086
	run 1 "$bin/netslicectl" $cmd && one_line 'netslicectl: .*\(see netslicectl --help\)' &&
		! grep -q 'not loaded' "$out" || ok=1
done
result "a malformed command is a usage error (exit 1, one line), not a missing module" $ok

ok=0
for cmd in "link show" "slice show 0" "slice set 0 multi-read on" "rule show" \
	"slice set 0 cut fixed:128,trim" "slice set 0 cut auto+16,gso trim on" \
	"stats reset" "monitor" "rule load /nonexistent" "chain" "chain show" "chain list" \
	"chain add 0 -> 1 2" "chain add 0 1 2 3 4 5 6 7 8" "chain del 0 3 0" "chain flush" \
	"slice set 0 next none" "slice set 1 next 0"; do
	# shellcheck disable=SC2086
	run 2 "$bin/netslicectl" $cmd && one_line 'the netslice module is not loaded' || ok=1
done
result "a well-formed command without the module: exit 2, says the module is not loaded" $ok

# OBJECT help: the object's commands from the usage, each a usage line of
# its own (as ip's and bpftool's OBJECT help), exit 0 with no module.
ok=0
"$bin/netslicectl" help >"$work/help"
for o in link slice chain stats rule monitor; do
	run 0 "$bin/netslicectl" "$o" help && head -n 1 "$out" | grep -q "^usage: netslicectl .* $o" || ok=1
	while IFS= read -r line; do
		grep -qxF -- "       netslicectl [-j] [-p] [-s] ${line#  }" "$out" ||
			grep -qxF -- "usage: netslicectl [-j] [-p] [-s] ${line#  }" "$out" ||
			{ echo "# $o help lacks: $line"; ok=1; }
	done < <(grep -E "^  $o( |$)" "$work/help")
	grep -E '^(usage:|      ) netslicectl' "$out" | grep -vqE "\] $o( |$)" &&
		{ echo "# $o help shows another object's command"; ok=1; }
done
run 1 "$bin/netslicectl" slice help me && one_line 'unknown command "help"' || ok=1
result "netslicectl OBJECT help: that object's commands, each a usage line (exit 0, no module)" $ok

run 2 "$bin/netslicectl" -p slice show && one_line 'module is not loaded' &&
	run 2 "$bin/netslicectl" --pretty rule show && one_line 'module is not loaded' &&
	"$bin/netslicectl" --help | grep -qE -- '^  -p, --pretty +JSON output, indented \(implies -j\)$'
result "netslicectl -p, --pretty: taken (indented JSON, tested through netslice-info -p's writer)" $?

# A number out of its setting's range, or no number: the error gives the
# range the module takes (uapi/netslice.yaml's), not the type's.
ok=0
while IFS='|' read -r cmd want; do
	# shellcheck disable=SC2086
	run 1 "$bin/netslicectl" $cmd && one_line "^netslicectl: $want \(see netslicectl --help\)$" || ok=1
done <<'EOF2'
slice set 0 batch 10x|batch: "10x" is not a number from 1 to 1024
slice set 0 batch 0|batch: "0" is not a number from 1 to 1024
slice set 0 batch 1025|batch: "1025" is not a number from 1 to 1024
slice set 0 rxq-size 1|rxq-size: "1" is not a number from 2 to 65536
slice set 0 store-size 65537|store-size: "65537" is not a number from 1 to 65536
slice set 0 store-timeout 600001|store-timeout: "600001" is not a number from 1 to 600000
slice set 0 slicing fixed 513|fixed length: "513" is not a number from 1 to 512
slice set 300 batch 8|slice: "300" is not a number from 0 to 255
rule del id 0|id: "0" is not a number from 1 to 4294967295
EOF2
run 2 "$bin/netslicectl" slice set 0 batch 1024 rxq-size 2 store-timeout 600000 || ok=1
result "netslicectl: a number out of its setting's range names the module's range (exit 1); the ends are taken" $ok

# chain add S1 [->] S2 ...: slices, an arrow only between two, none
# twice (a loop), at most a chain's hops + 1; each refused before the
# module is looked for, one line saying why.
ok=0
while IFS='|' read -r cmd want; do
	# shellcheck disable=SC2086
	run 1 "$bin/netslicectl" $cmd && [ "$(cat "$out")" = "netslicectl: $want (see netslicectl --help)" ] ||
		{ echo "# $cmd: want: $want"; ok=1; }
done <<'EOF2'
chain add 0|chain add takes two slices or more: S1 [->] S2 ...
chain add -> 0 1|chain add: "->" goes between two slices
chain add 0 -> -> 1|chain add: "->" goes between two slices
chain add 0 1 ->|chain add: "->" goes between two slices
chain add 0->1|slice: "0->1" is not a number from 0 to 255
chain add 0 256|slice: "256" is not a number from 0 to 255
chain add 0 1 2 1|chain add: slice 1 twice: a chain cannot loop
chain add 0 1 2 3 4 5 6 7 8 9|chain add: at most 9 slices (a parked payload is handed on at most 8 times)
chain del|chain del takes slices: S [S]...
chain del 0 x|slice: "x" is not a number from 0 to 255
chain flush 0|chain flush takes no arguments
chain show 0|chain show takes no arguments
slice set 0 next x|next: "x" is not a number from 0 to 255, nor none
slice set 0 next|next: "" is not a number from 0 to 255, nor none
EOF2
run 2 "$bin/netslicectl" chain add 0 1 -\> 2 3 4 5 6 7 8 || ok=1
result "netslicectl chain add: a bad slice, a misplaced ->, a slice twice, too many: exit 1, one line why" $ok

run 1 "$bin/netslicectl" --frobnicate &&
	one_line "^netslicectl: unknown option '--frobnicate' \(see netslicectl --help\)$" &&
	run 1 "$bin/netslicectl" -b && one_line "missing value for option '-b'"
result "netslicectl: an unknown option or a missing value is one line (exit 1)" $?

ok=0
for p in netslicectl netslice-info "${nfs[@]}"; do
	run 0 "$bin/$p" --version && [ "$(cat "$out")" = "$p $version" ] || ok=1
	[ "$ok" -eq 0 ] || { echo "# $p --version: $(cat "$out")"; break; }
done
result "every program prints \"NAME $version\" for --version" $ok

run 0 "$bin/netslice-info" --help && grep -q '^usage: netslice-info' "$out" &&
	run 0 "$bin/netslice-info" -h
result "netslice-info --help prints its usage without the module" $?

# netslice-info's JSON says what its text says, of a module made up by
# tests/host/fake_slices.c (none is loaded here): each slice's CPUs, RX
# queue, cut, store, next slice (slice 0's), interfaces and every counter.
cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -I"$top/uapi" -o "$work/fake.so" \
	"$top/tests/host/fake_slices.c" -ldl
fake() { LD_PRELOAD=$work/fake.so "$@"; }
fake "$bin/netslice-info" -s >"$work/text" && fake "$bin/netslice-info" -j -s >"$work/json" &&
	python3 - "$work/text" "$work/json" <<'PY'
import json, re, sys
text, got = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
want = []
for m in re.finditer(r"^slice (\d+): rxq (\d+), cut (\S+) \(store (\d+), (\d+) ms\), (?:next (\d+), )?(\d+) interfaces:(.*)\n"
                     r"slice \d+:(.*)\nslice +\d+ +(/dev/\S+) +kernel-cpus (\S+) +user-cpus (\S+)$", text, re.M):
    g = m.groups()
    ifaces = [dict(zip(("ifindex", "peer_ifindex", "steering", "queue_mask"),
                       (int(a), int(b), {"queues": "queue"}.get(c, c), int(d, 16))))
              for a, b, c, d in re.findall(r" (\d+)->(\d+)\((\w+) (0x[0-9a-f]+)\)", g[7])]
    want.append({"slice": int(g[0]), "device": g[9], "kernel_cpus": g[10], "user_cpus": g[11],
                 "rxq_size": int(g[1]), "cut": g[2], "store_size": int(g[3]),
                 "store_timeout_ms": int(g[4]), "nr_ifaces": int(g[6]), "ifaces": ifaces,
                 "counters": {k: int(v) for k, v in re.findall(r" (\w+)=(\d+)", g[8])}})
    if g[5] is not None:
        want[-1]["next"] = int(g[5])
for s in got:
    for i in s.get("ifaces", []):
        i.pop("rx_queues", None)  # not in the text
if len(want) != 2 or got != want or want[0].get("next") != 1 or "next" in want[1]:
    print("# text: %s\n# json: %s" % (want, got))
    sys.exit(1)
PY
result "netslice-info -j -s: one JSON array saying what the text says, slice by slice" $?

fake "$bin/netslice-info" -p >"$work/pretty" && fake "$bin/netslice-info" -j >"$work/json" &&
	[ "$(head -n 3 "$work/pretty" | tr '\n' '|')" = '[|  {|    "slice": 0,|' ] &&
	python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a != b or len(a) != 2)' \
		"$work/pretty" "$work/json" &&
	run 1 fake "$bin/netslice-info" -j 0 7 && grep -qx "netslice-info: no slice '7' (0..1)" "$out" &&
	run 2 "$bin/netslice-info" -j && one_line 'module not loaded'
result "netslice-info -p: the same JSON, indented; -j and a slice there is not: exit 1; no module: exit 2, one line" $?

run 1 "$bin/netslice-info" --frobnicate &&
	one_line "^netslice-info: unknown option '--frobnicate'" &&
	run 2 "$bin/netslice-info" && one_line 'module not loaded'
result "netslice-info: unknown option exit 1 (one line), no module exit 2" $?

ok=0
for p in "${nfs[@]}"; do
	run 2 "$bin/$p" --frobnicate && one_line "^$p: unknown option '--frobnicate' \(see $p --help\)$" &&
		run 2 "$bin/$p" -s && one_line "^$p: missing value for option '-s'" || ok=1
done
result "each NF: an unknown option or a missing value is one line (exit 2)" $ok

ok=0
for p in "${nfs[@]}"; do
	run 0 "$bin/$p" --help && grep -q "^usage: $p" "$out" && grep -q -- '--version' "$out" || ok=1
done
result "each NF's --help lists --version" $ok

# bash-completion's library (NETSLICE_BASH_COMPLETION: another, or none
# for tests/host/test_host_deps.sh).
bash_completion=${NETSLICE_BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}

# complete_line FILE FUNCTION WORD...: what the bash completion of FILE
# offers for the last (partial) word of the command line WORD..., one per
# line, sorted; run in $work/cwd, which holds the file cmds.txt.
mkdir -p "$work/cwd" && : >"$work/cwd/cmds.txt"
complete_line() {
	(cd "$work/cwd" && bash -c '. "$0" && . "$1" || exit 1
		func=$2
		shift 2
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		$func
		printf "%s\n" "${COMPREPLY[@]}"' "$bash_completion" "$@") | sed '/^$/d' | sort
}
complete_words() { complete_line "$top/tools/ctl/netslicectl.bash" _netslicectl netslicectl "$@"; }
complete_nf() { complete_line "$top/tools/nf/nf.bash" _netslice_nf "$@"; }
# The interfaces here, as a completion offers them.
ifaces=$(cd /sys/class/net && printf '%s\n' * | sort | tr '\n' ' ')

# offers WANT WORD...: netslicectl's completion of WORD... offers WANT
# (words, any order), no more, no less.
offers() {
	local want got
	want=$(tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort | tr '\n' ' ')
	shift
	got=$(complete_words "$@" | tr '\n' ' ')
	[ "$got" = "$want" ] && return 0
	echo "# netslicectl $*<TAB>: offers '$got', want '$want'"
	return 1
}

# completion_case NAME FUNCTION: a case of the completion, a skip without
# bash-completion.
completion_case() {
	if optional_missing "$bash_completion" bash-completion; then
		skip "$1" "$missing"
		return
	fi
	"$2"
	result "$1" $?
}

settings_and_protos() {
	local settings table protos
	settings=$(complete_words slice set 0 "" | tr '\n' ' ')
	# Every protocol name the one table shows (not those it only parses).
	table=$(sed -n '/proto_table\[\] = {/,/^};/p' "$top/tools/lib/proto.c" |
		grep -o '{ "[a-z0-9-]*", [0-9]* }' | cut -d'"' -f2 | sort | tr '\n' ' ')
	protos=$(complete_words rule add proto "" | tr '\n' ' ')
	[[ " $settings" == *" rxq-size "* && " $settings" == *" store-size "* &&
		" $settings" == *" store-timeout "* ]] && [ -n "$table" ] && [ "$protos" = "$table" ] &&
		return 0
	echo "# slice set: $settings; proto: $protos; the table: $table"
	return 1
}
completion_case "bash completion: slice set offers rxq-size, store-size and store-timeout; proto offers the protocol table's names" \
	settings_and_protos

# Each object's commands, and each is one netslicectl takes (its parser
# says "unknown command" of no other) and its OBJECT help shows.
objects_and_commands() {
	local ok=0 o w
	offers "link slice chain stats rule monitor help" "" &&
		offers "show set help" slice "" && offers "show add del flush help" chain "" &&
		offers "attach detach show help" link "" &&
		offers "show slice reset help" stats "" &&
		offers "add del replace show flush load help" rule "" &&
		offers "help" monitor "" && offers "show set" -j slice s || ok=1
	for o in link slice chain stats rule monitor; do
		for w in $(complete_words "$o" ""); do
			[ "$w" = help ] && continue
			"$bin/netslicectl" "$o" "$w" 2>&1 | grep -q 'unknown command' &&
				{ echo "# netslicectl $o $w: an unknown command"; ok=1; }
			"$bin/netslicectl" "$o" help | grep -qw -- "$w" ||
				{ echo "# netslicectl $o help does not show $w"; ok=1; }
		done
	done
	[[ $(complete_words -p "") == *slice* ]] && offers "-j --json -p --pretty -s --stats -b --batch --rate -V --version -h --help" - || ok=1
	return $ok
}
completion_case "bash completion: netslicectl offers the objects, each object's commands (slice: show, set), the options; each as the parser and OBJECT help have it" \
	objects_and_commands

# After a command: its keywords, each once, and their values.
keywords_and_values() {
	offers "cut trim gso batch multi-read multi-write kernel-cpus user-cpus rxq-size store-size store-timeout next" \
		slice set 0 "" &&
		offers "cut gso batch multi-read multi-write kernel-cpus user-cpus rxq-size store-size store-timeout next" \
			slice set 0 trim on "" && offers "none" slice set 0 next "" &&
		offers "" chain add 0 "" && offers "" chain show "" &&
		offers "on off" slice set 0 trim "" && offers "on off" slice set 0 batch 8 multi-read "" &&
		offers "" slice set 0 batch "" && offers "" slice show 0 "" &&
		offers "family proto src dst sport dport pref slice" rule add "" &&
		offers "family src dst sport dport pref slice" rule replace proto tcp "" &&
		offers "family proto src dst sport dport pref slice id" rule del "" &&
		offers "ipv4 ipv6" rule add family "" && offers "" rule show "" &&
		offers "dev peer slices" link attach "" && offers "peer slices" link attach dev lo "" &&
		offers "$ifaces" link attach dev "" && offers "dev" link show "" &&
		offers "slice" stats reset "" && offers "slice" stats show "" &&
		offers "cmds.txt" rule load "" && offers "replace" rule load cmds.txt "" &&
		offers "cmds.txt" -b "" && offers "" --rate ""
}
completion_case "bash completion: after a command, its keywords (each once) and their values: on/off, families, interfaces, files" \
	keywords_and_values

# Each NF offers the long options its --help lists, and the values it
# knows (I/O modes, cut modes, files, interfaces); none for a number.
nf_options() {
	local ok=0 p want got
	for p in "${nfs[@]}"; do
		want=$("$bin/$p" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' ')
		got=$(complete_nf "$bin/$p" -- | tr '\n' ' ')
		if [ -z "$want" ] || [ "$got" != "$want" ]; then
			echo "# $p --<TAB>: '$got', want '$want'"
			ok=1
		fi
		got=$(complete_nf "$bin/$p" - | grep -c '^-[a-zA-Z]$')
		[ "$got" -eq 8 ] || { echo "# $p -<TAB>: $got short options, want 8"; ok=1; }
	done
	if [ "$(complete_nf "$bin/nf-fwd" --io "" | tr '\n' ' ')" = "ring rw " ] &&
		[ "$(complete_nf "$bin/nf-fwd" -m "" | tr '\n' ' ')" = "auto auto,gso auto,trim auto,trim,gso fixed: off " ] &&
		[ "$(complete_nf "$bin/nf-fwd" --slices "")" = all ] &&
		[ -z "$(complete_nf "$bin/nf-fwd" --batch "")" ] &&
		[ -z "$(complete_nf "$bin/nf-nat" --timeout-udp "")" ] &&
		[ "$(complete_nf "$bin/nf-firewall" --rules "")" = cmds.txt ] &&
		[ "$(complete_nf "$bin/nf-nat" --inside "" | tr '\n' ' ')" = "$ifaces" ] &&
		[ "$(complete_nf "$bin/nf-lb" --vip 10.0.0.1 --bac | tr '\n' ' ')" = \
			"--backend --backend-if --backends " ]; then
		return $ok
	fi
	echo "# an NF's values are not completed as they should be"
	return 1
}
completion_case "bash completion of the NFs (tools/nf/nf.bash): each offers its --help's long options and their known values" \
	nf_options

# A command is parsed once: a deprecated word is noted once, before the
# module is looked for (the guest's test_ctl.sh counts it with the module).
ok=0
for cmd in "slice set 0 ring-size 1024|\"ring-size\" is deprecated: write \"rxq-size\"" \
	"slice set 0 slicing fixed 100|\"slicing fixed 100\" is deprecated: write \"cut fixed:100\""; do
	# shellcheck disable=SC2086
	run 2 "$bin/netslicectl" ${cmd%%|*} &&
		[ "$(grep -cxF "netslicectl: ${cmd#*|}" "$out")" -eq 1 ] &&
		[ "$(wc -l <"$out")" -eq 2 ] && tail -n 1 "$out" | grep -q 'module is not loaded' ||
		{ echo "# $cmd:"; sed 's/^/#   /' "$out"; ok=1; }
done
result "netslicectl: a deprecated word is noted once, then the missing module (exit 2)" $ok

# What the user typed comes back with its control bytes shown, never raw:
# an ESC (a terminal's escape sequences), a newline (a forged line), C1.
ok=0
for arg in $'bogus\e[31mX' $'bogus\nnetslicectl: forged' $'bogus\xc2\x9b31m'; do
	run 1 "$bin/netslicectl" "$arg" && one_line 'netslicectl: .*bogus\\x(1b|0a|c2\\x9b)' &&
		! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2\x9b' "$out" || ok=1
done
run 1 "$bin/netslicectl" rule add proto $'\e]0;t\a' && ! LC_ALL=C grep -q $'\e' "$out" || ok=1
result "netslicectl: control bytes in what the user typed are shown as \\xNN, never written raw" $ok

ktap_done
