#!/bin/sh
# make install / make uninstall as a user and as a packager would run them:
#   1. PREFIX=$tmp/prefix (no DESTDIR): the installed binary, run from another
#      folder with the source tree out of reach (renamed), finds the installed
#      rules and checks a copy of the demo; uninstall leaves the tree as before.
#   2. DESTDIR staging with PREFIX=/usr: the exact file list; the staged binary
#      finds the staged rules; the binary names no path of the source tree.
# make runs in a copy of the source tree (its rules are the ones moved away)
# with a copy of the build folder (only main.o, which has the rules folder
# compiled in, is rebuilt): the checkout and make check's binary stay as they
# are for the suites that run beside this one.
# usage: sh tests/t0600-install.sh [BUILD-FOLDER]; prints 'N passed, N failed'.
. "$(dirname "$0")/test-lib.sh"
isolate
MAKEFLAGS= ; export MAKEFLAGS
src=$tmp/src
mkdir "$src" && cp -Rp Makefile src rules man completion "$src/" && ln -s "$top/grammars" "$src/grammars" ||
	exit 2
o=$tmp/o
copy_build "$o" || exit 2

tree() { (cd "$1" && find . -print | LC_ALL=C sort) ; }

# --- 1. PREFIX, no DESTDIR ------------------------------------------------------------
prefix=$tmp/prefix
# a prefix as it usually is: install's shared folders exist (uninstall, like
# automake's, removes files and mpsfix's own share/mpsfix, never shared folders)
mkdir -p "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/man/man5" \
	"$prefix/share/bash-completion/completions"
echo keep >"$prefix/bin/other-tool"
tree "$prefix" >"$tmp/before"
run make -C "$src" --no-print-directory install O="$o" PREFIX="$prefix"
expect_rc "make install PREFIX=..." 0
[ -x "$prefix/bin/mpsfix" ] && ok "bin/mpsfix installed, executable" || fail "bin/mpsfix" "$out"
# a copy of the source tree runs the installed binary elsewhere with the source moved away
cp -R fixtures/demo "$tmp/demo"
mv "$src/rules" "$src/rules.away" 2>/dev/null && moved=yes || moved=no
run_in "$tmp" "$prefix/bin/mpsfix" --version
expect_rc "installed --version" 0
expect_out "--version names the installed rules" "rules:       $prefix/bin/../share/mpsfix/rules"
expect_no_out "--version: the rules are found" "(not found)"
run_in "$tmp" "$prefix/bin/mpsfix" check --isolated --format concise demo
expect_rc "installed binary checks the demo (findings: exit 1)" 1
expect_out "installed rules run (MPS006 in train.py)" "MPS006"
run_in "$tmp" "$prefix/bin/mpsfix" rules
expect_out "installed rules: all of them" "MPS203"
[ "$moved" = yes ] && mv "$src/rules.away" "$src/rules"
# the man pages and completion
[ -f "$prefix/share/man/man1/mpsfix.1" ] && [ -f "$prefix/share/man/man5/mpsfix-rules.5" ] &&
	ok "man pages installed" || fail "man pages"
run man -l "$prefix/share/man/man1/mpsfix.1"
[ -f "$prefix/share/bash-completion/completions/mpsfix" ] && ok "bash completion installed" ||
	fail "bash completion"
run bash -c ". '$prefix/share/bash-completion/completions/mpsfix' && COMP_WORDS=('$prefix/bin/mpsfix' explain MPS00) && COMP_CWORD=2 && _mpsfix && echo \${COMPREPLY[*]}"
expect_out "installed completion: rule codes from the installed rules" "MPS001 MPS002"
run make -C "$src" --no-print-directory uninstall O="$o" PREFIX="$prefix"
expect_rc "make uninstall" 0
tree "$prefix" >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then ok "uninstall: the tree is as before install"; else
	fail "uninstall leaves the tree as before" "$(diff "$tmp/before" "$tmp/after")"; fi

# --- 2. DESTDIR staging ---------------------------------------------------------------
stage=$tmp/stage
run make -C "$src" --no-print-directory install O="$o" DESTDIR="$stage" PREFIX=/usr
expect_rc "make install DESTDIR=... PREFIX=/usr" 0
{
	echo ./usr/bin/mpsfix
	echo ./usr/share/bash-completion/completions/mpsfix
	echo ./usr/share/man/man1/mpsfix.1
	echo ./usr/share/man/man5/mpsfix-rules.5
	for r in rules/*.yml; do echo "./usr/share/mpsfix/$r"; done
} | LC_ALL=C sort >"$tmp/want"
(cd "$stage" && find . -type f | LC_ALL=C sort) >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then ok "DESTDIR: exactly the expected files"; else
	fail "DESTDIR file list" "$(diff "$tmp/want" "$tmp/got")"; fi
modes=$(cd "$stage" && find . -type f -perm -u+x | LC_ALL=C sort)
[ "$modes" = "./usr/bin/mpsfix" ] && ok "only the binary is executable" || fail "modes" "$modes"
run_in "$tmp" "$stage/usr/bin/mpsfix" check --isolated --format concise demo
expect_rc "staged binary checks the demo with the staged rules" 1
expect_out "staged rules run" "MPS006"
run_in "$tmp" "$stage/usr/bin/mpsfix" --version
expect_out "staged --version: staged rules" "rules:       $stage/usr/bin/../share/mpsfix/rules"
# compiled in: the install location, never the source tree
if strings "$stage/usr/bin/mpsfix" | grep -qx '/usr/share/mpsfix/rules'; then
	ok "the binary's compiled-in rules folder is PREFIX/share/mpsfix/rules"; else
	fail "compiled-in rules folder" "$(strings "$stage/usr/bin/mpsfix" | grep share/mpsfix)"; fi
if strings "$stage/usr/bin/mpsfix" | grep -v '\.c$' | grep -q -e "^$top/rules" -e "^$src/rules"; then
	fail "the binary names the source tree's rules"; else ok "the binary does not name the source tree's rules"; fi
run make -C "$src" --no-print-directory uninstall O="$o" DESTDIR="$stage" PREFIX=/usr
left=$(cd "$stage" && find . -type f)
[ -z "$left" ] && ok "DESTDIR uninstall removes every file" || fail "DESTDIR uninstall" "$left"
[ ! -e "$stage/usr/share/mpsfix" ] && ok "uninstall removes share/mpsfix" || fail "share/mpsfix left"

test_done
