#!/bin/sh
# Determinism of -j: check (every report format, --statistics), diff and fix
# print the same bytes on standard output and standard error, exit with the
# same status and (fix) leave the same files with -j 2, 3 and 8 as with -j 1,
# over every fixture tree, bad files and a generated tree of a few hundred
# files.  The -j 8 runs are repeated to catch orders that depend on timing.
# usage: sh tests/t0410-jobs.sh [path/to/mpsfix] [repeats of -j 8, default 5]
. "$(dirname "$0")/test-lib.sh"
repeats=${2:-5}
isolate
unset MPSFIX_JOBS

as_user=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	# root reads anything: run as nobody so that the unreadable file is
	as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi

# --- the trees ---------------------------------------------------------------------
mkdir -p "$tmp/trees"
for t in rules engine demo bad cli/project; do
	cp -R "fixtures/$t" "$tmp/trees/$(echo "$t" | tr / _)"
done
# bad files the fixtures cannot hold: unreadable, a FIFO, a folder named *.py,
# a dangling link, a link loop
b=$tmp/trees/bad
printf 'import torch\nloader = torch.utils.data.DataLoader(ds, pin_memory=True)\n' >"$b/zz_good.py"
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$b/unreadable.py"
chmod 000 "$b/unreadable.py"
mkfifo "$b/fifo.py"
mkdir "$b/dir.py"
ln -s nowhere.py "$b/dangling.py"
ln -s loop2.py "$b/loop1.py"
ln -s loop1.py "$b/loop2.py"

# a generated tree: 300 files in 20 folders, from a few lines to a few
# hundred; one in 8 with findings (fixture inputs), some with syntax errors,
# some binary, some not UTF-8, a configuration with per-file ignores
g=$tmp/trees/generated
mkdir -p "$g"
inputs=$(find fixtures/rules fixtures/demo -name '*.py' | sort)
ninputs=$(printf '%s\n' "$inputs" | wc -l)
printf 'per-file-ignores:\n  "d3/*.py": [MPS101]\n  "d7/**": [MPS0]\n' >"$g/.mpsfix.yml"
i=0
while [ $i -lt 300 ]; do
	d=$g/d$((i % 20))
	mkdir -p "$d"
	f=$d/m$i.py
	if [ $((i % 8)) = 3 ]; then
		k=$((i / 8 % ninputs + 1))
		cp "$(printf '%s\n' "$inputs" | sed -n "${k}p")" "$f"
	elif [ $((i % 31)) = 5 ]; then
		printf 'import torch\ndef broken(:\n    y = x.to("mps", non_blocking=True)\nz = torch.std_mean(a)\n' >"$f"
	elif [ $((i % 47)) = 7 ]; then
		printf 'import torch\x00\x01\x02\n' >"$f"
	elif [ $((i % 53)) = 9 ]; then
		printf 'x = "caf\351"\n' >"$f"
	else
		awk -v n=$(( (i * 7919) % 250 + 3 )) -v seed=$i 'BEGIN {
			print "import torch"
			print "import torch.nn as nn"
			for (j = 0; j < n; j++) {
				if (j % 50 == 0) printf "\nclass Block%d_%d(nn.Module):\n    def forward(self, x):\n", seed, j
				printf "        x = self.layer%d(x) * %d + torch.relu(x)\n", j % 7, j
			}
			print "        return x"
		}' >"$f"
	fi
	i=$((i + 1))
done

# --- the comparison ----------------------------------------------------------------
jobs=""
eights=$(seq -s ' ' "$repeats" | sed 's/[0-9]*/8/g')

# compare NAME DIR ARGS...: mpsfix ARGS in DIR with -j 1, then with each of
# $jobs (-j 2, -j 3 and `repeats` times -j 8 unless set); stdout, stderr and
# status must be byte for byte the same
compare() {
	name=$1
	dir=$2
	shift 2
	(cd "$dir" && $as_user "$bin" "$@" -j 1 >"$tmp/ref.out" 2>"$tmp/ref.err" </dev/null; echo $? >"$tmp/ref.rc")
	bad=""
	for j in ${jobs:-2 3 $eights}; do
		(cd "$dir" && $as_user "$bin" "$@" -j "$j" >"$tmp/j.out" 2>"$tmp/j.err" </dev/null; echo $? >"$tmp/j.rc")
		for s in out err rc; do
			if ! cmp -s "$tmp/ref.$s" "$tmp/j.$s"; then
				bad="-j $j: std$s differs: $(diff "$tmp/ref.$s" "$tmp/j.$s" | head -6 | tr '\n' '|')"
				break 2
			fi
		done
	done
	if [ -n "$bad" ]; then
		fail "$name" "$bad"
	elif [ ! -s "$tmp/ref.out" ] && [ ! -s "$tmp/ref.err" ]; then
		fail "$name" "printed nothing: the comparison shows nothing"
	else
		ok "$name"
	fi
}

