#!/bin/sh
# Crash-safe writes: `mpsfix fix` over a large tree is killed with SIGKILL at
# random moments, many times.  After each kill every file must be entirely
# its old or entirely its new (fully fixed) content; the next run must then
# finish the job and leave no temporary file behind.
# Prints the counts and 'N passed, N failed'.
# usage: sh tests/t0710-kill.sh [path/to/mpsfix [runs [copies]]]
#   runs:   how many runs are killed (default 20)
#   copies: how many copies of the fixture inputs make the tree (default 25)
. "$(dirname "$0")/test-lib.sh"
runs=${2:-20}
copies=${3:-25}
export MPSFIX_RULES_DIR="$top/rules" LC_ALL=C

# the tree: every fixture input (each has findings, most fixable), many times over
mkdir "$tmp/orig"
i=0
while [ "$i" -lt "$copies" ]; do
	mkdir "$tmp/orig/d$i"
	for f in fixtures/rules/*/*/input.py fixtures/engine/*/input.py; do
		case_dir=${f%/input.py}
		cp "$f" "$tmp/orig/d$i/$(basename "$(dirname "$case_dir")")-$(basename "$case_dir").py"
	done
	cp fixtures/demo/*.py "$tmp/orig/d$i/"
	i=$((i + 1))
done

# checksums of every file, by path: "path crc size"
sums() {
	(cd "$1" && find . -type f -name '*.py' -exec cksum {} + | awk '{ print $3, $1, $2 }' | sort)
}
temps() {
	find "$1" -name '.*.mpsfix-*' | wc -l | tr -d ' '
}

# the new content: one clean run on a copy
cp -R "$tmp/orig" "$tmp/want"
start=$(now_ms)
"$bin" fix "$tmp/want" >/dev/null 2>&1
want_rc=$?
duration=$(($(now_ms) - start))
[ "$duration" -gt 0 ] || duration=1
sums "$tmp/orig" >"$tmp/old.sums"
sums "$tmp/want" >"$tmp/new.sums"
nfiles=$(wc -l <"$tmp/old.sums" | tr -d ' ')
nchanged=$(join "$tmp/old.sums" "$tmp/new.sums" | awk '$2 != $4 || $3 != $5' | wc -l | tr -d ' ')
echo "tree: $nfiles files, $nchanged of them changed by fix; a full run takes ${duration} ms (exit $want_rc)"
[ "$nchanged" -gt 0 ] && ok "fix changes files of the tree" || fail "fix changes files of the tree"

killed=0 finished=0 torn=0 old_seen=0 new_seen=0 mixed_runs=0 left=0 removed=0 after=0 wrong=0
r=0
while [ "$r" -lt "$runs" ]; do
	r=$((r + 1))
	rm -rf "$tmp/work"
	cp -R "$tmp/orig" "$tmp/work"
	# a random moment in the run (a little past its end now and then)
	delay_ms=$(od -An -N4 -tu4 /dev/urandom | awk -v d="$duration" '{ print $1 % (d + d / 10 + 1) }')
	"$bin" fix "$tmp/work" >/dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v m="$delay_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; status=$?; } 2>/dev/null # no "Killed" from the shell
	if [ "$status" = 137 ]; then killed=$((killed + 1)); else finished=$((finished + 1)); fi

	# every file old or new, never anything else
	sums "$tmp/work" >"$tmp/now.sums"
	verdict=$(join -a 1 "$tmp/now.sums" "$tmp/old.sums" | join -a 1 - "$tmp/new.sums" | awk '
		{ if ($2 == $4 && $3 == $5) o++; else if ($2 == $6 && $3 == $7) n++; else { t++; print "torn: " $1 > "/dev/stderr" } }
		END { printf "%d %d %d\n", o, n, t }')
	set -- $verdict
	missing=$((nfiles - $(wc -l <"$tmp/now.sums")))
	set -- "$1" "$2" $(($3 + missing))
	# a file the same before and after counts as old
	old_seen=$((old_seen + $1))
	new_seen=$((new_seen + $2))
	torn=$((torn + $3))
	[ "$2" -gt 0 ] && [ "$1" -gt $((nfiles - nchanged)) ] && mixed_runs=$((mixed_runs + 1))
	n=$(temps "$tmp/work")
	left=$((left + n))

	# the next run finishes the job and removes what the killed one left
	"$bin" fix "$tmp/work" >/dev/null 2>"$tmp/next.err"
	rc=$?
	removed=$((removed + $(grep -c 'a temporary file left by an interrupted run' "$tmp/next.err")))
	after=$((after + $(temps "$tmp/work")))
	if [ "$rc" != "$want_rc" ] || ! sums "$tmp/work" | cmp -s - "$tmp/new.sums"; then
		wrong=$((wrong + 1))
		echo "run $r: the next run gave exit $rc and a tree that is not the fixed one" >&2
	fi
done

echo "runs: $runs ($killed killed, $finished finished before the kill; $mixed_runs stopped part-way, with old and new files)"
echo "files checked after a kill: $((old_seen + new_seen + torn)) ($old_seen old, $new_seen new, $torn neither)"
echo "temporary files left by the kills: $left; removed by the next run: $removed; left after it: $after"
[ "$torn" = 0 ] && ok "every file entirely old or entirely new after SIGKILL" ||
	fail "every file entirely old or entirely new after SIGKILL" "$torn files were neither"
[ "$after" = 0 ] && ok "no temporary file left after the next run" || fail "no temporary file left after the next run" "$after left"
[ "$removed" = "$left" ] && ok "the next run names each temporary file it removes" ||
	fail "the next run names each temporary file it removes" "$left left, $removed named"
[ "$wrong" = 0 ] && ok "the next run gives the fully fixed tree" || fail "the next run gives the fully fixed tree" "$wrong runs"
[ "$killed" -gt 0 ] && ok "runs were killed part-way" || fail "runs were killed part-way" "every run finished first"

test_done
