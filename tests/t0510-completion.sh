#!/bin/bash
# Bash completion (completion/mpsfix.bash): sourced into bash, COMP_WORDS and
# COMP_CWORD set as bash sets them, _mpsfix called, COMPREPLY compared.  Checks
# it against the binary: every command and long option of --help is offered,
# and each command is offered exactly the options it accepts.
# usage: bash tests/t0510-completion.sh [path/to/mpsfix]; prints 'N passed, N failed'.
. "$(dirname "$0")/test-lib.sh"
isolate

# shellcheck source=../completion/mpsfix.bash
. "$top/completion/mpsfix.bash"

# comp WORD...: complete the last word; the candidates, sorted, one a line, in $reply
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMPREPLY=()
	_mpsfix
	reply=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort)
}
expect_reply() { # name expected-lines
	if [ "$reply" = "$2" ]; then ok "$1"; else fail "$1" "got: $(echo $reply)" "expected: $(echo $2)"; fi
}
has() { # name word
	if printf '%s\n' "$reply" | grep -qx -- "$2"; then ok "$1"; else fail "$1" "'$2' not offered" "got: $(echo $reply)"; fi
}
lacks() { # name word
	if printf '%s\n' "$reply" | grep -qx -- "$2"; then fail "$1" "'$2' offered"; else ok "$1"; fi
}

if complete -p mpsfix 2>/dev/null | grep -q -- '-F _mpsfix'; then ok "complete -F _mpsfix mpsfix"; else fail "complete registers _mpsfix"; fi

# --- commands --------------------------------------------------------------------
commands=$("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' | sort)
[ "$(echo $commands)" = "check commit diff explain fix patch review rules test" ] &&
	ok "the commands of --help" || fail "the commands of --help" "$(echo $commands)"
comp "$bin" ""
expect_reply "first word: the commands" "$commands"
comp "$bin" "c"
expect_reply "first word 'c': check, commit" "$(printf 'check\ncommit')"
comp "$bin" --rules "$top/rules" ""
expect_reply "commands after an option and its value" "$commands"

# --- options: every long option of --help, each command only those it accepts -------
longs=$("$bin" --help | sed -n 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' | sort -u)
comp "$bin" --
expect_reply "before the command: every long option of --help" "$longs"
for cmd in $commands; do
	comp "$bin" "$cmd" --
	bad=""
	for o in $longs; do
		case $o in --help | --version) continue ;; esac
		value=""
		if "$bin" --help | grep -Eq -- "^  (-., )?$o [A-Z]"; then
			case $o in --format) value=json ;; --color) value=never ;; *) value=$tmp/x ;; esac
		fi
		extra=""
		[ "$cmd" = review ] && [ "$o" != --commit ] && extra=--commit
		# shellcheck disable=SC2086
		operand=$tmp/none
		[ "$cmd" = rules ] && operand=""
		"$bin" "$cmd" $extra "$o" ${value:+"$value"} ${operand:+"$operand"} >/dev/null 2>"$tmp/err" </dev/null
		if grep -q "is for" "$tmp/err"; then accepted=no; else accepted=yes; fi
		if printf '%s\n' "$reply" | grep -qx -- "$o"; then offered=yes; else offered=no; fi
		[ "$accepted" = "$offered" ] || bad="$bad $o(accepted=$accepted,offered=$offered)"
	done
	[ -z "$bad" ] && ok "$cmd: offers exactly the options it accepts" || fail "$cmd: options" "$bad"
done
comp "$bin" patch --s
expect_reply "patch --s: not --statistics" "$(printf -- '--select\n--show-unused-suppressions\n--signoff\n--since\n--squash\n--staged\n--stdin-filename\n--stdout' | sort)"
comp "$bin" check --sq
expect_reply "check does not take --squash" ""

# --- option values -------------------------------------------------------------------
comp "$bin" check --format ""
expect_reply "--format values, from the binary" "$(printf 'concise\ndiff\nfull\ngithub\njson\njsonl\nsarif' | sort)"
comp "$bin" check --format = js
expect_reply "--format=js (bash splits at =)" "$(printf 'json\njsonl')"
comp "$bin" check --color ""
expect_reply "--color values" "$(printf 'always\nauto\nnever' | sort)"
codes=$("$bin" rules --format jsonl 2>/dev/null | sed -n 's/^{"code":"\([^"]*\)".*/\1/p' | sort)
comp "$bin" check --select ""
for c in $codes; do has "--select offers $c" "$c"; done
has "--select offers rule ids" "std-mean"
comp "$bin" check --select MPS001,MPS10
expect_reply "--select LIST: the part after the last comma" \
	"$(printf 'MPS001,MPS101\nMPS001,MPS102\nMPS001,MPS103\nMPS001,MPS104\nMPS001,MPS105')"
comp "$bin" explain MPS00
expect_reply "explain: rule codes" "$(printf 'MPS001\nMPS002\nMPS003\nMPS004\nMPS005\nMPS006\nMPS007\nMPS008')"
comp "$bin" explain std-
expect_reply "explain: rule ids" "$(printf 'std-mean\nstd-var-default-correction')"

# user rules count: a rule folder named by --rules on the command line
mkdir -p "$tmp/myrules"
cat >"$tmp/myrules/sync-if-cuda.yml" <<'YML'
id: sync-if-cuda
code: MPS901
severity: warning
message: "torch.cuda.synchronize() raises on a Mac"
torch: all
match: 'torch.cuda.synchronize()'
YML
"$bin" rules --rules "$tmp/myrules" --format jsonl >/dev/null 2>"$tmp/err" ||
	fail "the user rule loads" "$(cat "$tmp/err")"
comp "$bin" check --rules "$tmp/myrules" --select MPS9
expect_reply "--select after --rules DIR: the user rule's code" "MPS901"
comp "$bin" check --select MPS9
expect_reply "without --rules: no user rule" ""
comp "$bin" --rules "$tmp/myrules" explain sync-
expect_reply "explain: user rule ids" "sync-if-cuda"

# paths
mkdir -p "$tmp/proj/pkg"
: >"$tmp/proj/train.py"
: >"$tmp/proj/tools.py"
cd "$tmp/proj" || exit 2
comp "$bin" check t
expect_reply "check: file names" "$(printf 'tools.py\ntrain.py')"
comp "$bin" fix --config p
expect_reply "--config: file names" "pkg"
comp "$bin" patch --output-directory ""
expect_reply "--output-directory: folders only" "pkg"
comp "$bin" patch -o ""
expect_reply "patch -o (git format-patch's): folders only" "pkg"
comp "$bin" check -o t
expect_reply "check -o (--output): file names" "$(printf 'tools.py\ntrain.py')"
comp "$bin" commit --branch ""
expect_reply "--branch: nothing offered" ""
comp "$bin" fix --line-length ""
expect_reply "--line-length: nothing offered (a number, not a file)" ""
comp "$bin" rules ""
expect_reply "rules takes no operand" ""
git init -q -b main . && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m init &&
	git branch topic
comp "$bin" check --since ""
expect_reply "--since: HEAD and the branches" "$(printf 'HEAD\nmain\ntopic')"
cd "$top" || exit 2

test_done
