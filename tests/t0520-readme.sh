#!/bin/sh
# Runs every command of README.md, in order, as a new user would: the ```sh
# blocks' `$ ` lines are commands, the lines under one are its expected output
# (standard output, then standard error; compared only when the README shows
# some), and a trailing `# exit N` is its expected exit status (else 0).
# ```yaml file=PATH blocks are written to PATH first (the example rule that
# `mpsfix test` then runs).  Everything runs in one bash, so `cd` carries over,
# starting in the source folder with HOME, the build folder (O) and PATH
# (~/.local/bin first, where the README installs mpsfix) in a scratch folder.
# Blocks marked ```sh no-test=REASON are not run; REASON must be one of the
# list below, and each skipped command is printed.
# usage: sh tests/t0520-readme.sh [path/to/mpsfix] (its folder is the build folder
# copied); prints 'N passed, N failed'.
. "$(dirname "$0")/test-lib.sh"
isolate

# why a block may be left out, and what tests it instead
skip_reasons='installs-system-packages: apt-get needs root and the network; make deps and .ci/run install the same packages
macos-only: brew runs on macOS only; the make commands are the Debian ones, run above
needs-shared-compat: make compat needs the headers of ../shared/compat; .ci/run runs it
it-runs-this-test: make check runs tests/t0520-readme.sh itself
needs-a-terminal: mpsfix review reads keys from a terminal; tests/t0310-review-tmux.sh runs it under tmux'

# the build folder, copied: make install compiles the install's rules folder in
copy_build "$tmp/o" || exit 2
mkdir -p "$tmp/home" "$tmp/run"
printf '[user]\n\tname = A U Thor\n\temail = author@example.com\n[init]\n\tdefaultBranch = main\n' \
	>"$tmp/home/.gitconfig"
cp "$tmp/home/.gitconfig" "$tmp/gitconfig"

# README.md -> a bash script that runs each command with its output in $tmp/run/N.*
awk -v run="$tmp/run" -v reasons="$skip_reasons" '
function flush_expected() { if (n && has_out[n]) close(run "/" n ".want") }
BEGIN { split(reasons, r, "\n"); for (i in r) { sub(/:.*/, "", r[i]); ok_reason[r[i]] = 1 } }
/^```sh/ {
	inblock = 1; skip = ""
	if (match($0, /no-test=[^ ]*/)) {
		skip = substr($0, RSTART + 8, RLENGTH - 8)
		if (!(skip in ok_reason)) { print "echo \"README.md:" NR ": unknown no-test reason " skip "\" >&2; exit 3" }
	}
	next
}
/^```yaml file=/ { infile = 1; f = $0; sub(/^```yaml file=/, "", f); print "mkdir -p \"$(dirname " f ")\""; print "cat >" f " <<'"'"'MPSFIX_README_EOF'"'"'"; next }
/^```/ && infile { infile = 0; print "MPSFIX_README_EOF"; next }
/^```/ && inblock { inblock = 0; next }
infile { print; next }
inblock && /^\$ / {
	cmd = substr($0, 3)
	if (skip != "") { printf "%s\t%s\n", skip, cmd > (run "/skipped"); next }
	n++
	rc = 0
	if (match(cmd, /# exit [0-9]+/)) rc = substr(cmd, RSTART + 7, RLENGTH - 7)
	printf "%s\n", cmd > (run "/" n ".cmd"); close(run "/" n ".cmd")
	printf "%s\n", rc > (run "/" n ".rc"); close(run "/" n ".rc")
	printf "%d\n", NR > (run "/" n ".line"); close(run "/" n ".line")
	print "{ " cmd
	print "} >\"" run "/" n ".out\" 2>\"" run "/" n ".err\" </dev/null; echo $? >\"" run "/" n ".status\""
	next
}
inblock && skip == "" && n { has_out[n] = 1; print > (run "/" n ".want"); next }
' README.md >"$tmp/script.bash"

(cd "$top" && HOME=$tmp/home GIT_CONFIG_GLOBAL=$tmp/gitconfig O=$tmp/o \
	PATH="$tmp/home/.local/bin:$PATH" MAKEFLAGS= bash "$tmp/script.bash" >"$tmp/script.log" 2>&1)
rc=$?
[ "$rc" = 0 ] || fail "the README script ran to the end" "status $rc" "$(tail -5 "$tmp/script.log")"

n=0
while [ -f "$tmp/run/$((n + 1)).cmd" ]; do
	n=$((n + 1))
	cmd=$(cat "$tmp/run/$n.cmd")
	line=$(cat "$tmp/run/$n.line")
	want_rc=$(cat "$tmp/run/$n.rc")
	if [ ! -f "$tmp/run/$n.status" ]; then
		fail "README.md:$line: \$ $cmd" "not run"
		continue
	fi
	got_rc=$(cat "$tmp/run/$n.status")
	if [ "$got_rc" != "$want_rc" ]; then
		fail "README.md:$line: \$ $cmd" "exit status $got_rc, expected $want_rc" \
			"stdout: $(head -c 600 "$tmp/run/$n.out")" "stderr: $(head -c 600 "$tmp/run/$n.err")"
		continue
	fi
	if [ -f "$tmp/run/$n.want" ]; then
		cat "$tmp/run/$n.out" "$tmp/run/$n.err" >"$tmp/run/$n.got"
		if cmp -s "$tmp/run/$n.want" "$tmp/run/$n.got"; then
			ok "README.md:$line: \$ $cmd (exit $got_rc, output as shown)"
		else
			fail "README.md:$line: \$ $cmd" "output differs from the README:" \
				"$(diff "$tmp/run/$n.want" "$tmp/run/$n.got")"
		fi
	else
		ok "README.md:$line: \$ $cmd (exit $got_rc)"
	fi
done
[ "$n" -ge 20 ] && ok "README.md: $n commands run" || fail "README.md: only $n commands found"
echo "not run (marked no-test in README.md):"
if [ -f "$tmp/run/skipped" ]; then
	while IFS='	' read -r reason cmd; do
		printf '  $ %s\n      %s\n' "$cmd" "$(printf '%s\n' "$skip_reasons" | grep "^$reason:")"
	done <"$tmp/run/skipped"
fi

test_done
