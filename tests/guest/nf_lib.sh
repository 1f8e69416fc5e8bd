# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Running a bundled NF in a guest test (after lib.sh).

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
