#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check-host on a machine with only its required dependencies
# (docs/testing.md): the host tests that use an optional one run again
# with each gone (tcpdump, groff and systemd-analyze off PATH; PyYAML,
# matplotlib, prometheus_client and cryptography not importable; no
# bash-completion), through tests/check.sh as make check-host runs them.
# Each check that needs what is gone skips, saying which package brings
# it; none fails, and no Python traceback is printed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/ktap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gone_commands="tcpdump groff systemd-analyze"
gone_modules="yaml matplotlib prometheus_client cryptography"
# The parts that use them (the ASan run is test_nf.py's again).
parts='NFs offline \(pcapng\)|command lines|library install|systemd units|bench report|spec vs uapi'

# PATH as it is, but for the commands gone: a directory of links to the rest.
mkdir "$work/bin" "$work/py"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	# Not ccache's compiler links (scripts/ccache-env.sh): from a directory
	# of links, ccache finds no compiler but itself.
	case $d in */ccache) continue ;; esac
	for f in "$d"/*; do
		name=${f##*/}
		[[ " $gone_commands " == *" $name "* ]] && continue
		[ -x "$f" ] && [ ! -e "$work/bin/$name" ] && ln -s "$f" "$work/bin/$name"
	done
done
# Modules found first on PYTHONPATH that refuse to import, as absent ones do.
for m in $gone_modules; do
	echo "raise ImportError('no module named $m (tests/host/test_host_deps.sh)')" >"$work/py/$m.py"
done

ktap_plan 4
PATH=$work/bin PYTHONPATH=$work/py${PYTHONPATH:+:$PYTHONPATH} \
	NETSLICE_BASH_COMPLETION=$work/none NETSLICE_HOST_PARTS="$parts" \
	NETSLICE_LOG_DIR=$work/logs "$top/tests/check.sh" --host >"$work/out" 2>&1
rc=$?
totals=$(tail -n 1 "$work/out")
echo "# without them: $totals (exit $rc)"
[ "$rc" -eq 0 ] && [[ $totals =~ ^[1-9][0-9]*\ passed,\ 0\ failed,\ [1-9][0-9]*\ skipped$ ]]
ok=$?
[ "$ok" -eq 0 ] || grep -E '^check: (FAILED|  )' "$work/out" | sed 's/^/# /'
result "the parts that use an optional dependency pass without it, skipping what needs it" $ok

n=$(grep -c 'Traceback' "$work/out")
[ "$n" -eq 0 ] || grep -m 2 -A 6 'Traceback' "$work/out" | sed 's/^/# /'
result "no Python traceback" "$n"

# Each thing gone is named as a skip's reason, with the package that brings it.
ok=0
for want in "no tcpdump (Debian: tcpdump)" "no groff (Debian: groff-base)" \
	"no systemd-analyze (Debian: systemd)" "no Python module yaml (Debian: python3-yaml)" \
	"no Python module matplotlib (Debian: python3-matplotlib)" \
	"no Python module prometheus_client (Debian: python3-prometheus-client)" \
	"no Python module cryptography (Debian: python3-cryptography)" \
	"no $work/none (Debian: bash-completion)"; do
	grep -qF -- "# SKIP $want" "$work/out" || { echo "# no skip says \"$want\""; ok=1; }
done
result "each skip names what is missing and its package" $ok

# A skip with no reason would read "# SKIP" and nothing after it.
n=$(grep -cE '# SKIP *$' "$work/out")
[ "$n" -eq 0 ] || grep -E '# SKIP *$' "$work/out" | sed 's/^/# /'
result "every skip gives a reason" "$n"

ktap_done
