#!/bin/sh
# The option table, `mpsfix --help` and the man pages agree: every long option
# of long_options[] in src/cmd/cli.c is shown by --help and documented in
# man/mpsfix.1, each OPTIONS entry of the man page is spelled as in --help
# (same short option, same argument name) and the reverse, and both man pages
# render under groff with every warning on.  Prints 'N passed, N failed'.
# usage: sh tests/t0500-man.sh path/to/mpsfix
. "$(dirname "$0")/test-lib.sh"

# The long option names, one a line, from the long_options[] array of src/cmd/cli.c.
awk '/long_options\[\] = \{/ { on = 1; next }
	on && /^\};/ { exit }
	on && match($0, /\{"[a-z][a-z0-9-]*"/) { print substr($0, RSTART + 2, RLENGTH - 3) }' \
	src/cmd/cli.c >"$tmp/names"

# The man page as plain text for searching: \- is -, font changes dropped.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' man/mpsfix.1 >"$tmp/man.txt"

# The option entries of --help ("-o, --output FILE"): an indented line that
# starts with a dash, up to the two spaces before its description.
if "$bin" --help >"$tmp/help" 2>"$tmp/help.err"; then ok "mpsfix --help exits 0"
else fail "mpsfix --help exits 0" "$(cat "$tmp/help.err")"; fi
sed -n 's/^  *\(-[^ ].*\)$/\1/p' "$tmp/help" | sed 's/   *.*$//; s/ *$//' | sort >"$tmp/help.tags"

# The entries of OPTIONS in man/mpsfix.1: the line after each .TP, with the
# macro name, the spaces between its arguments, quotes and font changes
# dropped, as the alternating-font macros (.BI, .BR) join them.
awk '/^\.SH / { on = ($2 == "OPTIONS") } on && tag { print; tag = 0 } on && /^\.TP/ { tag = 1 }' man/mpsfix.1 |
	awk '{
		line = $0
		sub(/^\.[A-Z]+[ \t]*/, "", line)
		out = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "\"") { q = !q; continue }
			if (c == "\\" && substr(line, i + 1, 1) == " ") { out = out " "; i++; continue }
			if ((c == " " || c == "\t") && !q) continue
			out = out c
		}
		gsub(/\\f[BIRP]/, "", out); gsub(/\\-/, "-", out)
		print out
	}' | sort >"$tmp/man.tags"

if [ -s "$tmp/names" ]; then ok "long_options[] read from src/cmd/cli.c ($(wc -l <"$tmp/names") options)"
else fail "long_options[] read from src/cmd/cli.c" "no option names found"; fi

while read -r name; do
	if grep -Eq -- "--$name([^a-z0-9-]|\$)" "$tmp/man.txt"; then ok "man/mpsfix.1 documents --$name"
	else fail "man/mpsfix.1 documents --$name" "no --$name (or \\-\\-$name) in man/mpsfix.1"; fi
	if grep -Eq -- "(^|[ ,])--$name([ =]|\$)" "$tmp/help.tags"; then ok "--help lists --$name"
	else fail "--help lists --$name" "no --$name among the option lines of --help"; fi
done <"$tmp/names"

# every option --help or the man page mentions exists
for f in help man.txt; do
	for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/$f" | sed 's/^--//' | sort -u); do
		if grep -qx -- "$opt" "$tmp/names"; then :
		else fail "--$opt (in $f) is an option" "--$opt is not in long_options[] of src/cmd/cli.c"; fi
	done
done
ok "no option outside long_options[] is mentioned"

# the same entries, spelled the same way, in --help and under OPTIONS
if cmp -s "$tmp/help.tags" "$tmp/man.tags"; then
	ok "OPTIONS of man/mpsfix.1 and --help list the same options with the same arguments"
else
	fail "OPTIONS of man/mpsfix.1 and --help list the same options with the same arguments" \
		"$(diff "$tmp/help.tags" "$tmp/man.tags" | sed -n 's/^\([<>]\)/\1/p' |
			sed 's/^</--help only:/; s/^>/man only:  /')"
fi

# both pages render with every groff warning on
if command -v groff >/dev/null 2>&1; then
	for page in man/mpsfix.1 man/mpsfix-rules.5; do
		w=$(groff -man -Tutf8 -ww -z "$page" 2>&1 >/dev/null)
		if [ -z "$w" ]; then ok "$page renders without warnings"
		else fail "$page renders without warnings" "$w"; fi
	done
else
	fail "groff is installed" "groff not found (Debian: apt-get install groff-base)"
fi

# every complete rule (an example that starts with `id: SLUG`) in mpsfix-rules.5
# loads and passes its own examples under `mpsfix test`
awk -v dir="$tmp" '
	/^\.EX/ { on = 1; n++; file = dir "/example-" n ".yml"; first = 1; next }
	/^\.EE/ { on = 0; if (keep) close(file); keep = 0; next }
	on && first { first = 0; keep = ($0 ~ /^id: [a-z0-9\\-]+$/) }
	on && keep { print > file }' man/mpsfix-rules.5
nrules=0
for f in "$tmp"/example-*.yml; do
	[ -f "$f" ] || continue
	nrules=$((nrules + 1))
	sed_i "$f" -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\(dq/"/g' -e 's/\\(ga/`/g' \
		-e 's/\\f[BIRP]//g' -e 's/\\e/\\/g'
	id=$(sed -n 's/^id: //p' "$f")
	if out=$("$bin" test "$f" 2>&1); then ok "the rule $id of man/mpsfix-rules.5 passes mpsfix test"
	else fail "the rule $id of man/mpsfix-rules.5 passes mpsfix test" "$out"; fi
done
if [ "$nrules" -ge 3 ]; then ok "man/mpsfix-rules.5 has $nrules complete example rules"
else fail "man/mpsfix-rules.5 has complete example rules" "found $nrules, expected 3 or more"; fi

test_done
