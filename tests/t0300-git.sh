#!/bin/sh
# End-to-end tests of mpsfix commit and mpsfix patch on copies of the demo
# project, each in a repository of its own: one commit per rule, --squash,
# --signoff, --branch (HEAD, index and work tree byte for byte as before),
# the dirty-tree refusal and --allow-dirty (the user's change stays
# uncommitted), patches that `git am` applies to the same tree, linked
# worktrees, detached HEAD, a repository without commits, submodules, and
# `git fsck` after each.  The tests use the git command; mpsfix does not.
# Prints 'N passed, N failed'.
# usage: sh tests/t0300-git.sh [path/to/mpsfix [path/to/preload_change.so]]
. "$(dirname "$0")/test-lib.sh"
shim=${2:-$build/tests/preload_change.so}
case $shim in /*) ;; *) shim=$top/$shim ;; esac

isolate
git config --global init.defaultBranch main
git config --global protocol.file.allow always

# what must not change: HEAD, the branch, the index file, the staged entries, the files
state() { # dir
	(cd "$1" && git rev-parse HEAD && git symbolic-ref -q HEAD; cksum .git/index;
		git ls-files -s; cksum *.py; git status --porcelain)
}

expect_fsck() { # name dir: no error, no missing or broken object
	f=$(cd "$2" && git fsck --strict 2>&1)
	fr=$?
	bad=$(printf '%s\n' "$f" | grep -v '^dangling ' | grep -v '^$')
	if [ "$fr" = 0 ] && [ -z "$bad" ]; then ok "$1"; else fail "$1" "git fsck: $fr" "$f"; fi
}

# the tree `mpsfix fix` makes of the demo (the reference for every commit test)
mkrepo "$tmp/ref"
(cd "$tmp/ref" && "$bin" fix -q --unsafe-fixes >/dev/null 2>&1; git add -A && git write-tree) >"$tmp/ref.tree"
fixed_tree=$(cat "$tmp/ref.tree")

# --- 1. one commit per rule ---------------------------------------------------------
mkrepo "$tmp/c1"
base=$(cd "$tmp/c1" && git rev-parse HEAD)
run_in "$tmp/c1" "$bin" commit --unsafe-fixes --target-torch 2.1
expect_rc "commit: exit 0 (nothing left)" 0
expect_out "commit: prints each commit as git does" "[main "
expect_err "commit: summary" "4 files scanned, 3 commits (4 fixes), 0 findings left"
subjects=$(cd "$tmp/c1" && git log --reverse --format=%s "$base..HEAD")
expect_eq "commit: one commit per rule, in code order" "$subjects" \
"mpsfix: MPS006 to-mps-non-blocking: non_blocking=True copies to MPS can corrupt data (2 sites)
mpsfix: MPS101 dataloader-pin-memory: pin_memory does nothing on MPS: turn it off where MPS is available (1 site)
mpsfix: MPS104 device-selection-skips-mps: device selection never tries MPS: on a Mac this runs on the CPU (1 site)"
files=$(cd "$tmp/c1" && for c in $(git rev-list --reverse "$base..HEAD"); do git diff-tree --no-commit-id --name-only -r "$c"; done | tr '\n' ' ')
expect_eq "commit: each commit changes its rule's files" "$files" "train.py data.py device.py "
trailers=$(cd "$tmp/c1" && git log -1 --format=%B HEAD~2 | git interpret-trailers --parse)
expect_eq "commit: trailers" "$trailers" "Mpsfix-Rule: MPS006
Mpsfix-Target-Torch: 2.1"
body=$(cd "$tmp/c1" && git log -1 --format=%b HEAD~1)
case $body in *"See https://github.com/pytorch/pytorch/pull/131858"*"Files:"*"    data.py (1 site)"*) ok "commit: body with the rule, its source and the files" ;;
	*) fail "commit: body with the rule, its source and the files" "$body" ;; esac
who=$(cd "$tmp/c1" && git log -1 --format='%an <%ae> / %cn <%ce>')
expect_eq "commit: author and committer from the configuration" "$who" "Ada Lovelace <ada@example.com> / Ada Lovelace <ada@example.com>"
expect_eq "commit: the tree is what mpsfix fix makes" "$(cd "$tmp/c1" && git rev-parse HEAD^{tree})" "$fixed_tree"
expect_eq "commit: work tree and index follow (nothing to commit)" "$(cd "$tmp/c1" && git status --porcelain)" ""
expect_fsck "commit: git fsck clean" "$tmp/c1"
run_in "$tmp/c1" "$bin" commit --unsafe-fixes
expect_rc "commit again: exit 0" 0
expect_err "commit again: nothing to commit" "nothing to commit: no fix to make"
expect_eq "commit again: no new commit" "$(cd "$tmp/c1" && git rev-list --count "$base..HEAD")" "3"

# --- 2. --squash, --signoff, findings left -----------------------------------------
mkrepo "$tmp/c2"
run_in "$tmp/c2" "$bin" commit --squash -s
expect_rc "squash: exit 1 (the unsafe fix is left)" 1
expect_err "squash: says what is left" "1 finding left; target torch: every MPS-capable version; 1 more fixable with --unsafe-fixes"
expect_err "squash: names where it is" "device.py:9:25: MPS104 [~] device selection never tries MPS"
expect_eq "squash: one commit" "$(cd "$tmp/c2" && git log --format=%s -1)" "mpsfix: fix MPS006, MPS101 (3 sites)"
expect_eq "squash: trailers" "$(cd "$tmp/c2" && git log -1 --format=%B | git interpret-trailers --parse)" \
"Mpsfix-Rule: MPS006
Mpsfix-Rule: MPS101
Mpsfix-Target-Torch: >=1.12
Signed-off-by: Ada Lovelace <ada@example.com>"
mkrepo "$tmp/c2b"
run_in "$tmp/c2b" "$bin" commit --squash --unsafe-fixes
expect_eq "squash: the same tree as one commit per rule" "$(cd "$tmp/c2b" && git rev-parse HEAD^{tree})" "$fixed_tree"
expect_fsck "squash: git fsck clean" "$tmp/c2"

# --- 3. --branch: HEAD, index and work tree untouched ---------------------------------
mkrepo "$tmp/c3"
(cd "$tmp/c3" && echo '# my unstaged line' >>train.py && echo '# staged' >>model.py && git add model.py)
state "$tmp/c3" >"$tmp/c3.before"
run_in "$tmp/c3" "$bin" commit --unsafe-fixes --branch mps-fixes
expect_rc "branch: exit 0" 0
expect_out "branch: the commits name the new branch" "[mps-fixes "
expect_err "branch: says HEAD is as it was" "the commits are on branch mps-fixes; HEAD, the index and the work tree are as they were"
state "$tmp/c3" >"$tmp/c3.after"
same_files "branch: HEAD, index and work tree byte for byte as before" "$tmp/c3.before" "$tmp/c3.after"
expect_eq "branch: three commits on the branch" "$(cd "$tmp/c3" && git rev-list --count main..mps-fixes)" "3"
expect_eq "branch: made from HEAD, not from the work tree" "$(cd "$tmp/c3" && git rev-parse mps-fixes^{tree})" "$fixed_tree"
run_in "$tmp/c3" "$bin" commit --branch mps-fixes
expect_rc "branch: an existing branch is refused" 2
expect_err "branch: ... and named" "a branch named 'mps-fixes' already exists"
run_in "$tmp/c3" "$bin" commit --branch 'no..dots'
expect_err "branch: an invalid name is refused" "'no..dots' is not a valid branch name"
expect_fsck "branch: git fsck clean" "$tmp/c3"

# --- 4. uncommitted changes: refused, or kept with --allow-dirty -------------------------
mkrepo "$tmp/c4"
(cd "$tmp/c4" && printf '# mine, at the top\n' | cat - train.py >t && mv t train.py &&
	echo '# staged, at the end' >>data.py && git add data.py && echo '# not fixed' >>model.py)
state "$tmp/c4" >"$tmp/c4.before"
run_in "$tmp/c4" "$bin" commit
expect_rc "dirty: refused with exit 2" 2
expect_err "dirty: names the files and what is uncommitted" "data.py (staged changes), train.py (unstaged changes)"
expect_err "dirty: says what to do" "--allow-dirty"
case $err in *model.py*) fail "dirty: a file without fixes is not named" "$err" ;; *) ok "dirty: a file without fixes is not named" ;; esac
state "$tmp/c4" >"$tmp/c4.after"
same_files "dirty: nothing changed" "$tmp/c4.before" "$tmp/c4.after"
run_in "$tmp/c4" "$bin" commit --allow-dirty
expect_rc "allow-dirty: exit 1 (the unsafe fix is left)" 1
expect_eq "allow-dirty: the commits hold only the fixes" \
	"$(cd "$tmp/c4" && git show HEAD:train.py | grep -c 'mine'; git show HEAD:data.py | grep -c staged)" "0
0"
expect_eq "allow-dirty: the changes stay uncommitted where they were" "$(cd "$tmp/c4" && git status --porcelain)" \
"M  data.py
 M model.py
 M train.py"
expect_eq "allow-dirty: the unstaged change is the only difference in the work tree" \
	"$(cd "$tmp/c4" && git diff train.py | grep '^[-+][^-+]')" "+# mine, at the top"
expect_eq "allow-dirty: the staged change is the only difference in the index" \
	"$(cd "$tmp/c4" && git diff --cached | grep '^[-+][^-+]')" "+# staged, at the end"
expect_eq "allow-dirty: the work tree has the fix" "$(cd "$tmp/c4" && grep -c 'non_blocking=True' train.py)" "2"
expect_fsck "allow-dirty: git fsck clean" "$tmp/c4"
mkrepo "$tmp/c4b"
sed_i "$tmp/c4b/train.py" 's/images = images.to("mps", non_blocking=True)/images = images.to("mps", non_blocking=True).float()/'
state "$tmp/c4b" >"$tmp/c4b.before"
run_in "$tmp/c4b" "$bin" commit --allow-dirty
expect_rc "allow-dirty: a change on the fixed lines is refused" 2
expect_err "allow-dirty: ... naming the file" "train.py: the uncommitted change touches the lines the fix changes"
state "$tmp/c4b" >"$tmp/c4b.after"
same_files "allow-dirty: ... and nothing changed" "$tmp/c4b.before" "$tmp/c4b.after"

# --- 5. patch: git am gives the tree commit gives --------------------------------------
mkrepo "$tmp/p1"
(cd "$tmp/p1" && find .git -type f | sort | xargs cksum) >"$tmp/p1.before"
run_in "$tmp/p1" "$bin" patch --unsafe-fixes --output-directory "$tmp/patches"
expect_rc "patch: exit 0" 0
expect_eq "patch: prints the files, named as git format-patch names them" "$out" \
"$tmp/patches/0001-mpsfix-MPS006-to-mps-non-blocking-non_blocking-True-.patch
$tmp/patches/0002-mpsfix-MPS101-dataloader-pin-memory-pin_memory-does-.patch
$tmp/patches/0003-mpsfix-MPS104-device-selection-skips-mps-device-sele.patch"
(cd "$tmp/p1" && find .git -type f | sort | xargs cksum) >"$tmp/p1.after"
same_files "patch: nothing written to the repository (objects, refs, index)" "$tmp/p1.before" "$tmp/p1.after"
expect_eq "patch: the work tree untouched" "$(cd "$tmp/p1" && git status --porcelain)" ""
git clone -q "$tmp/p1" "$tmp/p1am"
(cd "$tmp/p1am" && git config user.name Reviewer && git config user.email r@example.com)
run_in "$tmp/p1am" git am "$tmp"/patches/*.patch
expect_rc "patch: git am applies the series" 0
expect_eq "patch: git am gives the tree of mpsfix commit" "$(cd "$tmp/p1am" && git rev-parse HEAD^{tree})" "$fixed_tree"
expect_eq "patch: git am keeps the author and the messages" \
	"$(cd "$tmp/p1am" && git log --reverse --format='%an|%s' -3)" \
"Ada Lovelace|mpsfix: MPS006 to-mps-non-blocking: non_blocking=True copies to MPS can corrupt data (2 sites)
Ada Lovelace|mpsfix: MPS101 dataloader-pin-memory: pin_memory does nothing on MPS: turn it off where MPS is available (1 site)
Ada Lovelace|mpsfix: MPS104 device-selection-skips-mps: device selection never tries MPS: on a Mac this runs on the CPU (1 site)"
expect_eq "patch: the trailers survive git am" \
	"$(cd "$tmp/p1am" && git log -1 --format=%B | git interpret-trailers --parse)" "Mpsfix-Rule: MPS104
Mpsfix-Target-Torch: >=1.12"
expect_fsck "patch: git fsck clean after git am" "$tmp/p1am"
run_in "$tmp/p1" "$bin" patch --unsafe-fixes --stdout --squash
expect_rc "patch --stdout: exit 0" 0
case $out in "From "*"Subject: [PATCH] mpsfix: fix MPS006, MPS101, MPS104 (4 sites)"*) ok "patch --stdout: one mbox" ;;
	*) fail "patch --stdout: one mbox" "$out" ;; esac
git clone -q "$tmp/p1" "$tmp/p1am2"
(cd "$tmp/p1am2" && git config user.name R && git config user.email r@example.com && git am -q) <"$tmp/out"
expect_eq "patch --stdout: git am reads it from standard input" "$(cd "$tmp/p1am2" && git rev-parse HEAD^{tree})" "$fixed_tree"
expect_no_err "patch: no CRLF note for LF files" "--keep-cr"
# a CRLF file: git am drops the CRs unless --keep-cr, which the note says
mkrepo "$tmp/p2"
(cd "$tmp/p2" && printf 'import torch\r\ny = torch.ones(1).to("mps", non_blocking=True)\r\n' >crlf.py &&
	git add crlf.py && git commit -qm crlf)
run_in "$tmp/p2" "$bin" patch --unsafe-fixes --stdout crlf.py
expect_err "patch, CRLF file: a note names git am --keep-cr" \
	"note: the patches change lines that end in CRLF, which git am drops by default: apply them with git am --keep-cr"
git clone -q "$tmp/p2" "$tmp/p2am"
(cd "$tmp/p2am" && git config user.name R && git config user.email r@example.com && git am -q --keep-cr) <"$tmp/out" 2>/dev/null
(cd "$tmp/p2" && "$bin" fix -q crlf.py)
same_files "patch, CRLF file: git am --keep-cr gives what fix gives" "$tmp/p2/crlf.py" "$tmp/p2am/crlf.py"
# a sender and a message outside ASCII: headers as git format-patch writes them
mkrepo "$tmp/p3"
(cd "$tmp/p3" && git config user.name 'Jörg Müller' && printf 'import torch\ny = torch.ones(1).to("mps", non_blocking=True)\n' >ü.py &&
	git add ü.py && git commit -qm 'ü')
run_in "$tmp/p3" "$bin" patch --unsafe-fixes --stdout ü.py
expect_out "patch, non-ASCII sender: an RFC 2047 word" "From: =?UTF-8?q?J=C3=B6rg=20M=C3=BCller?= <"
expect_out "patch, non-ASCII message: MIME headers naming UTF-8" "MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit"
git clone -q "$tmp/p3" "$tmp/p3am"
(cd "$tmp/p3am" && git config user.name R && git config user.email r@example.com && git am -q) <"$tmp/out"
expect_eq "patch, non-ASCII sender: git am gives the name back" "$(cd "$tmp/p3am" && git log -1 --format=%an)" "Jörg Müller"
# -o DIR is --output-directory DIR, as in git format-patch (before the command too)
names=$(cd "$tmp/patches" && ls)
run_in "$tmp/p1" "$bin" patch --unsafe-fixes -o "$tmp/patches-o"
expect_rc "patch -o DIR: exit 0" 0
expect_eq "patch -o DIR: the patches are written into DIR" "$(cd "$tmp/patches-o" && ls)" "$names"
expect_eq "patch -o DIR: their names printed" "$out" "$(printf '%s\n' "$names" | sed "s|^|$tmp/patches-o/|")"
run_in "$tmp/p1" "$bin" -o "$tmp/patches-o2" patch --unsafe-fixes
expect_eq "-o DIR before patch: the same" "$(cd "$tmp/patches-o2" && ls)" "$names"
expect_eq "patch -o DIR: nothing in the current folder" "$(cd "$tmp/p1" && git status --porcelain)" ""
run_in "$tmp/p1" "$bin" patch --output "$tmp/report.txt"
expect_rc "patch --output (reports): refused" 2
expect_err "patch --output: why" "option '--output' is for the reports of check, diff and fix, not patch"
run_in "$tmp/p1" "$bin" patch -o "$tmp/patches-o3" --stdout
expect_err "patch -o DIR --stdout: refused" "options '--stdout' and '--output-directory' cannot be used together"
run_in "$tmp/p1" "$bin" check -o "$tmp/report.txt"
expect_empty_out "check -o FILE is still --output"
[ -s "$tmp/report.txt" ] && [ ! -d "$tmp/report.txt" ] && ok "check -o FILE: the report is in FILE" ||
	fail "check -o FILE: the report is in FILE"
run_in "$tmp/p1" "$bin" commit -o "$tmp/x"
expect_err "commit -o: refused, as --output" "option '--output' is for the reports of check, diff and fix, not commit"
(cd "$tmp/p1" && git checkout -q --detach)
run_in "$tmp/p1" "$bin" patch --stdout
expect_rc "patch: a detached HEAD is fine" 1

# --- 6. linked worktree, detached HEAD, no commit, submodule, no identity --------------
mkrepo "$tmp/w1"
(cd "$tmp/w1" && git worktree add -q -b side "$tmp/w1-side" 2>/dev/null)
run_in "$tmp/w1-side" "$bin" commit --unsafe-fixes
expect_rc "worktree: exit 0" 0
expect_out "worktree: commits on the worktree's branch" "[side "
expect_eq "worktree: the other branch stays" "$(cd "$tmp/w1" && git log --format=%s -1 main)" "demo project"
expect_eq "worktree: its tree" "$(cd "$tmp/w1-side" && git rev-parse HEAD^{tree}; git status --porcelain)" "$fixed_tree"
expect_eq "worktree: the main work tree untouched" "$(cd "$tmp/w1" && git status --porcelain; grep -c non_blocking=True train.py)" "4"
expect_fsck "worktree: git fsck clean" "$tmp/w1"

mkrepo "$tmp/d1"
(cd "$tmp/d1" && git checkout -q --detach)
run_in "$tmp/d1" "$bin" commit
expect_rc "detached: refused" 2
expect_err "detached: says why and what to do" "HEAD is detached"
expect_err "detached: ... --branch" "give --branch NAME"
run_in "$tmp/d1" "$bin" commit --branch from-detached
expect_rc "detached: --branch works (findings left)" 1
expect_eq "detached: HEAD stays detached where it was" "$(cd "$tmp/d1" && git rev-parse HEAD; git symbolic-ref -q HEAD || echo detached)" \
	"$(cd "$tmp/d1" && git rev-parse main)
detached"

# an index another git holds: refused before any commit (a branch moved over
# an index left behind makes the next `git commit` undo the fixes)
mkrepo "$tmp/l1"
before=$(state "$tmp/l1")
: >"$tmp/l1/.git/index.lock"
run_in "$tmp/l1" "$bin" commit
expect_rc "index locked: refused" 2
expect_err "index locked: says why" "the index is locked ("
expect_eq "index locked: nothing committed or written" "$(state "$tmp/l1")" "$before"
rm -f "$tmp/l1/.git/index.lock"

# a repository git reads and libgit2 cannot (SHA-256 objects): its folder is
# walked, with a warning, rather than the run failing
if git init -q --object-format=sha256 "$tmp/sha" 2>/dev/null; then
	cp fixtures/demo/train.py "$tmp/sha/"
	run_in "$tmp/sha" "$bin" check --format concise
	expect_rc "SHA-256 repository: checked (findings: exit 1)" 1
	expect_out "SHA-256 repository: its files are read" "train.py:"
	expect_err "SHA-256 repository: the walk is said" "its git repository cannot be read ("
else
	ok "SHA-256 repository: not run (this git has no --object-format)"
fi
# a damaged index is an error, not a walk (the walk would read ignored files)
mkrepo "$tmp/bad-index"
head -c 20 /dev/urandom >"$tmp/bad-index/.git/index"
run_in "$tmp/bad-index" "$bin" check
expect_rc "damaged index: exit 2" 2
expect_no_err "damaged index: no walk" "walked instead"

# a work tree file that cannot be written once the commits are made: the
# branch goes back, so that no commit sits over an index that lacks it
if [ "$(uname -s)" != Linux ]; then
	ok "work tree not writable: not run (the shim is an LD_PRELOAD library, Linux's)"
elif [ -f "$shim" ]; then
	mkrepo "$tmp/wf"
	head_before=$(cd "$tmp/wf" && git rev-parse HEAD; cksum .git/index)
	run_in "$tmp/wf" env LD_PRELOAD="$shim" MPSFIX_TEST_FAIL_CREATE=train.py \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$bin" commit
	expect_rc "work tree not writable: exit 2" 2
	expect_err "work tree not writable: the branch moves back" "the branch is back where it was"
	expect_eq "work tree not writable: HEAD and the index as before" \
		"$(cd "$tmp/wf" && git rev-parse HEAD; cksum .git/index)" "$head_before"
else
	fail "work tree not writable: $shim is missing (make builds it)"
fi

mkdir -p "$tmp/e1" && cp fixtures/demo/train.py "$tmp/e1/"
(cd "$tmp/e1" && git init -q && git config user.name A && git config user.email a@example.com && git add train.py)
run_in "$tmp/e1" "$bin" commit
expect_rc "no commit yet: refused" 2
expect_err "no commit yet: says why" "has no commit yet: mpsfix records its fixes on top of a commit and never commits your files for you"
run_in "$tmp/e1" "$bin" patch
expect_rc "no commit yet: patch refused too" 2
expect_eq "no commit yet: nothing written" "$(cd "$tmp/e1" && git rev-parse -q --verify HEAD; git status --porcelain)" "A  train.py"

mkrepo "$tmp/sub-src"
mkrepo "$tmp/s1"
(cd "$tmp/s1" && git submodule add -q "$tmp/sub-src" vendor/demo 2>/dev/null && git commit -qm 'add submodule')
run_in "$tmp/s1" "$bin" commit --unsafe-fixes
expect_rc "submodule: exit 0" 0
expect_err "submodule: a note that its files are skipped" "note: vendor/demo: a submodule: its files are skipped"
expect_eq "submodule: only the superproject's files" "$(cd "$tmp/s1" && git rev-list --count HEAD~3..HEAD; git -C vendor/demo status --porcelain; git -C vendor/demo rev-list --count HEAD)" "3
1"
run_in "$tmp/s1" "$bin" commit vendor/demo/train.py
expect_err "submodule: a file in it, named, is skipped with a note" "vendor/demo/train.py: inside submodule 'vendor/demo': skipped"
expect_fsck "submodule: git fsck clean" "$tmp/s1"

mkrepo "$tmp/n1"
(cd "$tmp/n1" && git config --unset user.name && git config --unset user.email)
run_in "$tmp/n1" "$bin" commit
expect_rc "no identity: refused" 2
expect_err "no identity: says how to set it" "git config user.name"

# a branch lock left by a killed git (or mpsfix): refused with what to do, nothing moves
mkrepo "$tmp/l1"
l1_head=$(cd "$tmp/l1" && git rev-parse HEAD)
: >"$tmp/l1/.git/refs/heads/main.lock"
run_in "$tmp/l1" "$bin" commit
expect_rc "branch locked: refused" 2
expect_err "branch locked: names the lock file" "main.lock"
expect_err "branch locked: says what to do" "if none is, remove the .lock file and try again"
expect_eq "branch locked: HEAD stays" "$(cd "$tmp/l1" && git rev-parse HEAD)" "$l1_head"
rm -f "$tmp/l1/.git/refs/heads/main.lock"
run_in "$tmp/l1" "$bin" commit
expect_out "branch lock removed: commits" "[main "

mkdir -p "$tmp/plain" && cp fixtures/demo/train.py "$tmp/plain/"
run_in "$tmp/plain" "$bin" commit
expect_rc "not a work tree: refused" 2
expect_err "not a work tree: says so" "not in a git work tree"

# --- 7. what the commands refuse ---------------------------------------------------------
run_in "$tmp/c1" "$bin" review
expect_rc "review: refused without a terminal" 2
expect_err "review: ... politely" "review asks about each fix on a terminal, and standard input is not one"
run_in "$tmp/c1" "$bin" commit --staged
expect_err "commit --staged: refused" "--staged reads files from the index"
run_in "$tmp/c1" "$bin" commit -
expect_err "commit -: refused" "standard input ('-') cannot be used"
run_in "$tmp/c1" "$bin" commit --stdout
expect_err "commit --stdout: refused" "option '--stdout' is for patch, not commit"

# --- 8. skip-paths in a series: the path inside the work tree, not the folders above it -----
mkdir -p "$tmp/tests/sk"
mkrepo "$tmp/tests/sk"
mkdir -p "$tmp/tests/sk/tests/sub"
printf 'import torch\nloader = torch.utils.data.DataLoader(range(4), pin_memory=True)\n' >"$tmp/tests/sk/tests/sub/x.py"
(cd "$tmp/tests/sk" && git add . && git commit -qm 'a test')
run_in "$tmp/tests/sk/tests/sub" "$bin" patch --isolated --select MPS101 --stdout x.py
expect_no_out "patch: a file named in the work tree's tests folder is skipped" "pin_memory=not torch"
run_in / "$bin" patch --isolated --select MPS101 --stdout "$tmp/tests/sk/tests/sub/x.py"
expect_err "patch: outside the work tree, refused" "not in a git work tree"
run_in "$tmp/tests/sk" "$bin" patch --isolated --select MPS101 --stdout "$tmp/tests/sk/data.py"
expect_out "patch: a tests folder above the work tree is not the project's" "pin_memory=not torch"

test_done