# tree_sum DIR: every path with its type and mode, and the bytes of the regular files
tree_sum() {
	(cd "$1" && python3 -c 'import os, stat
def walk(p):
    yield p
    if stat.S_ISDIR(os.lstat(p).st_mode):
        for n in os.listdir(p):
            yield from walk(os.path.join(p, n))
for p in walk("."):
    print(p, stat.filemode(os.lstat(p).st_mode))' | LC_ALL=C sort &&
		find . -type f -perm -u=r -exec cksum {} + | LC_ALL=C sort -k 3)
}

# compare_fix NAME TREE ARGS...: fix on copies; the trees left must be the same too
compare_fix() {
	name=$1
	src=$2
	shift 2
	rm -rf "$tmp/fix"
	mkdir -p "$tmp/fix"
	bad=""
	for j in 1 2 3 $eights; do
		rm -rf "$tmp/fix/t"
		cp -Rp "$src" "$tmp/fix/t"
		chmod -R o+rwX "$tmp/fix" 2>/dev/null
		[ -e "$tmp/fix/t/unreadable.py" ] && chmod 000 "$tmp/fix/t/unreadable.py"
		(cd "$tmp/fix/t" && $as_user "$bin" fix "$@" -j "$j" . >"$tmp/j.out" 2>"$tmp/j.err" </dev/null; echo $? >"$tmp/j.rc")
		chmod -R u+rwX "$tmp/fix/t"
		if [ "$j" = 1 ]; then
			for s in out err rc; do cp "$tmp/j.$s" "$tmp/ref.$s"; done
			rm -rf "$tmp/fix/ref"
			mv "$tmp/fix/t" "$tmp/fix/ref"
			tree_sum "$tmp/fix/ref" >"$tmp/ref.sum"
			if [ "$(tree_sum "$src")" = "$(cat "$tmp/ref.sum")" ]; then
				bad="-j 1 fixed nothing: the comparison shows nothing"
				break
			fi
			continue
		fi
		for s in out err rc; do
			if ! cmp -s "$tmp/ref.$s" "$tmp/j.$s"; then
				bad="-j $j: std$s differs: $(diff "$tmp/ref.$s" "$tmp/j.$s" | head -6 | tr '\n' '|')"
				break 2
			fi
		done
		tree_sum "$tmp/fix/t" >"$tmp/t.sum"
		if ! diff "$tmp/ref.sum" "$tmp/t.sum" >"$tmp/tree.diff" 2>&1; then
			bad="-j $j: the fixed trees differ: $(head -6 "$tmp/tree.diff" | tr '\n' '|')"
			break
		fi
	done
	if [ -n "$bad" ]; then fail "$name" "$bad"; else ok "$name"; fi
}

chmod -R o+rwX "$tmp/trees"
chmod 000 "$b/unreadable.py"
for t in rules engine demo bad cli_project generated; do
	d=$tmp/trees/$t
	compare "$t: check" "$d" check .
	compare "$t: diff" "$d" diff .
	# the other formats: -j 1 against -j 8 twice
	jobs="8 8"
	for fmt in full json jsonl sarif github diff; do
		compare "$t: check --format $fmt" "$d" check --format "$fmt" .
	done
	jobs="3 8 8"
	compare "$t: check --statistics --show-unused-suppressions" "$d" check --statistics \
		--show-unused-suppressions .
	jobs=""
	compare_fix "$t: fix" "$d"
done
compare "generated: check --unsafe-fixes --format json" "$g" check --unsafe-fixes --format json .
compare_fix "generated: fix --unsafe-fixes" "$g" --unsafe-fixes

