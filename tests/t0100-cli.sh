#!/bin/sh
# Command-line tests: run build/mpsfix as a user would and compare what it
# prints, what it writes and its exit status.  Prints 'N passed, N failed'.
# usage: sh tests/t0100-cli.sh [path/to/mpsfix]
. "$(dirname "$0")/test-lib.sh"

# --- usage, help, man page ------------------------------------------------------
run "$bin" --help
expect_rc "help exits 0" 0
expect_out "help shows usage" "usage: mpsfix <command>"
# (tests/t0500-man.sh checks that --help, the option table and man/mpsfix.1 agree)
run "$bin" --version
expect_rc "version exits 0" 0
expect_out "version names the grammar" "tree-sitter-python 0.23.6"
run "$bin"
expect_rc "no command is a usage error" 2
run "$bin" frobnicate
expect_rc "unknown command is a usage error" 2
expect_err "unknown command is named" "unknown command 'frobnicate'"
run "$bin" check --frobnicate fixtures/demo
expect_rc "unknown option is a usage error" 2
expect_err "unknown option is named" "--frobnicate"
run "$bin" check --rules
expect_rc "option without value is a usage error" 2
expect_err "option without value is named" "option '--rules' needs a value"
run "$bin" check --format xml fixtures/demo
expect_rc "invalid --format is a usage error" 2
expect_err "invalid --format lists the formats" "(valid: full, concise, json, jsonl, sarif, github, diff)"
run "$bin" check --color=sometimes fixtures/demo
expect_rc "invalid --color is a usage error" 2
run "$bin" check --config x.yml --isolated fixtures/demo
expect_rc "--config with --isolated is a usage error" 2
expect_err "--config with --isolated is explained" "cannot be used together"

# --- the demo --------------------------------------------------------------------
run "$bin" diff fixtures/demo
expect_rc "diff of the demo exits 1" 1
printf '%s\n' "$out" >"$tmp/demo.diff"
same_files "demo diff is the expected one" "$tmp/demo.diff" fixtures/demo.expected.diff
run "$bin" check fixtures/demo
expect_rc "check of the demo exits 1" 1
bad=$(printf '%s\n' "$out" | grep -v -E '^fixtures/demo/[a-z_/]+\.py:[0-9]+:[0-9]+: MPS[0-9]{3} (\[\*\] )?.+$' || true)
if [ -z "$bad" ]; then ok "check lines are path:line:col: CODE [*] message"; else fail "check line format" "$bad"; fi
expect_err "check prints a summary" "files scanned"

# git apply of the diff reproduces fix exactly; fix twice changes nothing
mkdir -p "$tmp/a" "$tmp/b"
cp -R fixtures/demo "$tmp/a/demo"
cp -R fixtures/demo "$tmp/b/demo"
(cd "$tmp/a" && "$bin" diff demo >"$tmp/a.diff" 2>/dev/null)
(cd "$tmp/a" && git apply "$tmp/a.diff") && ok "git apply accepts the diff" || fail "git apply accepts the diff"
(cd "$tmp/b" && "$bin" fix demo >/dev/null 2>&1)
if diff -r "$tmp/a/demo" "$tmp/b/demo" >/dev/null; then ok "git apply of diff == fix"
else fail "git apply of diff == fix" "$(diff -r "$tmp/a/demo" "$tmp/b/demo" | head -20)"; fi
cp -R "$tmp/b/demo" "$tmp/b/demo.once"
(cd "$tmp/b" && "$bin" fix demo >/dev/null 2>&1)
if diff -r "$tmp/b/demo" "$tmp/b/demo.once" >/dev/null; then ok "fix twice changes nothing"
else fail "fix twice changes nothing"; fi
run "$bin" diff "$tmp/b/demo"
expect_rc "diff after fix is empty (exit 0)" 0
[ -z "$out" ] && ok "diff after fix prints nothing" || fail "diff after fix prints nothing" "$out"
left=$(find "$tmp/b" -name '.*mpsfix*' | head -1)
[ -z "$left" ] && ok "fix leaves no temporary files" || fail "fix leaves no temporary files" "$left"

