# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The NFs' systemd unit without systemd (the guest has none): its command
# line as systemd expands it (tests/unit_exec.sh), under the limits and
# capabilities the unit file sets, parsed from the file, not restated.

# unit_value UNIT KEY: the unit's KEY= setting (the last one), or nothing.
unit_value() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

# unit_bounding_set UNIT: its CapabilityBoundingSet= as setpriv's
# --bounding-set ("-all,+net_admin,+ipc_lock"); all kept if it sets none.
unit_bounding_set() {
	local caps cap set=-all
	caps=$(unit_value "$1" CapabilityBoundingSet)
	[ -n "$caps" ] || { echo +all; return; }
	[[ $caps != "~"* ]] || return 1	# a deny list: not what the unit says
	for cap in $caps; do
		cap=${cap,,}
		set+=",+${cap#cap_}"
	done
	echo "$set"
}

# unit_memlock UNIT: its LimitMEMLOCK= as prlimit's --memlock=SOFT:HARD,
# in bytes (systemd's K, M, G are 1024's). With none set, systemd's default
# applies: at its smallest 64 KiB (kernels before 5.16), which is used.
unit_memlock() {
	local v n soft hard out=
	v=$(unit_value "$1" LimitMEMLOCK)
	[ -n "$v" ] || v=64K
	for n in ${v/:/ }; do
		case $n in
		infinity) n=unlimited ;;
		*[Kk]) n=$((${n%?} * 1024)) ;;
		*[Mm]) n=$((${n%?} * 1024 * 1024)) ;;
		*[Gg]) n=$((${n%?} * 1024 * 1024 * 1024)) ;;
		*[!0-9]*) return 1 ;;
		esac
		out+=${out:+:}$n
	done
	soft=${out%%:*} hard=${out#*:}
	echo "$soft:$hard"
}

# unit_limits UNIT: sets unit_limits to the words that run a command under
# UNIT's memory lock limit, capability bounding set and no-new-privs, as
# the unit's main process has them (prlimit and setpriv exec: the command
# keeps the PID).
unit_limits() {
	local memlock caps
	memlock=$(unit_memlock "$1") && caps=$(unit_bounding_set "$1") || {
		tst_diag "$1: LimitMEMLOCK or CapabilityBoundingSet not understood"
		return 1
	}
	unit_limits=(prlimit --memlock="$memlock" setpriv --bounding-set="$caps" --no-new-privs --)
	tst_diag "the unit's limits: ${unit_limits[*]}"
}

# What systemd runs for an instance: unit_exec.sh UNIT INSTANCE [NAME=VALUE]...
# shellcheck disable=SC2034 # for the tests that source this file
UNIT_EXEC=$TST_TOP/tests/unit_exec.sh

# unit_render DIR: the unit and example configuration as `make
# install-units` renders them, under DIR (etc/netslice/, lib/systemd/system/),
# naming the NFs of this build; sets unit_file and unit_conf.
unit_render() {
	make -s -C "$TST_TOP" install-units DESTDIR=/ PREFIX="$1" SBINDIR="$TST_BIN" \
		>/dev/null || return 1
	unit_file=$1/lib/systemd/system/netslice-nf@.service
	unit_conf=$1/etc/netslice
	[ -f "$unit_file" ] && [ -d "$unit_conf" ]
}