# a git work tree: --since and --staged read history on every thread
r=$tmp/repo
cp -R "$g" "$r"
(
	cd "$r" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base &&
	for f in d1/m41.py d2/m42.py d5/m45.py d11/m51.py d19/m59.py; do
		printf 'y = x.to("mps", non_blocking=True)\nloader = DataLoader(ds, pin_memory=True)\n' >>"$f"
	done &&
	git add d1 d2 && printf 'z = torch.std_mean(a)\n' >>d5/m45.py
) >/dev/null 2>&1 || fail "git work tree set up"
compare "git: check --since HEAD" "$r" check --since HEAD .
compare "git: diff --since HEAD" "$r" diff --since HEAD .
jobs="3 8 8"
compare "git: check --staged" "$r" check --staged .
compare "git: diff (names from the work tree's top)" "$r/d1" diff ..

# SIGINT during fix -j 4: no new file after it, every file whole (as it was or
# as fixed), exit 130, and the report a prefix of the whole run's, in order
mkdir -p "$tmp/int/t"
awk 'BEGIN { print "import torch"; for (i = 0; i < 100; i++) {
	print "loader = torch.utils.data.DataLoader(ds, pin_memory=True)"
	print "y = x.to(\"mps\", non_blocking=True)"
	print "z = compute(y, scale=0.5)" }
	print "device = \"cuda\" if torch.cuda.is_available() else \"cpu\"" }' >"$tmp/int/one.py"
i=0
while [ $i -lt 1500 ]; do
	mkdir -p "$tmp/int/t/d$((i / 100))"
	cp "$tmp/int/one.py" "$tmp/int/t/d$((i / 100))/f$i.py"
	i=$((i + 1))
done
cp -R "$tmp/int/t" "$tmp/int/whole"
(cd "$tmp/int/whole" && "$bin" fix --isolated -j 1 --format concise . >"$tmp/int/whole.out" 2>/dev/null)
fixed_one=$tmp/int/whole/d0/f0.py
(cd "$tmp/int/t" && interruptible "$tmp/int/ready" "$bin" fix --isolated -j 4 --format concise . \
	>"$tmp/int/out" 2>"$tmp/int/err") &
pid=$!
wait_file "$tmp/int/ready"
sleep 0.5
if kill -INT "$pid" 2>/dev/null; then
	wait "$pid"
	rc=$?
	if [ "$rc" != 130 ] && grep -q 'files scanned' "$tmp/int/err"; then
		echo "skip interrupt: the run ended before SIGINT came (exit $rc)"
	else
		out="" err=$(cat "$tmp/int/err")
		expect_rc "SIGINT during fix -j 4: exit 130" 130
		torn=$(cd "$tmp/int/t" && find . -name '*.py' | while read -r f; do
			cmp -s "$f" "$tmp/int/one.py" || cmp -s "$f" "$fixed_one" || echo "$f"; done)
		[ -z "$torn" ] && ok "SIGINT during fix -j 4: every file whole" ||
			fail "SIGINT during fix -j 4: every file whole" "$torn"
		nfixed=$(cd "$tmp/int/t" && find . -name '*.py' | while read -r f; do
			cmp -s "$f" "$fixed_one" && echo "$f"; done | wc -l)
		[ "$nfixed" -lt 1500 ] && ok "SIGINT during fix -j 4: stopped early ($nfixed of 1500 fixed)" ||
			fail "SIGINT during fix -j 4: stopped early" "all 1500 fixed"
		nreported=$(wc -l <"$tmp/int/out")
		[ "$nreported" = "$nfixed" ] && ok "SIGINT during fix -j 4: every file written is reported" ||
			fail "SIGINT during fix -j 4: every file written is reported" "$nfixed fixed, $nreported reported"
		n=$(wc -c <"$tmp/int/out")
		if [ "$n" -gt 0 ] && head -c "$n" "$tmp/int/whole.out" | cmp -s - "$tmp/int/out"; then
			ok "SIGINT during fix -j 4: the report is a prefix of the whole run's"
		else
			fail "SIGINT during fix -j 4: the report is a prefix of the whole run's" "$(head -3 "$tmp/int/out")"
		fi
	fi
else
	wait "$pid"
	echo "skip interrupt: the run ended before SIGINT came"
fi

test_done
