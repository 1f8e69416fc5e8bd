# bash completion for netslicectl(8)
_netslicectl()
{
	local cur prev words cword
	_init_completion || return

	local -a args=()
	local w i
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		[[ $w == -* ]] && { [[ $w == -b || $w == --batch || $w == --rate ]] && ((i++)); continue; }
		args+=("$w")
	done

	case $prev in
	-b|--batch) _filedir; return ;;
	dev|peer) COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")); return ;;
	cut|slicing) COMPREPLY=($(compgen -W "off auto auto,trim auto,gso fixed: off,trim" -- "$cur")); return ;;
	trim|gso|multi-read|multi-write) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
	family) COMPREPLY=($(compgen -W "ipv4 ipv6" -- "$cur")); return ;;
	# The names of tools/lib/proto.c (test_cli.sh checks they agree).
	proto) COMPREPLY=($(compgen -W "icmp igmp ipencap tcp udp dccp ipv6 rsvp gre esp ah icmpv6 ospf pim vrrp l2tp sctp udplite mpls-in-ip" -- "$cur")); return ;;
	load) _filedir; return ;;
	slice|set)
		if [[ ${args[0]} == slice || ${args[0]} == stats || ${args[0]} == rule ]]; then
			local n=$(ls -d /dev/netslice-* 2>/dev/null | sed 's/.*-//')
			COMPREPLY=($(compgen -W "$n" -- "$cur")); return
		fi ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "-j --json -s --stats -b --batch --rate -V --version -h --help" -- "$cur"))
		return
	fi
	case ${#args[@]} in
	0) COMPREPLY=($(compgen -W "link slice stats rule monitor help" -- "$cur")); return ;;
	1)
		case ${args[0]} in
		link) COMPREPLY=($(compgen -W "attach detach show" -- "$cur")) ;;
		slice) COMPREPLY=($(compgen -W "show set" -- "$cur")) ;;
		stats) COMPREPLY=($(compgen -W "show slice reset" -- "$cur")) ;;
		rule) COMPREPLY=($(compgen -W "add del replace show flush load" -- "$cur")) ;;
		esac
		return ;;
	esac
	case ${args[0]}:${args[1]} in
	link:attach) COMPREPLY=($(compgen -W "dev peer slices" -- "$cur")) ;;
	link:detach|link:show) COMPREPLY=($(compgen -W "dev" -- "$cur")) ;;
	slice:set) COMPREPLY=($(compgen -W "cut trim gso batch multi-read multi-write kernel-cpus user-cpus rxq-size store-size store-timeout" -- "$cur")) ;;
	stats:reset) COMPREPLY=($(compgen -W "slice" -- "$cur")) ;;
	rule:add|rule:replace|rule:del)
		COMPREPLY=($(compgen -W "family proto src dst sport dport pref slice id" -- "$cur")) ;;
	rule:load) COMPREPLY=($(compgen -W "replace" -- "$cur")) ;;
	esac
} && complete -F _netslicectl netslicectl
