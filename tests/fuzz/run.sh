#!/bin/sh
# Run each libFuzzer target of `make fuzz` for SECONDS seconds and report
# executions, corpus size and crashes per target.
# usage: sh tests/fuzz/run.sh BUILD-FOLDER SECONDS TARGET...
# The seeds are copied from the fixtures at run time into BUILD/fuzz/seeds/;
# the corpus grows in BUILD/fuzz/corpus/ (never committed); a crash is saved
# as BUILD/fuzz/crashes/TARGET-crash-... with the command that reproduces it.
# Exit status 1 when a target found a crash.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
build=$1
seconds=$2
shift 2
fuzz=$build/fuzz
export MPSFIX_RULES_DIR="$top/rules"
# libFuzzer reports leaks itself; UBSan findings stop the run (-fno-sanitize-recover)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:print_stacktrace=1:halt_on_error=1"

# copy the files of the folders and files named into $1, named by their checksum
seed() {
	dest=$1
	shift
	rm -rf "$dest"
	mkdir -p "$dest"
	find "$@" -type f 2>/dev/null | while read -r f; do
		cp "$f" "$dest/$(cksum <"$f" | tr ' ' '-')"
	done
}

status=0
summary=""
for t in "$@"; do
	case $t in
	rule)
		seed "$fuzz/seeds/$t" rules fixtures/bad-rules fixtures/engine tests/fuzz/corpus/rule
		find "$fuzz/seeds/$t" -type f -size +64k -delete # the deep-nesting one: libFuzzer's default length limit
		dict=tests/fuzz/yaml.dict
		;;
	pattern)
		seed "$fuzz/seeds/$t" tests/fuzz/corpus/pattern
		dict=tests/fuzz/python.dict
		;;
	pipeline)
		seed "$fuzz/seeds/$t" fixtures/rules fixtures/engine fixtures/bad fixtures/demo \
			fixtures/cli/project fixtures/cli/amp-trainer/project tests/fuzz/corpus/pipeline
		dict=tests/fuzz/python.dict
		;;
	notebook)
		seed "$fuzz/seeds/$t" fixtures/notebook tests/fuzz/corpus/notebook
		dict=tests/fuzz/notebook.dict
		;;
	*)
		echo "tests/fuzz/run.sh: unknown target $t" >&2
		exit 2
		;;
	esac
	mkdir -p "$fuzz/corpus/$t" "$fuzz/crashes"
	regressions=""
	[ -d "tests/fuzz/regressions/$t" ] && regressions="tests/fuzz/regressions/$t"
	log=$fuzz/$t.log
	echo "== fuzz-$t for $seconds s"
	started=$(date +%s)
	"$fuzz/fuzz-$t" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 \
		-rss_limit_mb=4096 -max_len=65536 -dict="$dict" \
		-artifact_prefix="$fuzz/crashes/$t-" \
		"$fuzz/corpus/$t" "$fuzz/seeds/$t" $regressions >"$log" 2>&1
	rc=$?
	elapsed=$(($(date +%s) - started))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	corpus=$(find "$fuzz/corpus/$t" -type f | wc -l | tr -d ' ')
	crashes=$(find "$fuzz/crashes" -name "$t-*" -type f | wc -l | tr -d ' ')
	line="fuzz-$t: ${execs:-?} executions in $elapsed s (${speed:-?}/s), corpus $corpus inputs, $crashes crash files"
	if [ "$rc" != 0 ]; then
		status=1
		line="$line; FAILED (exit $rc), see $log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: property broken|.*runtime error)' "$log" | head -5
		for c in "$fuzz/crashes/$t"-*; do
			[ -f "$c" ] && echo "  reproduce: $fuzz/fuzz-$t $c"
		done
	fi
	echo "$line"
	summary="$summary$line
"
done
echo "== fuzzing summary"
printf '%s' "$summary" | tee "$fuzz/summary.txt"
exit $status
