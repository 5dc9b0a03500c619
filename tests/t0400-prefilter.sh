#!/bin/sh
# The prefilter is sound: every fixture tree (and some inputs made to probe
# it: star imports, suppression comments, deep nesting, numbers glued to
# names, NUL bytes, CRLF, syntax errors) gives byte for byte the same
# standard output, standard error and exit status with and without
# --no-prefilter, for check in several formats, diff, and fix on copies
# (whose files must end the same too), with --verbose so that the warnings
# about star imports compare too.  Prints 'N passed, N failed'.
# usage: sh tests/t0400-prefilter.sh [path/to/mpsfix]
. "$(dirname "$0")/test-lib.sh"

isolate

# same NAME DIR ARGS...: run in DIR with and without the prefilter, compare
# (standard input from $input)
input=/dev/null
same() {
	name=$1
	dir=$2
	shift 2
	(cd "$dir" && "$bin" "$@" >"$tmp/a.out" 2>"$tmp/a.err" <"$input"; echo $? >"$tmp/a.rc")
	(cd "$dir" && "$bin" --no-prefilter "$@" >"$tmp/b.out" 2>"$tmp/b.err" <"$input"; echo $? >"$tmp/b.rc")
	if cmp -s "$tmp/a.out" "$tmp/b.out" && cmp -s "$tmp/a.err" "$tmp/b.err" &&
	   cmp -s "$tmp/a.rc" "$tmp/b.rc"; then
		ok "$name"
	else
		fail "$name" "$(diff "$tmp/a.out" "$tmp/b.out" | head -n 10)" \
			"$(diff "$tmp/a.err" "$tmp/b.err" | head -n 10)" \
			"status $(cat "$tmp/a.rc") / $(cat "$tmp/b.rc") (with / without the prefilter)"
	fi
}

# fix_same NAME TREE ARGS...: fix two copies of TREE, compare the runs and the trees
fix_same() {
	name=$1
	tree=$2
	shift 2
	rm -rf "$tmp/fa" "$tmp/fb"
	mkdir -p "$tmp/fa" "$tmp/fb"
	cp -R "$tree" "$tmp/fa/t"
	cp -R "$tree" "$tmp/fb/t"
	(cd "$tmp/fa" && "$bin" fix "$@" t >"$tmp/a.out" 2>"$tmp/a.err" </dev/null; echo $? >"$tmp/a.rc")
	(cd "$tmp/fb" && "$bin" fix "$@" --no-prefilter t >"$tmp/b.out" 2>"$tmp/b.err" </dev/null; echo $? >"$tmp/b.rc")
	if cmp -s "$tmp/a.out" "$tmp/b.out" && cmp -s "$tmp/a.err" "$tmp/b.err" &&
	   cmp -s "$tmp/a.rc" "$tmp/b.rc" && diff -r "$tmp/fa/t" "$tmp/fb/t" >/dev/null; then
		ok "$name"
	else
		fail "$name" "$(diff "$tmp/a.err" "$tmp/b.err" | head -n 10)" \
			"$(diff -r "$tmp/fa/t" "$tmp/fb/t" | head -n 10)"
	fi
}

# Inputs that probe what the prefilter must not skip.
probe=$tmp/probe
mkdir -p "$probe"
printf 'from os.path import *\nx = join(a, b)\n' >"$probe/star.py"
printf 'from os.path import \\\n    *\nx = y\n' >"$probe/star-continued.py"
printf 'import numpy  # noqa: MPS001\nx = 1  # NOQA\n' >"$probe/noqa.py"
printf 'x = 1  # mpsfix: ignore[MPS001]\n' >"$probe/ignore.py"
printf '# mpsfix: ignore-file\nx = 2\n' >"$probe/ignore-file.py"
printf 'import torch\ns = torch.std_mean(x)\n' >"$probe/trigger.py"
printf 'import torch\ns = torch.std_mean(x\n' >"$probe/trigger-syntax-error.py"
printf 'def f(:\n    return torch_std_mean(x, rstd)\n' >"$probe/syntax-error.py"
printf 'import torch\r\nd = "cuda" if torch.cuda.is_available() else "cpu"\r\n' >"$probe/crlf.py"
printf 'import torch\ny = torch.var(x)\0z = 1\n' >"$probe/nul.py"
printf 'import torch\nfrom torch import std_mean as sm\ns = sm(x)\n' >"$probe/alias.py"
printf 'import torch\nx = 1if torch.cuda.is_available()else 0\ny = 0x1else_ = 2\n' >"$probe/glued.py"
printf 'import torch\nx = t.to("mps", non_blocking=True)\n' >"$probe/to.py"
# 40,000 brackets left open: the same result, prefilter or not
python3 -c 'import sys; sys.stdout.write("x = " + "(" * 40000 + "\n")' >"$probe/deep.py"
python3 -c 'import sys; sys.stdout.write("x = " + "(" * 40000 + "\ny = torch.std_mean(x)\n")' >"$probe/deep-trigger.py"
printf 'x = rstd(std_mean_, std_meanx)\n' >"$probe/near-words.py"

trees="fixtures/rules fixtures/engine fixtures/demo fixtures/cli fixtures/bad fixtures/bad-fixed
fixtures/semantics tests/semantics $probe"

for t in $trees; do
	n=${t#"$tmp"/}
	for target in '' '>=1.12'; do
		tt=${target:+--target-torch=$target}
		set -- --verbose --extend-select MPS202 ${tt:+"$tt"}
		same "$n $target: check" "$t" check "$@" .
		same "$n $target: check --format json" "$t" check --format json "$@" .
		same "$n $target: check --format full --statistics" "$t" check --format full --statistics "$@" .
		same "$n $target: check --show-unused-suppressions" "$t" check --show-unused-suppressions "$@" .
		same "$n $target: check --format diff" "$t" check --format diff --unsafe-fixes "$@" .
		same "$n $target: diff" "$t" diff "$@" .
		same "$n $target: diff --unsafe-fixes" "$t" diff --unsafe-fixes "$@" .
		fix_same "$n $target: fix" "$t" "$@"
		fix_same "$n $target: fix --unsafe-fixes --show-unused-suppressions" "$t" \
			--unsafe-fixes --show-unused-suppressions "$@"
	done
done

# the rule files of the engine and semantics fixtures, each over every tree
# in one run (the prefilter judges each file alone: one run over the trees
# compares what a run per tree would, file by file)
rm -rf "$tmp/all"
mkdir -p "$tmp/all"
i=0
for t in $trees; do
	i=$((i + 1))
	cp -R "$t" "$tmp/all/$i"
done
for r in fixtures/engine/*/rule.yml fixtures/semantics/right.yml fixtures/semantics/wrong.yml; do
	same "every tree with $r: check" "$tmp/all" check -v --isolated --no-default-rules --rules "$top/$r" .
	fix_same "every tree with $r: fix" "$tmp/all" -v --isolated --no-default-rules --rules "$top/$r"
done

# standard input
for f in "$probe"/*.py; do
	input=$f
	same "stdin $(basename "$f"): check" "$probe" check -v --show-unused-suppressions -
	same "stdin $(basename "$f"): fix" "$probe" fix -v --unsafe-fixes -
done
input=/dev/null

test_done
