# shellcheck shell=bash disable=SC2207
# bash completion for the netslice NFs: nf-fwd(8), nf-firewall(8),
# nf-monitor(8), nf-nat(8), nf-lb(8) and nf-ipsec(8). One file, installed
# under each NF's name (bash-completion loads a command's by its name).
# The options are read from the NF's own --help, so they are the ones the
# NF takes; those with values known here offer them.
# (SC2207: COMPREPLY=($(compgen ...)), bash-completion's own idiom.)

# _netslice_nf_options NF: the options of NF's --help, one a line, each
# followed by "=" if it takes a value ("-s, --slices LIST": "-s=", "--slices=").
_netslice_nf_options()
{
	"$1" --help 2>/dev/null | awk '
		/^ +-/ {
			sub(/^ +/, "")
			sub(/  .*/, "")		# the option column ends at two blanks
			n = split($0, opt, /, */)
			value = ""
			for (i = 1; i <= n; i++)
				if (opt[i] ~ / /)
					value = "="
			for (i = 1; i <= n; i++)
				if (opt[i] != "") {
					sub(/ .*/, "", opt[i])
					print opt[i] value
				}
		}'
}

_netslice_nf()
{
	# shellcheck disable=SC2034  # cword: _init_completion sets it
	local cur prev words cword
	_init_completion || return

	case $prev in
	-m|--cut)
		COMPREPLY=($(compgen -W "off auto auto,trim auto,gso auto,trim,gso fixed:" -- "$cur"))
		[[ ${COMPREPLY[*]} == fixed: ]] && compopt -o nospace
		return ;;
	-M|--io) COMPREPLY=($(compgen -W "ring rw" -- "$cur")); return ;;
	-s|--slices)
		local dev slices=all
		for dev in /dev/netslice-*; do
			[ -e "$dev" ] && slices+=" ${dev##*-}"
		done
		COMPREPLY=($(compgen -W "$slices" -- "$cur"))
		return ;;
	--pcap-in|--pcap-out|--rules|--backends|--config|--metrics) _filedir; return ;;
	--inside|--outside|--client-if|--backend-if)
		COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")); return ;;
	--forward) COMPREPLY=($(compgen -W "tcp: udp:" -- "$cur")); compopt -o nospace; return ;;
	esac

	local options
	options=$(_netslice_nf_options "${words[0]}")
	# Any other option that takes a value: a number or an address, nothing to offer.
	[[ $prev == -* ]] && grep -qx -- "$prev=" <<<"$options" && return
	COMPREPLY=($(compgen -W "${options//=/}" -- "$cur"))
} && complete -F _netslice_nf nf-fwd nf-firewall nf-monitor nf-nat nf-lb nf-ipsec
