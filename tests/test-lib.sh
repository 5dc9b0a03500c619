# test-lib.sh: what every shell test suite shares, as git's t/test-lib.sh.
# A suite, tests/tNNNN-topic.sh (numbered by hundreds: 0 the build, 1 the
# command line, 2 torch targeting, 3 git, 4 the prefilter and -j, 5 the
# documents, 6 install, 7 odd input and SIGKILL, 8 the semantic harness),
# starts with
#     . "$(dirname "$0")/test-lib.sh"
# and ends with test_done.  Sourcing it:
#   - set -u;
#   - top: the source tree, which becomes the current folder;
#   - bin: the mpsfix under test, as an absolute path: the first argument
#     (default build/mpsfix, relative to top), or BUILD/mpsfix when the first
#     argument is a build folder; build: the binary's folder.  A suite's own
#     arguments follow the first ($2, ...);
#   - tmp: a scratch folder of the suite's own, removed when it exits (after
#     the commands in $test_at_exit).
# Suites run side by side (make -j2 check): a suite writes under $tmp only,
# never into the source tree or the build folder (copy_build gives it a build
# folder of its own to run make in).
# Counters and reporting: ok NAME, fail NAME DETAIL..., test_done.  run and
# run_in keep a command's stdout in $out, stderr in $err and status in $rc
# (files under $tmp).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
bin=${1:-build/mpsfix}
case $bin in /*) ;; *) bin=$top/$bin ;; esac
if [ -d "$bin" ]; then
	build=$bin
	bin=$build/mpsfix
else
	build=$(dirname "$bin")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpsfix-$(basename "$0" .sh).XXXXXX") || exit 2
# (readable by others: suites run as root check unreadable files as nobody)
chmod 755 "$tmp"
test_at_exit=:
test_cleanup() {
	eval "$test_at_exit"
	chmod -R u+rwX "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap test_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; shift; for l in "$@"; do echo "     $l"; done; }

# test_done: the counts, the last line of every suite; exits 1 if a test failed
test_done() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ] || exit 1
	exit 0
}

# run CMD...: runs CMD with no standard input
run() {
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# run_in DIR CMD...: the same, in DIR
run_in() {
	d=$1
	shift
	(cd "$d" && "$@" >"$tmp/out" 2>"$tmp/err" </dev/null)
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

expect_rc() { # name expected
	if [ "$rc" = "$2" ]; then ok "$1"; else fail "$1" "exit status $rc, expected $2" "stdout: $out" "stderr: $err"; fi
}
expect_err() { # name substring
	case $err in *"$2"*) ok "$1" ;; *) fail "$1" "stderr lacks: $2" "stderr: $err" ;; esac
}
expect_out() { # name substring
	case $out in *"$2"*) ok "$1" ;; *) fail "$1" "stdout lacks: $2" "stdout: $out" ;; esac
}
expect_no_out() { # name substring
	case $out in *"$2"*) fail "$1" "stdout has: $2" "stdout: $out" ;; *) ok "$1" ;; esac
}
expect_no_err() { # name substring
	case $err in *"$2"*) fail "$1" "stderr has: $2" "stderr: $err" ;; *) ok "$1" ;; esac
}
expect_empty_out() { # name
	if [ -z "$out" ]; then ok "$1"; else fail "$1" "stdout not empty: $out"; fi
}
expect_eq() { # name got want
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

# test_cmp EXPECTED ACTUAL: as git's: true when the two files are byte for
# byte the same, else false, with their differences (diff -u) on stdout
test_cmp() {
	cmp -s "$1" "$2" && return 0
	diff -u "$1" "$2"
	return 1
}
same_files() { # name a b: the two files are byte for byte the same
	if _diff=$(test_cmp "$2" "$3"); then ok "$1"; else fail "$1" "$2 and $3 differ" "$(printf '%s\n' "$_diff" | head -20)"; fi
}

# changed_cells A B: of two notebooks, whether they are the same JSON outside
# their cells' source ("True"/"False"), and the numbers of the cells whose
# source differs: "True [3, 5]"
changed_cells() {
	python3 -c 'import json, sys
a, b = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:])
sa = [c.pop("source") for c in a["cells"]]
sb = [c.pop("source") for c in b["cells"]]
print(a == b, [i + 1 for i, (x, y) in enumerate(zip(sa, sb)) if x != y])' "$1" "$2"
}

# mkrepo DIR: the demo project committed on main (the suite sets
# init.defaultBranch), with an identity.  Its .mpsfix.yml selects three rules,
# so that the tests of the git side and of review do not change whenever the
# catalog grows (the catalog has its own tests).
mkrepo() {
	mkdir -p "$1"
	cp fixtures/demo/*.py fixtures/demo/README.md "$1/"
	printf 'select: [MPS006, MPS101, MPS104]\n' >"$1/.mpsfix.yml"
	(cd "$1" && git init -q && git config user.name 'Ada Lovelace' &&
		git config user.email ada@example.com && git add . && git commit -qm 'demo project')
}

# copy_build DEST: a build folder of the suite's own, for the make commands it
# runs (make install compiles the install's rules folder in): what $build/mpsfix
# is made of (objects, libraries, stamps), times kept so that nothing else is
# rebuilt; nothing else of $build, which other suites may be writing
copy_build() {
	mkdir -p "$1" || return
	for _f in src grammar tree-sitter libmpsfix.a libtree-sitter-python.a libtree-sitter.a \
		mpsfix datadir version tree-sitter-origin; do
		if [ -e "$build/$_f" ]; then cp -Rp "$build/$_f" "$1/" || return; fi
	done
}

# wait_file FILE: until FILE exists, 30 s at most (a process started in the
# background says it is ready)
wait_file() {
	_n=600
	while [ ! -e "$1" ] && [ "$_n" -gt 0 ]; do
		sleep 0.05
		_n=$((_n - 1))
	done
}

# interruptible READY CMD...: exec CMD with SIGINT restored, after creating
# READY; for a background job (`interruptible R cmd >out 2>err &`), which a
# non-interactive shell starts with SIGINT ignored.  python3 restores it and
# says so: wait_file READY before sending SIGINT (on a busy machine python3
# can take longer than a fixed sleep to start).
interruptible() {
	exec python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); open(sys.argv[1], "w").close(); os.execv(sys.argv[2], sys.argv[2:])' "$@"
}

# --- what GNU has and the BSD userland (macOS) has not, in forms both run ------------
# sed_i FILE SED-ARGS...: sed -i (GNU and BSD spell its argument differently)
sed_i() {
	_f=$1
	shift
	sed "$@" "$_f" >"$_f.sed-i" && cat "$_f.sed-i" >"$_f" && rm -f "$_f.sed-i"
}
# file_mode FILE: its permission bits in octal (GNU stat -c %a, BSD stat -f %Lp)
file_mode() { stat -c %a "$1" 2>/dev/null || stat -f %Lp "$1"; }
# now_ms: milliseconds since the epoch (BSD date has no %N)
now_ms() {
	_ns=$(date +%s%N 2>/dev/null)
	case $_ns in
	*N | '') perl -MTime::HiRes=time -e 'printf "%d\n", time * 1000' ;;
	*) echo $((_ns / 1000000)) ;;
	esac
}
# timeout SECONDS CMD...: coreutils' timeout, Homebrew's gtimeout, else perl's
# alarm, for SECONDS times TIMEOUT_SCALE (default 1): a timeout guards against a
# hang and times nothing, and code built with sanitizers runs several times
# slower (make sanitize and make tsan set it)
if command -v timeout >/dev/null 2>&1; then
	_timeout() { command timeout "$@"; }
elif command -v gtimeout >/dev/null 2>&1; then
	_timeout() { gtimeout "$@"; }
else
	_timeout() {
		_t=$1
		shift
		perl -e 'alarm shift; exec @ARGV or exit 127' "$_t" "$@"
	}
fi
timeout() {
	_t=$1
	shift
	case ${TIMEOUT_SCALE:-1}$_t in
	*[!0-9]*) ;;
	*) _t=$((_t * ${TIMEOUT_SCALE:-1})) ;;
	esac
	_timeout "$_t" "$@"
}

# isolate: nothing of the user's may leak into a test (git configuration and
# identity, hooks' variables, report format, color, an enclosing tmux); uses $tmp
isolate() {
	mkdir -p "$tmp/home"
	: >"$tmp/gitconfig"
	HOME=$tmp/home GIT_CONFIG_GLOBAL=$tmp/gitconfig GIT_CONFIG_NOSYSTEM=1
	export HOME GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM
	unset MPSFIX_FORMAT NO_COLOR GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME \
		GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL TMUX 2>/dev/null
}