# a diff of absolute or ./ paths names them relative to the current folder
mkdir -p "$tmp/abs"
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/abs/a.py"
(cd "$tmp/abs" && "$bin" diff "$tmp/abs/a.py" 2>/dev/null >"$tmp/abs.diff"; "$bin" diff ./a.py 2>/dev/null >"$tmp/rel.diff")
head -n 1 "$tmp/abs.diff" | grep -qx 'diff --git a/a.py b/a.py' && ok "diff names absolute paths relative to here" ||
	fail "diff names absolute paths relative to here" "$(head -n 1 "$tmp/abs.diff")"
same_files "diff of ./a.py is the diff of a.py" "$tmp/abs.diff" "$tmp/rel.diff"
(cd "$tmp" && "$bin" diff abs/. 2>/dev/null >"$tmp/dot.diff")
head -n 1 "$tmp/dot.diff" | grep -qx 'diff --git a/abs/a.py b/abs/a.py' && ok "diff names have no '.' components" ||
	fail "diff names have no '.' components" "$(head -n 1 "$tmp/dot.diff")"
(cd "$tmp/abs" && git apply "$tmp/abs.diff") && ! grep -q non_blocking "$tmp/abs/a.py" &&
	ok "git apply of an absolute-path diff" || fail "git apply of an absolute-path diff"

# every fix CPython can compile: the fixed demo, and each fixture whose input compiles
if command -v python3 >/dev/null 2>&1; then
	compiles() { python3 -c 'import sys; compile(open(sys.argv[1], "rb").read(), sys.argv[1], "exec")' "$1" 2>/dev/null; }
	bad=""
	for f in "$tmp"/b/demo/*.py; do compiles "$f" || bad="$bad $f"; done
	for d in fixtures/rules/*/*/; do
		if compiles "$d/input.py" && ! compiles "$d/expected.py"; then bad="$bad $d"; fi
	done
	[ -z "$bad" ] && ok "fixed code compiles under CPython" || fail "fixed code compiles under CPython" "$bad"
fi

# inside a git work tree, diff names files from its top, so git apply works from a subfolder
mkdir -p "$tmp/repo/sub"
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/repo/sub/s.py"
(cd "$tmp/repo" && git init -q && git add -A &&
	git -c user.email=t@example.com -c user.name=t commit -q -m init) >/dev/null 2>&1
(cd "$tmp/repo/sub" && { "$bin" diff s.py 2>/dev/null >"$tmp/sub.diff"; git apply "$tmp/sub.diff"; })
head -n 1 "$tmp/sub.diff" | grep -qx 'diff --git a/sub/s.py b/sub/s.py' && ! grep -q non_blocking "$tmp/repo/sub/s.py" &&
	ok "diff from a subfolder of a git work tree applies" || fail "diff from a subfolder of a git work tree applies" "$(head -n 1 "$tmp/sub.diff")"

# file mode is kept by fix
mkdir -p "$tmp/mode"
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/mode/m.py"
chmod 640 "$tmp/mode/m.py"
run "$bin" fix "$tmp/mode/m.py"
expect_rc "fix of everything exits 0" 0
[ "$(file_mode "$tmp/mode/m.py")" = 640 ] && ok "fix keeps the file mode" || fail "fix keeps the file mode" "$(file_mode "$tmp/mode/m.py")"
[ "$(cat "$tmp/mode/m.py")" = "$(printf 'import torch\ny = x.to("mps")')" ] && ok "fix writes the fix" || fail "fix writes the fix" "$(cat "$tmp/mode/m.py")"

