# test-lib.sh: what the shell test scripts share (sourced by tests/*.sh).
# Counters and reporting: ok NAME, fail NAME DETAIL...; the caller prints
# "$passed passed, $failed failed" at the end.  run/run_in keep a command's
# stdout in $out, stderr in $err and status in $rc (files under $tmp).
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; shift; for l in "$@"; do echo "     $l"; done; }

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

same_files() { # name a b: the two files are byte for byte the same
	if cmp -s "$2" "$3"; then ok "$1"; else fail "$1" "$2 and $3 differ" "$(diff "$2" "$3" | head -20)"; fi
}

expect_no_out() { # name substring
	case $out in *"$2"*) fail "$1" "stdout has: $2" "stdout: $out" ;; *) ok "$1" ;; esac
}
expect_no_err() { # name substring
	case $err in *"$2"*) fail "$1" "stderr has: $2" "stderr: $err" ;; *) ok "$1" ;; esac
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
# timeout SECONDS CMD...: coreutils' timeout, Homebrew's gtimeout, else perl's alarm
if ! command -v timeout >/dev/null 2>&1; then
	if command -v gtimeout >/dev/null 2>&1; then
		timeout() { gtimeout "$@"; }
	else
		timeout() {
			_t=$1
			shift
			perl -e 'alarm shift; exec @ARGV or exit 127' "$_t" "$@"
		}
	fi
fi

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
