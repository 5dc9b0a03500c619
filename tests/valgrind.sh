#!/bin/sh
# Memcheck over the Check suites, the fuzz targets' replays and the command
# line on the fixtures: any memory error or definite leak fails the run
# (valgrind's --error-exitcode), whatever mpsfix's own exit status.
# Prints 'N passed, N failed'.
# usage: sh tests/valgrind.sh [build-folder]
. "$(dirname "$0")/test-lib.sh"
export MPSFIX_RULES_DIR="$top/rules" MPSFIX_TOP="$top" MPSFIX_UNDER_VALGRIND=1
# two worker threads whatever the machine (valgrind runs them one at a time)
export MPSFIX_JOBS=2
# 99 is none of mpsfix's exit statuses (0, 1, 2, 130)
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
	--errors-for-leak-kinds=definite --num-callers=30"

# memcheck NAME CMD...: CMD under valgrind, standard input from $input (or nothing)
input=/dev/null
memcheck() {
	name=$1
	shift
	$vg "$@" >"$tmp/out" 2>"$tmp/vg.log" <"$input"
	rc=$?
	if [ "$rc" = 99 ]; then
		fail "memcheck: $name" "$(grep -E '^==[0-9]+== ' "$tmp/vg.log" | head -40)"
	else
		ok "memcheck: $name (exit $rc)"
	fi
}

# the Check suites, in one process (valgrind does not follow Check's forks)
CK_FORK=no memcheck "Check suites" "$build/check_all"

# the fuzz targets on their seeds
memcheck "fuzz target rule" "$build/fuzz/replay-rule" rules fixtures/bad-rules tests/fuzz/corpus/rule
memcheck "fuzz target pattern" "$build/fuzz/replay-pattern" tests/fuzz/corpus/pattern
memcheck "fuzz target pipeline" "$build/fuzz/replay-pipeline" fixtures/rules fixtures/bad fixtures/demo \
	tests/fuzz/corpus/pipeline
memcheck "fuzz target notebook" "$build/fuzz/replay-notebook" fixtures/notebook tests/fuzz/corpus/notebook

# the command line
cp -R fixtures/demo "$tmp/demo"
cp -R fixtures/bad "$tmp/bad"
mkfifo "$tmp/bad/fifo.py"
mkdir "$tmp/bad/dir.py"
ln -s loop.py "$tmp/bad/loop.py"
memcheck "--help" "$bin" --help
memcheck "--version" "$bin" --version
memcheck "check demo" "$bin" check fixtures/demo
memcheck "diff demo" "$bin" diff fixtures/demo
memcheck "fix demo" "$bin" fix "$tmp/demo"
memcheck "check bad input" "$bin" check "$tmp/bad"
memcheck "fix bad input" "$bin" fix "$tmp/bad"
for format in full json jsonl sarif github diff; do
	memcheck "check --format $format" "$bin" check --format "$format" --statistics \
		--show-unused-suppressions fixtures/cli/project
done
input=fixtures/demo/train.py
memcheck "check - (standard input)" "$bin" check -
memcheck "fix - (standard input)" "$bin" fix -
input=fixtures/bad/binary.py
memcheck "fix - of skipped input" "$bin" fix -
input=/dev/null
memcheck "test rules" "$bin" test rules
for f in fixtures/bad-rules/*.yml; do
	memcheck "broken rule $(basename "$f")" "$bin" check --rules "$f" fixtures/demo
done
memcheck "usage error" "$bin" check --frobnicate

test_done
