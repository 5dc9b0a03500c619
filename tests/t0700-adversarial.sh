#!/bin/sh
# Adversarial inputs: each odd file, file-system object and rule file gets
# its message and exit status (man/mpsfix.1, EXIT STATUS), alone, with
# check and with fix, and fix writes nothing it should not.  Huge inputs are
# generated here into a temporary folder, never committed.
# Prints 'N passed, N failed'.
# usage: sh tests/t0700-adversarial.sh [path/to/mpsfix [path/to/preload_change.so]]
. "$(dirname "$0")/test-lib.sh"
shim=${2:-$build/tests/preload_change.so}
case $shim in /*) ;; *) shim=$top/$shim ;; esac
export MPSFIX_RULES_DIR="$top/rules"
finding='y = x.to("mps", non_blocking=True)'

no_temp_files() { # name folder
	left=$(find "$2" -name '.*.mpsfix-*' | head -3)
	[ -z "$left" ] && ok "$1: no temporary file left" || fail "$1: no temporary file left" "$left"
}
# fresh NAME: an empty folder $tmp/NAME, in $d
fresh() {
	d=$tmp/$1
	rm -rf "$d"
	mkdir -p "$d"
}

# --- files of the repository: exact message, exit status, fix leaves them ----
# skipped: exit 0 alone (a skip is not an error), nothing written by fix
while IFS='|' read -r name message; do
	[ -n "$name" ] || continue
	run "$bin" check "fixtures/bad/$name"
	expect_rc "$name: check exits 0 (skipped)" 0
	expect_err "$name: message" "mpsfix: fixtures/bad/$name$message"
	fresh "skip-$name"
	cp "fixtures/bad/$name" "$d/"
	run "$bin" fix "$d/$name"
	expect_rc "$name: fix exits 0 (skipped)" 0
	same_files "$name: fix leaves it as it was" "$d/$name" "fixtures/bad/$name"
	run sh -c '"$1" fix - <"$2"' sh "$bin" "fixtures/bad/$name"
	cmp -s "$tmp/out" "fixtures/bad/$name" && ok "$name: fix - passes it through unchanged" ||
		fail "$name: fix - passes it through unchanged"
done <<'EOF'
binary.py|: skipped: binary file (NUL byte at line 3, column 1)
nul-byte.py|: skipped: binary file (NUL byte at line 3, column 15)
invalid-utf8.py|:2:5: skipped: invalid UTF-8
utf16-bom.py|: skipped: UTF-16 (little-endian) text (byte-order mark FF FE); mpsfix reads only UTF-8
latin-1.py|:6:12: skipped: the file declares encoding 'latin-1' (line 1) and has non-ASCII text; mpsfix reads only UTF-8
EOF

# processed: a finding (exit 1), fixed byte for byte as fixtures/bad-fixed/ says
# (BOM, CRLF, mixed endings, tabs and the ASCII of a Latin-1 file kept), once
while IFS='|' read -r name where; do
	[ -n "$name" ] || continue
	run "$bin" check "fixtures/bad/$name"
	expect_rc "$name: check exits 1 (a finding)" 1
	expect_out "$name: finding" "fixtures/bad/$name:$where: MPS006 [*]"
	fresh "fix-$name"
	cp "fixtures/bad/$name" "$d/"
	run "$bin" fix "$d/$name"
	expect_rc "$name: fix exits 0 (all fixed)" 0
	same_files "$name: fixed byte for byte" "$d/$name" "fixtures/bad-fixed/$name"
	run "$bin" fix "$d/$name"
	same_files "$name: a second fix changes nothing" "$d/$name" "fixtures/bad-fixed/$name"
	no_temp_files "$name" "$d"
done <<'EOF'
bom.py|4:5
crlf.py|4:5
mixed-eol.py|5:5
tabs.py|7:10
latin-1-ascii.py|6:5
EOF

# --- huge input, generated -------------------------------------------------------
# a 100 MB file: refused from its size, without reading it
fresh big
yes 'value = compute(1, 2)  # a line of padding to make the file large' | head -c 104857600 >"$d/big.py"
run timeout 30 "$bin" check "$d/big.py"
expect_rc "100 MB file: check exits 0 (skipped)" 0
expect_err "100 MB file: message" "big.py: skipped: file too large (104857600 bytes; the limit is 16777216)"
cksum <"$d/big.py" >"$d/big.sum"
run timeout 30 "$bin" fix "$d/big.py"
expect_rc "100 MB file: fix exits 0 (skipped)" 0
cksum <"$d/big.py" | cmp -s - "$d/big.sum" && ok "100 MB file: fix leaves it" || fail "100 MB file: fix leaves it"
run timeout 60 sh -c '"$1" fix - <"$2" | cksum' sh "$bin" "$d/big.py"
expect_err "100 MB on standard input: message" "-: skipped: standard input too large (more than 16777216 bytes)"
[ "$out" = "$(cat "$d/big.sum")" ] && ok "100 MB on standard input: fix - passes it through" ||
	fail "100 MB on standard input: fix - passes it through" "$out"
rm -f "$d/big.py"

# a single line of 10 MB (a list literal) with a finding at its end
fresh line
awk 'BEGIN { printf "import torch\nvalues = ["; for (i = 0; i < 1400000; i++) printf "%d, ", i; printf "0]; y = x.to(\"mps\", non_blocking=True)\n" }' >"$d/line.py"
col=$(($(sed -n 2p "$d/line.py" | wc -c) - 30)) # where x.to(...) starts
run timeout 120 "$bin" check "$d/line.py"
expect_rc "10 MB line: check exits 1" 1
expect_out "10 MB line: finding at its column" "line.py:2:$col: MPS006 [*]"
run timeout 120 "$bin" fix "$d/line.py"
expect_rc "10 MB line: fix exits 0" 0
[ "$(tail -c 19 "$d/line.py")" = ']; y = x.to("mps")' ] && ok "10 MB line: fixed at its end" ||
	fail "10 MB line: fixed at its end" "$(tail -c 40 "$d/line.py")"
[ "$(head -c 30 "$d/line.py")" = "$(printf 'import torch\nvalues = [0, 1, 2')" ] &&
	ok "10 MB line: its start kept" || fail "10 MB line: its start kept"
no_temp_files "10 MB line" "$d"

# 100,000 nested brackets: balanced ones parse; left open (tree-sitter 0.20 corrupted
# its heap there), the file parses with its errors and nothing in it is fixed
fresh nested
awk 'BEGIN { s = ""; for (i = 0; i < 100000; i++) s = s "("; s = s "x"; for (i = 0; i < 100000; i++) s = s ")"; print "import torch"; print "y = " s ".to(\"mps\", non_blocking=True)" }' >"$d/balanced.py"
awk 'BEGIN { s = ""; for (i = 0; i < 100000; i++) s = s "("; print "import torch"; print "y = " s ".to(\"mps\", non_blocking=True)" }' >"$d/open.py"
run timeout 120 "$bin" check "$d/balanced.py"
expect_rc "100,000 balanced brackets: check exits 1" 1
expect_out "100,000 balanced brackets: finding" "balanced.py:2:5: MPS006 [*]"
run timeout 120 "$bin" fix "$d/balanced.py"
expect_rc "100,000 balanced brackets: fix exits 0" 0
grep -q 'non_blocking' "$d/balanced.py" && fail "100,000 balanced brackets: fixed" || ok "100,000 balanced brackets: fixed"
cp "$d/open.py" "$d/open.orig"
run timeout 60 "$bin" check "$d/open.py"
expect_rc "100,000 open brackets: check exits 0 (the call is inside the error)" 0
expect_err "100,000 open brackets: parsed, not skipped" "1 file scanned, 0 findings"
run timeout 60 "$bin" fix "$d/open.py"
same_files "100,000 open brackets: fix leaves it" "$d/open.py" "$d/open.orig"

# --- file-system objects ------------------------------------------------------------
# a symbolic link loop, named or found; a folder loop is not followed
fresh loop
ln -s loop.py "$d/loop.py"
ln -s b.py "$d/a.py"
ln -s a.py "$d/b.py"
mkdir "$d/sub"
ln -s .. "$d/sub/up"
printf '%s\n' "$finding" >"$d/sub/real.py"
run timeout 20 "$bin" check "$d/loop.py"
expect_rc "symlink loop: check exits 0 (skipped)" 0
expect_err "symlink loop: message" "loop.py: skipped: a symbolic link loop"
run timeout 20 "$bin" check "$d"
expect_rc "folder with symlink loops: check exits 1 (the real file's finding)" 1
expect_err "symlink loop found by walking: message" "/a.py: skipped: a symbolic link loop"
expect_out "folder with symlink loops: the walk goes on, once" "real.py:1:5: MPS006"
[ "$(printf '%s\n' "$out" | grep -c real.py)" = 1 ] && ok "folder loop not followed" || fail "folder loop not followed" "$out"
run timeout 20 "$bin" fix "$d"
expect_rc "folder with symlink loops: fix exits 0" 0
[ -L "$d/a.py" ] && [ -L "$d/loop.py" ] && ok "symlink loops stay links" || fail "symlink loops stay links"

# a link to nothing
fresh dangling
ln -s nowhere.py "$d/dangling.py"
run "$bin" check "$d/dangling.py"
expect_rc "dangling symlink: check exits 0 (skipped)" 0
expect_err "dangling symlink: message" "dangling.py: skipped: a symbolic link to a file that does not exist"

# a link that leaves the folder being fixed: read, never written through
fresh outside
mkdir "$d/root" "$d/elsewhere"
printf 'import torch\n%s\n' "$finding" >"$d/elsewhere/o.py"
cp "$d/elsewhere/o.py" "$d/o.orig"
ln -s ../elsewhere/o.py "$d/root/link.py"
run "$bin" fix "$d/root"
expect_rc "symlink out of the folder: fix exits 1 (its finding stays)" 1
expect_err "symlink out of the folder: message" "link.py: not fixed: a symbolic link to a file outside"
expect_err "symlink out of the folder: nothing claimed fixed" "0 fixed, 1 finding left"
same_files "symlink out of the folder: target untouched" "$d/elsewhere/o.py" "$d/o.orig"

# a FIFO, named or found: never opened for reading (that would wait forever)
fresh fifo
mkfifo "$d/pipe.py"
printf '%s\n' "$finding" >"$d/real.py"
run timeout 20 "$bin" check "$d/pipe.py"
expect_rc "FIFO: check exits 0 (skipped)" 0
expect_err "FIFO: message" "pipe.py: skipped: not a regular file"
run timeout 20 "$bin" fix "$d"
expect_rc "FIFO in a folder: fix goes on and exits 0" 0
expect_err "FIFO in a folder: message" "pipe.py: skipped: not a regular file"
[ -p "$d/pipe.py" ] && ok "FIFO stays a FIFO" || fail "FIFO stays a FIFO"
run timeout 20 "$bin" check --rules "$d/pipe.py" "$d/real.py"
expect_rc "FIFO as a rule file: exit 2" 2
expect_err "FIFO as a rule file: message" "pipe.py: not a regular file"

# a folder named x.py: skipped when named, walked into when found
fresh dir
mkdir "$d/x.py"
printf '%s\n' "$finding" >"$d/x.py/inner.py"
run "$bin" check "$d/x.py"
expect_rc "folder named x.py given by name: a folder, walked (exit 1)" 1
expect_out "folder named x.py given by name: its file's finding" "x.py/inner.py:1:5: MPS006"
run "$bin" check "$d"
expect_out "folder named x.py: walked into" "x.py/inner.py:1:5: MPS006"

# unreadable file: an error (exit 2) after the other files
fresh unreadable
printf '%s\n' "$finding" >"$d/secret.py"
printf '%s\n' "$finding" >"$d/open.py"
chmod 000 "$d/secret.py"
as_user=""
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null 2>&1; then
		chmod 755 "$d"
		as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	fi
fi
if [ "$(id -u)" != 0 ] || [ -n "$as_user" ]; then
	run $as_user "$bin" check "$d/secret.py" "$d/open.py"
	expect_rc "unreadable file: exit 2" 2
	expect_err "unreadable file: message" "secret.py: cannot open: Permission denied"
	expect_out "unreadable file: the run goes on" "open.py:1:5: MPS006"
else
	echo "skip unreadable file: root without setpriv reads anything"
fi

# a read-only file: reported, not changed; its finding stays (exit 1)
fresh readonly
printf 'import torch\n%s\n' "$finding" >"$d/ro.py"
cp "$d/ro.py" "$d/ro.orig"
chmod 444 "$d/ro.py"
run "$bin" fix "$d/ro.py"
expect_rc "read-only file: fix exits 1 (its finding stays)" 1
expect_err "read-only file: message" "ro.py: not fixed: the file is read-only"
expect_out "read-only file: the finding is reported" "ro.py:2:5: MPS006 [*]"
same_files "read-only file: unchanged" "$d/ro.py" "$d/ro.orig"
[ "$(file_mode "$d/ro.py")" = 444 ] && ok "read-only file: still read-only" || fail "read-only file: still read-only"
run "$bin" check "$d/ro.py"
expect_rc "read-only file: check exits 1 as usual" 1

# a file with a second hard link: replacing it would separate the two names
fresh hardlink
printf 'import torch\n%s\n' "$finding" >"$d/h.py"
ln "$d/h.py" "$d/h2.py.txt"
run "$bin" fix "$d/h.py"
expect_rc "hard-linked file: fix exits 1 (its finding stays)" 1
expect_err "hard-linked file: message" "h.py: not fixed: the file has 2 hard links (replacing it would separate them)"
grep -q non_blocking "$d/h2.py.txt" && ok "hard-linked file: unchanged" || fail "hard-linked file: unchanged"

# a file that changes while it is processed: the write is abandoned, reported
fresh changing
printf 'import torch\n%s\n' "$finding" >"$d/c.py"
printf 'import torch\n%s\n# changed meanwhile\n' "$finding" >"$d/c.want"
if [ "$(uname -s)" != Linux ]; then
	ok "file changed while processed: not run (the shim is an LD_PRELOAD library, Linux's)"
elif [ -f "$shim" ]; then
	# the shim appends a line to the file when mpsfix creates its temporary file
	run env LD_PRELOAD="$shim" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$bin" fix "$d/c.py"
	expect_rc "file changed while processed: fix exits 2" 2
	expect_err "file changed while processed: message" \
		"c.py: not fixed: the file changed while mpsfix was working on it; nothing was written (run mpsfix again)"
	# (as a full disk does: whatever stops the write leaves the findings to report)
	expect_out "file changed while processed: its finding is reported" "c.py:2:5: MPS006"
	expect_err "file changed while processed: the summary counts it" "0 fixed, 1 finding left"
	same_files "file changed while processed: the other writer's bytes kept" "$d/c.py" "$d/c.want"
	no_temp_files "file changed while processed" "$d"
	run env LD_PRELOAD="$shim" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$bin" fix --format diff "$d/c.py"
	expect_no_out "file changed while processed: fix --format diff shows no diff of what was not written" "+++ "
	run "$bin" fix "$d/c.py"
	expect_rc "file changed while processed: the next run fixes it" 0
else
	fail "file changed while processed: $shim is missing (make builds it)"
fi

# a temporary file left by a killed run: the next fix removes it
fresh stale
printf 'import torch\n%s\n' "$finding" >"$d/s.py"
printf 'import torch\ny = x.to("m' >"$d/.s.py.mpsfix-Ab12Cd"
printf 'mine\n' >"$d/s.py.mpsfix-Ab12Cd"
run "$bin" check "$d"
[ -f "$d/.s.py.mpsfix-Ab12Cd" ] && ok "stale temporary file: check leaves it" || fail "stale temporary file: check leaves it"
run "$bin" fix "$d"
expect_rc "stale temporary file: fix exits 0" 0
expect_err "stale temporary file: reported" ".s.py.mpsfix-Ab12Cd: removed, a temporary file left by an interrupted run"
no_temp_files "stale temporary file" "$d"
[ -f "$d/s.py.mpsfix-Ab12Cd" ] && ok "a file only named like one is kept" || fail "a file only named like one is kept"

# --- rule files --------------------------------------------------------------------
# (the committed ones, fixtures/bad-rules/*.yml, are run by tests/t0100-cli.sh)
fresh rules
{
	printf 'id: huge\ncode: MPS950\nseverity: warning\nmessage: m\ntorch: all\nmatch: f('
	head -c 10485760 /dev/zero | tr '\0' 'x'
	printf ')\n'
} >"$d/huge.yml"
run timeout 20 "$bin" check --rules "$d/huge.yml" fixtures/demo
expect_rc "10 MB pattern: exit 2" 2
expect_err "10 MB pattern: message" "huge.yml: the file is larger than 1024 KiB"
[ -z "$out" ] && ok "10 MB pattern: no partial run" || fail "10 MB pattern: no partial run" "$out"
# a regex that backtracks catastrophically is refused before it runs, in bounded time
run timeout 20 "$bin" check --rules fixtures/bad-rules/regex-backreference.yml fixtures/demo
expect_rc "backtracking regex: refused (exit 2), quickly" 2

test_done