# a symlink found in a folder that leads outside it is never written through
mkdir -p "$tmp/sl/root" "$tmp/sl/outside"
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/sl/outside/o.py"
cp "$tmp/sl/outside/o.py" "$tmp/sl/root/in.py"
cp "$tmp/sl/outside/o.py" "$tmp/sl/o.orig"
ln -s ../outside/o.py "$tmp/sl/root/link.py"
run "$bin" fix "$tmp/sl/root"
expect_err "symlink leaving the folder is reported" "link.py: not fixed: a symbolic link to a file outside"
expect_out "symlink leaving the folder: its finding needs a manual fix" "(needs a manual fix: a symbolic link to a file outside"
same_files "symlink leaving the folder is not written through" "$tmp/sl/outside/o.py" "$tmp/sl/o.orig"
[ -L "$tmp/sl/root/link.py" ] && ok "the symlink stays a symlink" || fail "the symlink stays a symlink"
grep -q non_blocking "$tmp/sl/root/in.py" && fail "files inside the folder are fixed" || ok "files inside the folder are fixed"
run "$bin" check --format concise "$tmp/sl/root"
expect_out "symlink leaving the folder: check says what fix will do" \
	"link.py:2:5: MPS006 non_blocking=True copies to MPS can corrupt data (needs a manual fix: a symbolic link to a file outside"
run "$bin" fix "$tmp/sl/root//"
same_files "symlink guard holds for 'root//'" "$tmp/sl/outside/o.py" "$tmp/sl/o.orig"

# a module named for another accelerator beside one named for MPS (Lightning's
# accelerators/cuda.py beside mps.py): its functions run where that one is chosen
mkdir -p "$tmp/accel/backends" "$tmp/accel/utils"
printf 'import torch\n\n\ndef clear():\n    torch.cuda.synchronize()\n\n\nclass CUDAish:\n    def sync(self):\n        torch.cuda.synchronize()\n\n\ntorch.cuda.synchronize()\n' >"$tmp/accel/backends/cuda.py"
: >"$tmp/accel/backends/mps.py"
cp "$tmp/accel/backends/cuda.py" "$tmp/accel/utils/cuda_utils.py"
run "$bin" check --format concise "$tmp/accel"
expect_no_out "accelerator modules: cuda.py's functions beside mps.py are not reported" "backends/cuda.py:5:"
expect_no_out "accelerator modules: nor its classes' methods" "backends/cuda.py:10:"
expect_out "accelerator modules: its top level runs wherever it is imported" "backends/cuda.py:13:1: MPS008"
expect_out "accelerator modules: without an MPS module beside it, reported" "utils/cuda_utils.py:5:5: MPS008"

