#!/bin/sh
# Crash-safe commits: `mpsfix commit` in a repository with many files to fix is
# killed with SIGKILL at random moments, many times.  After each kill the
# repository must be valid (`git fsck --strict`), HEAD must be either the
# commit it started from or the last commit of a complete series (never a
# part of the series), and the work tree and index must match HEAD or the
# state before; a run after the kill finishes the job.
# Prints the counts and 'N passed, N failed'.
# usage: sh tests/t0720-kill-commit.sh [path/to/mpsfix [runs [copies]]]
. "$(dirname "$0")/test-lib.sh"
runs=${2:-10}
copies=${3:-10}
isolate
export MPSFIX_RULES_DIR="$top/rules" LC_ALL=C
git config --global init.defaultBranch main


# the repository: the demo and every fixture input, many times over, committed
mkdir "$tmp/orig"
i=0
while [ "$i" -lt "$copies" ]; do
	mkdir "$tmp/orig/d$i"
	cp fixtures/demo/*.py "$tmp/orig/d$i/"
	for f in fixtures/rules/*/*/input.py; do
		case_dir=${f%/input.py}
		cp "$f" "$tmp/orig/d$i/$(basename "$(dirname "$case_dir")")-$(basename "$case_dir").py"
	done
	i=$((i + 1))
done
# (the identity in the repository's own configuration: libgit2 reads no GIT_CONFIG_GLOBAL)
(cd "$tmp/orig" && git init -q && git config user.name 'Ada Lovelace' &&
	git config user.email ada@example.com && git add . && git commit -qm 'project')
base=$(git -C "$tmp/orig" rev-parse HEAD)

# a complete run: its tree is the only "after" there is
cp -R "$tmp/orig" "$tmp/want"
start=$(now_ms)
(cd "$tmp/want" && "$bin" commit -q >/dev/null 2>&1)
duration=$(($(now_ms) - start))
[ "$duration" -gt 0 ] || duration=1
want_tree=$(git -C "$tmp/want" rev-parse 'HEAD^{tree}')
ncommits=$(git -C "$tmp/want" rev-list --count "$base..HEAD")
echo "repository: $(git -C "$tmp/orig" ls-files | wc -l | tr -d ' ') files; a full commit run makes $ncommits commits in ${duration} ms"
[ "$ncommits" -gt 1 ] && ok "the series has several commits" || fail "the series has several commits" "$ncommits"

before=0 after=0 bad=0 fsck_bad=0 finished=0 locks=0
r=0
while [ "$r" -lt "$runs" ]; do
	rm -rf "$tmp/run"
	cp -R "$tmp/orig" "$tmp/run"
	delay=$(awk -v s="$r" -v d="$duration" 'BEGIN { srand(s * 7919 + 17); printf "%.3f", rand() * d * 1.3 / 1000 }')
	(cd "$tmp/run" && exec "$bin" commit -q >/dev/null 2>&1) &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	head=$(git -C "$tmp/run" rev-parse HEAD)
	if ! git -C "$tmp/run" fsck --strict >/dev/null 2>&1; then
		fsck_bad=$((fsck_bad + 1))
	fi
	if [ "$head" = "$base" ]; then
		before=$((before + 1))
	elif [ "$(git -C "$tmp/run" rev-parse 'HEAD^{tree}')" = "$want_tree" ] &&
	     [ "$(git -C "$tmp/run" rev-list --count "$base..HEAD")" = "$ncommits" ]; then
		after=$((after + 1))
	else
		bad=$((bad + 1))
		echo "run $r (killed after ${delay} s): HEAD $head is neither before nor after"
	fi
	# a kill while the index or a ref is written leaves index.lock or
	# refs/heads/NAME.lock, as it does for git itself; the user removes it
	# (git and mpsfix say so), and so does this test
	left=$(find "$tmp/run/.git" -name '*.lock' -type f)
	if [ -n "$left" ]; then
		locks=$((locks + 1))
		rm -f $left
	fi
	# the next run finishes the job (or finds nothing left to do)
	git -C "$tmp/run" stash -q 2>/dev/null; git -C "$tmp/run" stash drop -q 2>/dev/null
	(cd "$tmp/run" && "$bin" commit -q >"$tmp/next.log" 2>&1)
	if [ "$(git -C "$tmp/run" rev-parse 'HEAD^{tree}')" = "$want_tree" ]; then
		finished=$((finished + 1))
	else
		echo "run $r: the next run did not finish: $(tail -1 "$tmp/next.log")"
	fi
	r=$((r + 1))
done
echo "runs killed: $runs; HEAD before: $before, after: $after, neither: $bad; fsck failures: $fsck_bad; lock files left: $locks; finished by the next run: $finished"
[ "$bad" = 0 ] && ok "HEAD is before or after, never a part of the series" ||
	fail "HEAD is before or after, never a part of the series" "$bad runs"
[ "$fsck_bad" = 0 ] && ok "git fsck --strict is clean after every kill" ||
	fail "git fsck --strict is clean after every kill" "$fsck_bad runs"
[ "$finished" = "$runs" ] && ok "the next run gives the tree of a complete run" ||
	fail "the next run gives the tree of a complete run" "$finished of $runs"
[ "$((before + after))" = "$runs" ] && ok "every run is accounted for ($before before, $after after)" ||
	fail "every run is accounted for"
test_done
