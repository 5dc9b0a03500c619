#!/bin/sh
# The house plan of src/ (src/README.md): a folder per part of the data flow,
# no .c file over 900 lines and main.c under 400, no cycle among the
# project's #include "..." edges (name.c, name.h and name_internal.h are one
# node), libgit2 only under src/git/, header names unique across the folders
# (every folder is on the include path), and src/README.md naming every .c
# file.  Reads the sources only; the binary is not run.
# usage: sh tests/t0010-layout.sh; prints 'N passed, N failed'.
. "$(dirname "$0")/test-lib.sh"

find src -name '*.[ch]' | LC_ALL=C sort >"$tmp/files"

# --- every source in a folder --------------------------------------------------------
loose=$(grep -v '^src/[a-z_]*/[a-z_0-9]*\.[ch]$' "$tmp/files")
[ -z "$loose" ] && ok "every source file is in a folder of src/" ||
	fail "every source file is in a folder of src/" "$loose"

# --- sizes ---------------------------------------------------------------------------
big=$(grep '\.c$' "$tmp/files" | while read -r f; do
	n=$(wc -l <"$f")
	[ "$n" -gt 900 ] && echo "$f: $n lines"
done)
[ -z "$big" ] && ok "no .c file over 900 lines" || fail "no .c file over 900 lines" "$big"
n=$(wc -l <src/cmd/main.c)
[ "$n" -lt 400 ] && ok "main.c under 400 lines ($n)" || fail "main.c under 400 lines" "$n lines"

# --- unique header names ---------------------------------------------------------------
dups=$(grep '\.h$' "$tmp/files" | sed 's|.*/||' | sort | uniq -d)
[ -z "$dups" ] && ok "no header name in two folders" || fail "no header name in two folders" "$dups"

# --- libgit2 only in git/ -------------------------------------------------------------
outside=$(grep -l '#include <git2' $(grep -v '^src/git/' "$tmp/files") 2>/dev/null)
[ -z "$outside" ] && ok "libgit2 is included only under src/git/" ||
	fail "libgit2 is included only under src/git/" "$outside"

# --- src/README.md names every .c file ---------------------------------------------------
missing=$(grep '\.c$' "$tmp/files" | while read -r f; do
	name=${f#src/}
	grep -q "\`$name\`\|\`${name#*/}\`" src/README.md || echo "$name"
done)
[ -z "$missing" ] && ok "src/README.md names every .c file" ||
	fail "src/README.md names every .c file" "$missing"

# --- no include cycle --------------------------------------------------------------------
# the edges "from to" between nodes: a file's name without .c/.h and _internal
while read -r f; do
	from=$(basename "$f" | sed 's/\.[ch]$//; s/_internal$//')
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		to=$(basename "$inc" | sed 's/\.[ch]$//; s/_internal$//')
		[ "$to" != "$from" ] && echo "$from $to"
	done
done <"$tmp/files" | sort -u >"$tmp/edges"
[ -s "$tmp/edges" ] && ok "include edges read ($(wc -l <"$tmp/edges"))" ||
	fail "include edges read" "none found"
# depth-first search; a node met again while still on the path closes a cycle
awk '
	{ adj[$1] = adj[$1] " " $2; node[$1] = 1; node[$2] = 1 }
	function visit(v,    n, i, next_, k, cyc) {
		state[v] = 1
		path[++depth] = v
		n = split(adj[v], next_, " ")
		for (i = 1; i <= n; i++) {
			if (state[next_[i]] == 1 && !found) {
				cyc = next_[i]
				for (k = depth; k >= 1 && path[k] != next_[i]; k--)
					cyc = path[k] " -> " cyc
				print next_[i] " -> " cyc
				found = 1
			} else if (!state[next_[i]]) {
				visit(next_[i])
			}
		}
		depth--
		state[v] = 2
	}
	END { for (v in node) if (!state[v]) visit(v) }' "$tmp/edges" >"$tmp/cycle"
[ -s "$tmp/cycle" ] && fail "no include cycle" "$(cat "$tmp/cycle")" || ok "no include cycle"

test_done