# --- bad input: clear message, the run goes on, nothing written wrongly ----------
# the committed bad files: exact output, both streams
run "$bin" check fixtures/bad
expect_rc "check fixtures/bad exits 1 (findings; skips are not errors)" 1
printf '%s\n' "$out" >"$tmp/bad.out"
printf '%s\n' "$err" >"$tmp/bad.err"
same_files "check fixtures/bad: standard output" "$tmp/bad.out" fixtures/bad/expected.out
same_files "check fixtures/bad: standard error" "$tmp/bad.err" fixtures/bad/expected.err
mkdir -p "$tmp/bad"
cp fixtures/bad/* "$tmp/bad/"
printf 'import torch\nloader = torch.utils.data.DataLoader(ds, pin_memory=True)\n' >"$tmp/bad/zz_good.py"
# 10 MB of valid Python with a finding on its last line
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "value_%d = compute(%d, scale=0.5)\n", i, i; print "y = x.to(\"mps\", non_blocking=True)" }' >"$tmp/bad/big.py"
# 5,000 nested parentheses
awk 'BEGIN { s = ""; for (i = 0; i < 5000; i++) s = s "("; s = s "x"; for (i = 0; i < 5000; i++) s = s ")"; print "import torch"; print "y = " s ".to(\"mps\", non_blocking=True)" }' >"$tmp/bad/nested.py"
# 100,000 brackets never closed (the tree-sitter 0.20 runtime corrupted its heap on it):
# parsed, and the error recovery takes in the finding before them
awk 'BEGIN { s = ""; for (i = 0; i < 100000; i++) s = s "("; print "import torch"; print "y = torch.std_mean(x)"; print "z = " s }' >"$tmp/bad/unclosed.py"
mkfifo "$tmp/bad/fifo.py"
mkdir "$tmp/bad/dir.py"
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/bad/unreadable.py"
chmod 000 "$tmp/bad/unreadable.py"
cp -R "$tmp/bad" "$tmp/bad.orig"

as_user=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	# root reads anything: run as nobody to see the permission error
	chmod -R o+rwX "$tmp/bad"
	chmod 000 "$tmp/bad/unreadable.py"
	as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi
# (the timeout guards against a hang, it times nothing: big.py takes 10 s
# here, 40 s under ASan beside another suite, more beside make -j2's others)
run timeout 120 $as_user "$bin" check "$tmp/bad" "$tmp/bad/fifo.py"
expect_rc "bad files: exit 2 after an unreadable file" 2
expect_err "binary file is skipped" "binary.py: skipped: binary file"
expect_err "NUL byte is located" "nul-byte.py: skipped: binary file (NUL byte at line 3"
expect_err "invalid UTF-8 is located" "invalid-utf8.py:2:5: skipped: invalid UTF-8"
expect_err "unreadable file is reported" "unreadable.py: cannot open: Permission denied"
expect_err "FIFO is not read" "fifo.py: skipped: not a regular file"
expect_out "the run goes on to good files" "zz_good.py:2:10: MPS101 [*]"
expect_out "unclosed brackets are parsed, not crashed on" "unclosed.py:2:5: MPS001 torch.std_mean has no MPS kernel before torch 2.4: split it into torch.std and torch.mean (needs a manual fix: inside a syntax error)"
expect_out "big file is checked to its end" "big.py:300001:5: MPS006 [*]"
expect_out "deeply nested file is checked" "nested.py:2:5: MPS006 [*]"
expect_out "syntax-error file: findings outside the error" "syntax-error.py"
expect_out "syntax-error file: no fix inside the error" "needs a manual fix: inside a syntax error"

run timeout 120 $as_user "$bin" fix "$tmp/bad" "$tmp/bad/fifo.py"
expect_rc "fix over bad files: exit 2" 2
for f in binary.py nul-byte.py invalid-utf8.py empty.py unclosed.py; do
	same_files "fix leaves $f untouched" "$tmp/bad/$f" "$tmp/bad.orig/$f"
done
grep -q 'pin_memory=not torch.backends.mps.is_available()' "$tmp/bad/zz_good.py" && ok "fix still fixes the good file" || fail "fix still fixes the good file"
grep -q 'non_blocking' "$tmp/bad/big.py" && fail "big file fixed" || ok "big file fixed"
if grep -q 'non_blocking' "$tmp/bad/syntax-error.py"; then ok "syntax-error file: broken statement untouched"; else fail "syntax-error file: broken statement untouched"; fi
run timeout 60 "$bin" check "$tmp/bad/empty.py"
expect_rc "empty file is clean" 0
if [ -n "$as_user" ]; then
	# a writable file in a folder that takes no new file (the fix's temporary
	# file): not fixed, its findings reported as check reports them
	mkdir -p "$tmp/nowrite/sub"
	printf 'import torch
y = x.to("mps", non_blocking=True)
' >"$tmp/nowrite/sub/a.py"
	chmod 666 "$tmp/nowrite/sub/a.py"
	chmod 755 "$tmp/nowrite/sub"
	run $as_user "$bin" fix --isolated "$tmp/nowrite/sub/a.py"
	expect_rc "fix in a folder that takes no new file: exit 1 (the finding left)" 1
	expect_err "fix in a folder that takes no new file: why" "a.py: not fixed: its folder"
	expect_out "fix in a folder that takes no new file: its finding reported" "a.py:2:5: MPS006"
fi

# --- what could not be checked: said only with -v/--verbose; what stops a fix always
mkdir -p "$tmp/star"
printf 'from torch.amp import *\nimport torch\ns = GradScaler("mps")\ny = x.to("mps", non_blocking=True)\n' \
	>"$tmp/star/s.py"
run "$bin" check --isolated "$tmp/star"
expect_rc "a star import: check exits 1" 1
expect_out "a star import: its file is still checked" "s.py:4:5: MPS006 [*]"
expect_no_err "a star import: nothing said of it by default" "cannot resolve"
expect_eq "a star import: only the summary on standard error" "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1
run "$bin" check --isolated --verbose "$tmp/star"
expect_err "--verbose: the names a star import brings in" \
	"s.py:1:1: cannot resolve the names \`from torch.amp import *\` brings in; calls through them are not checked"
run "$bin" -v diff --isolated "$tmp/star"
expect_err "-v before the command: the same" "cannot resolve the names \`from torch.amp import *\`"
run "$bin" check --isolated --no-default-rules --rules fixtures/engine/matching-gives-up-with-a-warning/rule.yml \
	fixtures/engine/matching-gives-up-with-a-warning/input.py
expect_no_err "matching given up: nothing said by default" "gave up"
run "$bin" check -v --isolated --no-default-rules --rules fixtures/engine/matching-gives-up-with-a-warning/rule.yml \
	fixtures/engine/matching-gives-up-with-a-warning/input.py
expect_err "--verbose: matching given up" "input.py:1:1: MPS999: gave up matching here"
run "$bin" diff --isolated --no-default-rules --rules fixtures/engine/fix-that-breaks-syntax-is-dropped/rule.yml \
	fixtures/engine/fix-that-breaks-syntax-is-dropped/input.py
expect_err "fixes not applied: said without --verbose" "input.py: 1 fix not applied: the fixed code would not parse"
# a module imported from the file's own folder that raises at import on a Mac
# (sibling.h): read beside the file, and beside --stdin-filename's file
sib=fixtures/engine/reach-sibling-import-fails
run "$bin" check --isolated --no-default-rules --rules $sib/rule.yml $sib/input.py
expect_rc "a sibling module failing on import: nothing reported" 0
"$bin" check --isolated --no-default-rules --rules $sib/rule.yml --stdin-filename $sib/input.py - \
	<$sib/input.py >"$tmp/out" 2>"$tmp/err"
rc=$? err=$(cat "$tmp/err")
expect_rc "the same from standard input named by --stdin-filename" 0
"$bin" check --isolated --no-default-rules --rules $sib/rule.yml - <$sib/input.py >"$tmp/out" 2>"$tmp/err"
rc=$? out=$(cat "$tmp/out")
expect_out "standard input with no file name: no folder, reported" "-:7:1: MPS901 probe"

# a default every call of the project's other modules passes is never used
# (project.h): read in the project (a folder with pyproject.toml, here
# outside any git work tree), whatever the command line names
proj="$tmp/proj"
mkdir -p "$proj/pkg" "$proj/conf"
printf '[project]\nname = "p"\n' >"$proj/pyproject.toml"
printf 'from .loader import Prefetch, helper\n' >"$proj/pkg/__init__.py"
cat >"$proj/pkg/loader.py" <<'PY'
import torch


class Prefetch:
    def __init__(self, loader, device="cuda"):
        self.device = device

    def again(self) -> "Prefetch":
        return self


class Built:
    def __init__(self, device="cuda"):
        self.device = device


def helper(x, device="cuda"):
    return x.to(device)


class FromConfig:
    def __init__(self, device="cuda"):
        self.device = device
        self.name = self.__class__.__name__

    @classmethod
    def build(cls, cfg):
        return cls(**cfg)


def unwrap(p: Prefetch) -> Prefetch:
    return p


class Pretrained(PreTrainedModel):
    def __init__(self, config, device="cuda"):
        self.device = device
PY
cat >"$proj/train.py" <<'PY'
from pkg import Prefetch, helper
from pkg.loader import Built, FromConfig, Pretrained

FromConfig(device="cpu")
Pretrained(cfg, device="cpu")


def main(args, xs):
    Built(args.device)
    helper(xs, device=args.device)
    return Prefetch(xs, device=args.device)
PY
run "$bin" check --isolated --select MPS205 "$proj"
expect_out "a class that builds itself unnamed (cls(**cfg)): reported" "loader.py:22:31: MPS205"
expect_out "a class with a base that may build it (from_pretrained): reported" "loader.py:36:39: MPS205"
for line in 5 13 17; do
	expect_no_out "every call in the project passes the device (line $line): not reported" "loader.py:$line:"
done
run "$bin" check --isolated --select MPS205 "$proj/pkg/loader.py"
expect_no_out "the same when the module alone is named" "loader.py:17:"
printf 'from pkg.loader import helper\nhelper(1)\n' >"$proj/demo.py"
printf 'model:\n  _target_: pkg.loader.Built\n' >"$proj/conf/model.yaml"
run "$bin" check --isolated --select MPS205 "$proj"
expect_out "a call leaving it out: reported" "loader.py:17:22: MPS205"
expect_out "a configuration naming the class: reported" "loader.py:13:31: MPS205"
expect_no_out "the class every call passes it to: not reported" "loader.py:5:"
# a class method's cls(...) is a call of __init__; `import X as X` (PEP 484's
# re-export) binds X itself
cat >>"$proj/pkg/loader.py" <<'PY'


class Buffer:
    def __init__(self, capacity, device="cuda"):
        self.device = device

    @classmethod
    def from_data(cls, data, device="cuda"):
        return cls(len(data), device=device)
PY
printf 'from .loader import Buffer as Buffer\n' >>"$proj/pkg/__init__.py"
printf 'from pkg import Buffer\nb = Buffer(3, device="cpu")\nc = Buffer.from_data([], device="cpu")\n' >"$proj/buf.py"
run "$bin" check --isolated --select MPS205 "$proj"
expect_no_out "every call passes it, cls(...) too: not reported" "loader.py:41:"
expect_out "a class method's own default: reported (methods are not followed into other modules)" \
	"loader.py:45:"
sed 's/return cls(len(data), device=device)/return cls(len(data))/' "$proj/pkg/loader.py" >"$proj/l.tmp"
mv "$proj/l.tmp" "$proj/pkg/loader.py"
run "$bin" check --isolated --select MPS205 "$proj"
expect_out "a cls(...) leaving it out: reported" "loader.py:41:"
rm "$proj/buf.py"
# MPS104: a fallback taken only when no device is given, where every call gives one
cat >"$proj/pkg/faces.py" <<'PY'
import torch


class FaceHelper:
    def __init__(self, upscale, device=None):
        if device is None:
            self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        else:
            self.device = device
PY
printf 'from pkg.faces import FaceHelper\nh = FaceHelper(2, device="cpu")\n' >"$proj/crop.py"
run "$bin" check --isolated --select MPS104 "$proj"
expect_rc "a fallback every call in the project makes dead: not reported" 0
printf 'from pkg.faces import FaceHelper\nh = FaceHelper(2)\n' >"$proj/crop2.py"
run "$bin" check --isolated --select MPS104 "$proj"
expect_out "a call that gives no device: reported" "faces.py:7:40: MPS104"
# a script's public function that only CUDA-only code calls (callers.h),
# when no other file of the project names it (timm's benchmark.py)
cat >"$proj/bench.py" <<'PY'
import time

import torch


def cuda_timestamp(device=None):
    torch.cuda.synchronize(device)
    return time.perf_counter()


def main(device):
    if device.type == "cuda":
        fn = cuda_timestamp
    else:
        fn = time.perf_counter
    return fn()


if __name__ == "__main__":
    main(torch.device("cpu"))
PY
run "$bin" check --isolated --select MPS008 "$proj"
expect_rc "a script function only a CUDA branch names: not reported" 0
printf 'from bench import cuda_timestamp\n' >"$proj/timing.py"
run "$bin" check --isolated --select MPS008 "$proj"
expect_out "named by another module: reported" "bench.py:7:5: MPS008"

# --- broken rule files: exit 2, a file:line:col message, no partial run ----------
for f in fixtures/bad-rules/*.yml; do
	name=$(basename "$f" .yml)
	run "$bin" check --rules "$f" fixtures/demo
	expect_rc "broken rule $name: exit 2" 2
	want="mpsfix: $(head -n 1 "fixtures/bad-rules/$name.expected")"
	got=$(printf '%s\n' "$err" | head -n 1)
	[ "$got" = "$want" ] && ok "broken rule $name: message" || fail "broken rule $name: message" "want: $want" "got:  $got"
	[ -z "$out" ] && ok "broken rule $name: no partial run" || fail "broken rule $name: no partial run" "$out"
done

# --- the pinned grammar: a checksum mismatch stops the build ---------------------
mkdir -p "$tmp/g/cache"
cp grammars/fetch.sh "$tmp/g/"
sed 's/^integrity=sha512-./integrity=sha512-X/' grammars/tree-sitter-python.pin >"$tmp/g/tree-sitter-python.pin"
version=$(sed -n 's/^version=//p' grammars/tree-sitter-python.pin)
if [ -f "grammars/cache/tree-sitter-python-$version.tgz" ]; then
	cp "grammars/cache/tree-sitter-python-$version.tgz" "$tmp/g/cache/"
	run sh "$tmp/g/fetch.sh"
	[ "$rc" != 0 ] && ok "grammar checksum mismatch fails" || fail "grammar checksum mismatch fails"
	expect_err "grammar checksum mismatch is explained" "checksum mismatch"
	[ ! -d "$tmp/g/tree-sitter-python" ] && ok "mismatched grammar is not unpacked" || fail "mismatched grammar is not unpacked"
fi

# --- make install: the installed binary finds its installed rules --------------
# (built in a copy of the build folder: make install compiles its rules folder
# into main.o, and the binary under test stays as it is)
copy_build "$tmp/o"
run make -s -C "$top" install O="$tmp/o" DESTDIR="$tmp/inst" PREFIX=/usr
expect_rc "make install into DESTDIR" 0
if [ -x "$tmp/inst/usr/bin/mpsfix" ]; then
	# it looks beside itself (../share/mpsfix/rules), never in this source tree
	run env -u MPSFIX_RULES_DIR "$tmp/inst/usr/bin/mpsfix" diff fixtures/demo
	printf '%s\n' "$out" >"$tmp/inst.diff"
	same_files "installed binary gives the demo diff" "$tmp/inst.diff" fixtures/demo.expected.diff
	[ -f "$tmp/inst/usr/share/man/man1/mpsfix.1" ] && [ -f "$tmp/inst/usr/share/man/man5/mpsfix-rules.5" ] &&
		ok "man pages installed" || fail "man pages installed"
	run make -s -C "$top" uninstall DESTDIR="$tmp/inst" PREFIX=/usr
	left=$(find "$tmp/inst" -type f | head -3)
	[ -z "$left" ] && ok "make uninstall removes everything" || fail "make uninstall removes everything" "$left"
else
	fail "installed binary exists"
fi

# --- mpsfix test ---------------------------------------------------------------
run "$bin" test rules
expect_rc "shipped rule examples pass" 0
expect_out "test prints counts" " passed, 0 failed"

# control characters of a repository's file names and lines never reach the terminal
mkdir -p "$tmp/esc"
esc=$(printf '\033')
printf 'import torch\ny = x.to("mps", non_blocking=True)  # \033[31mRED\033]0;title\007\n' >"$tmp/esc/e${esc}[2Jv.py"
printf '\000' >"$tmp/esc/b${esc}.py"
run "$bin" check --isolated --format full "$tmp/esc"
case "$out$err" in
*"$esc"*) fail "no escape character reaches the terminal" "$(printf '%s\n%s' "$out" "$err" | od -c | head -n 5)" ;;
*) ok "no escape character reaches the terminal" ;;
esac
expect_out "a file name's control character shown as \\x1b" 'e\x1b[2Jv.py:2:5: MPS006'
expect_out "a source line's control characters shown as \\xNN" '# \x1b[31mRED\x1b]0;title\x07'
expect_err "a message's file name too" 'b\x1b.py: skipped: binary file'

test_done
