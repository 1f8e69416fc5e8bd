# shellcheck shell=bash disable=SC2207
# bash completion for netslicectl(8): options before the object, then
# OBJECT COMMAND and its KEYWORD VALUE pairs, as tools/ctl/*.c parse them.
# (SC2207: COMPREPLY=($(compgen ...)), bash-completion's own idiom.)

# The slices there are (their device nodes).
_netslicectl_slices()
{
	local dev
	for dev in /dev/netslice-*; do
		[ -e "$dev" ] && echo "${dev##*-}"
	done
}

# _netslicectl_value KEYWORD: what KEYWORD's value can be (nothing for a
# number or an address).
_netslicectl_value()
{
	case $1 in
	dev|peer) ls /sys/class/net 2>/dev/null ;;
	slice|slices) _netslicectl_slices ;;
	next) _netslicectl_slices; echo none ;;
	cut|slicing) echo "off auto auto,trim auto,gso auto,trim,gso fixed:" ;;
	trim|gso|multi-read|multi-write) echo "on off" ;;
	family) echo "ipv4 ipv6" ;;
	# The names of tools/lib/proto.c (test_cli.sh checks they agree).
	proto) echo "icmp igmp ipencap tcp udp dccp ipv6 rsvp gre esp ah icmpv6 ospf pim vrrp l2tp sctp udplite mpls-in-ip" ;;
	esac
}

_netslicectl()
{
	local cur prev words cword
	_init_completion || return

	# The words after the options (which come before the object, as in ip).
	local -a args=()
	local i
	for ((i = 1; i < cword; i++)); do
		if ((${#args[@]} == 0)) && [[ ${words[i]} == -* ]]; then
			[[ ${words[i]} == -b || ${words[i]} == --batch || ${words[i]} == --rate ]] && ((i++))
			continue
		fi
		args+=("${words[i]}")
	done

	if ((${#args[@]} == 0)); then
		case $prev in
		-b|--batch) _filedir; return ;;
		--rate) return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-j --json -p --pretty -s --stats -b --batch --rate
				-V --version -h --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "link slice chain stats rule monitor help" -- "$cur"))
		fi
		return
	fi
	if ((${#args[@]} == 1)); then
		case ${args[0]} in
		link) COMPREPLY=($(compgen -W "attach detach show help" -- "$cur")) ;;
		slice) COMPREPLY=($(compgen -W "show set help" -- "$cur")) ;;
		chain) COMPREPLY=($(compgen -W "show add del flush help" -- "$cur")) ;;
		stats) COMPREPLY=($(compgen -W "show slice reset help" -- "$cur")) ;;
		rule) COMPREPLY=($(compgen -W "add del replace show flush load help" -- "$cur")) ;;
		monitor) COMPREPLY=($(compgen -W "help" -- "$cur")) ;;
		esac
		return
	fi

	# The command's KEYWORD VALUE pairs start at args[first].
	local keywords first=2
	case ${args[0]}:${args[1]} in
	link:attach) keywords="dev peer slices" ;;
	link:detach|link:show) keywords="dev" ;;
	slice:show|stats:slice)
		((${#args[@]} == 2)) && COMPREPLY=($(compgen -W "$(_netslicectl_slices)" -- "$cur"))
		return ;;
	slice:set)
		if ((${#args[@]} == 2)); then
			COMPREPLY=($(compgen -W "$(_netslicectl_slices)" -- "$cur"))
			return
		fi
		keywords="cut trim gso batch multi-read multi-write kernel-cpus user-cpus rxq-size
			store-size store-timeout next"
		first=3 ;;
	# Slices, each once (a shell takes an unquoted -> for a redirection:
	# the arrow is left out).
	chain:add|chain:del)
		local -a left=()
		local s
		for s in $(_netslicectl_slices); do
			[[ " ${args[*]:2} " == *" $s "* ]] || left+=("$s")
		done
		COMPREPLY=($(compgen -W "${left[*]}" -- "$cur"))
		return ;;
	stats:show|stats:reset) keywords="slice" ;;
	rule:add|rule:replace) keywords="family proto src dst sport dport pref slice" ;;
	rule:del) keywords="family proto src dst sport dport pref slice id" ;;
	rule:load)
		case ${#args[@]} in
		2) _filedir ;;
		3) COMPREPLY=($(compgen -W "replace" -- "$cur")) ;;
		esac
		return ;;
	*) return ;;
	esac

	if (((${#args[@]} - first) % 2)); then
		COMPREPLY=($(compgen -W "$(_netslicectl_value "$prev")" -- "$cur"))
		[[ ${COMPREPLY[*]} == fixed: ]] && compopt -o nospace
		return
	fi
	# Each keyword once: those not given yet.
	local -a left=()
	local k given=" "
	for ((i = first; i < ${#args[@]}; i += 2)); do
		given+="${args[i]} "
	done
	for k in $keywords; do
		[[ $given == *" $k "* ]] || left+=("$k")
	done
	COMPREPLY=($(compgen -W "${left[*]}" -- "$cur"))
} && complete -F _netslicectl netslicectl
