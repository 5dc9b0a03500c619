# bash completion for mpsfix(1): commands, options, option values, rule codes.
#
# Installed as $(PREFIX)/share/bash-completion/completions/mpsfix; without the
# bash-completion package, `source` this file from ~/.bashrc.  The commands and
# options are read from `mpsfix --help` of the binary being completed, the
# --format and --color values from its own error message, and the rule codes
# and ids from `mpsfix rules --format jsonl` (with the --rules, --config,
# --isolated and --no-default-rules of the command line, so user rules count).
# tests/t0510-completion.sh checks it against the binary.

# The commands and long options of `mpsfix --help`: "cmd NAME" and
# "opt --NAME" (no value) or "arg --NAME" (takes a value) lines.
_mpsfix_help()
{
	"$1" --help 2>/dev/null | sed -n \
		-e '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/cmd \1/p' \
		-e 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\) [A-Z].*/arg \2/p' \
		-e 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\)\( .*\)\{0,1\}$/opt \2/p'
}

# The values of --format or --color, as the binary lists them when refusing ''.
_mpsfix_values()
{
	"$1" check "$2=" 2>&1 | sed -n 's/.*(valid: \(.*\))$/\1/p' | tr -d ','
}

# Rule codes and ids ("MPS001 std-mean ..."), for the rules this command line loads.
_mpsfix_rule_names()
{
	local bin=$1
	shift
	"$bin" rules --format jsonl "$@" 2>/dev/null |
		sed -n 's/^{"code":"\([^"]*\)","id":"\([^"]*\)".*/\1 \2/p'
}

# 0 when command $1 refuses option $2 (as mpsfix's own check of the git options).
_mpsfix_refused()
{
	case $2 in
	--commit) [ "$1" != review ] ;;
	--squash | --signoff) case $1 in commit | patch | review) return 1 ;; esac ;;
	--branch | --allow-dirty) case $1 in commit | review) return 1 ;; esac ;;
	--stdout | --output-directory) [ "$1" != patch ] ;;
	--format | --output | --statistics) case $1 in commit | patch | review) return 0 ;; esac; return 1 ;;
	*) return 1 ;;
	esac
}

_mpsfix()
{
	local bin=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev="" line kind name
	local command="" i w takes_value=" -o " commands="" options="" loadargs=()

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=value: bash splits it into --opt, =, value
	if [ "$cur" = "=" ]; then
		cur=""
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	case $bin in "~"/*) bin=$HOME/${bin#"~/"} ;; esac
	while read -r kind name; do
		case $kind in
		cmd) commands="$commands $name" ;;
		arg) takes_value="$takes_value$name " options="$options $name" ;;
		opt) options="$options $name" ;;
		esac
	done < <(_mpsfix_help "$bin")

	# the command, and the options that choose the rules
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--rules | --config)
			loadargs+=("$w" "${COMP_WORDS[i + 1]}") ;;
		--rules=* | --config=* | --isolated | --no-default-rules)
			loadargs+=("$w") ;;
		esac
		if [[ $takes_value == *" $w "* ]]; then
			((i++))
		elif [ -z "$command" ] && [[ $w != -* ]] && [[ $w != "=" ]] &&
			[[ " $commands " == *" $w "* ]]; then
			command=$w
		fi
	done

	COMPREPLY=()
	case $prev in
	--format | --color)
		mapfile -t COMPREPLY < <(compgen -W "$(_mpsfix_values "$bin" "$prev")" -- "$cur")
		return ;;
	--select | --ignore | --extend-select)
		local head="" names
		case $cur in *,*) head=${cur%,*}, ;; esac
		names=$(_mpsfix_rule_names "$bin" "${loadargs[@]}")
		mapfile -t COMPREPLY < <(compgen -P "$head" -W "$names" -- "${cur##*,}")
		return ;;
	--since)
		mapfile -t COMPREPLY < <(compgen -W "HEAD $(git for-each-ref \
			--format='%(refname:short)' 2>/dev/null)" -- "$cur")
		return ;;
	--output-directory)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	-o)
		# patch: -o DIR is --output-directory, as in git format-patch
		if [ "$command" = patch ]; then
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -d -- "$cur")
			return
		fi ;;
	--branch | --target-torch | --line-length)
		return ;;
	esac
	if [[ $takes_value == *" $prev "* ]]; then
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi

	if [[ $cur == -* ]]; then
		# before the command: every option (mpsfix takes them there too)
		local offered=""
		for name in $options; do
			[ -n "$command" ] && _mpsfix_refused "$command" "$name" && continue
			offered="$offered $name"
		done
		mapfile -t COMPREPLY < <(compgen -W "$offered" -- "$cur")
		return
	fi
	case $command in
	"")
		mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur") ;;
	explain)
		mapfile -t COMPREPLY < <(compgen -W "$(_mpsfix_rule_names "$bin" "${loadargs[@]}")" -- "$cur") ;;
	rules) ;;
	*)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
}

complete -F _mpsfix mpsfix
