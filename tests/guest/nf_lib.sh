# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Running a bundled NF in a guest test (after lib.sh).

# udp_in NS: UDP datagrams that reached the namespace's stack.
udp_in() {
	ip netns exec "$1" awk '/^Udp: [0-9]/ {print $2 + $3}' /proc/net/snmp
}

# nf_start NAME ARGS...: run an NF with --json until cleanup; sets nf_pid, nf_out.
nf_start() {
	tst_start_bg "running on" "$@" --json || { sed 's/^/# nf: /' "$bg_out"; return 1; }
	nf_pid=$bg_pid
	nf_out=$bg_out
}

# nf_stop: SIGTERM, then its JSON summary in $nf_json.
nf_stop() {
	kill -TERM "$nf_pid" && wait "$nf_pid" || { sed 's/^/# nf: /' "$nf_out"; return 1; }
	nf_json=$(grep '^{"nf"' "$nf_out" | tail -n 1)
	[ -n "$nf_json" ]
}

# js EXPR: a Python expression over the summary j, printed.
js() { python3 -c "import json,sys; j=json.loads(sys.argv[1]); print($1)" "$nf_json"; }

# nf_running [last]: how many whole "state":"running" summaries (SIGUSR1)
# the NF has printed; with last, the last of them.
nf_running() {
	python3 - "$nf_out" "${1:-}" <<-'PY'
		import sys
		text = open(sys.argv[1], errors="replace").read()
		got = [l for l in text.split("\n")[:-1]
		       if l.startswith('{"nf"') and '"state":"running"' in l]
		print((got[-1] if got else "") if sys.argv[2] == "last" else len(got))
	PY
}

# nf_peek: the summary so far in $nf_json (SIGUSR1); the NF runs on.
nf_peek() {
	local n
	n=$(nf_running) || return 1
	kill -USR1 "$nf_pid" || return 1
	tst_busywait 5000 tst_at_least $((n + 1)) nf_running || return 1
	nf_json=$(nf_running last)
	[ -n "$nf_json" ]
}
