#!/bin/sh
# End-to-end tests of torch targeting (--target-torch, target-torch:, the
# project's pins, the default), of the line length (--line-length,
# line-length:, the project's lint configuration, 88) and of `mpsfix rules` /
# `mpsfix explain`.
# Uses its own rule file (torch: '< 2.4') so that it does not depend on the
# shipped catalog.  Prints 'N passed, N failed'.
# usage: sh tests/t0200-target.sh [path/to/mpsfix]
. "$(dirname "$0")/test-lib.sh"

isolate

# the summary line (the last line of standard error)
expect_summary() { # name text
	last=$(printf '%s\n' "$err" | tail -n 1)
	if [ "$last" = "$2" ]; then ok "$1"; else fail "$1" "summary: $last" "expected: $2"; fi
}

# A rule that only affects torch before 2.4, with a fix; and one for every version.
rules=$tmp/rules
mkdir -p "$rules"
cat >"$rules/old-sync.yml" <<'EOF'
id: old-sync
code: MPS900
severity: error
message: "torch.mps.synchronize() is missing before 2.4 (test rule)"
note: |
  A rule of the test suite: it affects torch before 2.4 only.
url: https://example.org/old-sync
torch: '< 2.4'
match: 'torch.mps.synchronize()'
fix:
  safety: safe
  template: 'torch.cuda.synchronize()'
EOF
cat >"$rules/any-sync.yml" <<'EOF'
id: any-sync
code: MPS901
severity: warning
message: "torch.mps.empty_cache() (test rule)"
torch: all
match: 'torch.mps.empty_cache()'
EOF
cat >"$rules/new-lint.yml" <<'EOF'
id: new-lint
code: MPS902
severity: info
message: "torch.mps.profiler (test rule, off by default)"
torch: '>= 2.5'
enabled: false
match: 'torch.mps.profiler.start()'
EOF

# a project that pins torch 2.1 in requirements.txt
p=$tmp/proj
mkdir -p "$p/src"
printf 'numpy==1.26\ntorch==2.1.0\n' >"$p/requirements.txt"
cat >"$p/src/train.py" <<'EOF'
import torch
torch.mps.synchronize()
torch.mps.empty_cache()
torch.mps.profiler.start()
EOF
R="--no-default-rules --rules $rules"

# --- the done criterion ----------------------------------------------------------------
run_in "$p" "$bin" check $R --format concise
out_pins=$out rc_pins=$rc err_pins=$err
expect_rc "pins 2.1: exit 1" 1
expect_out "pins 2.1: the < 2.4 rule runs" "src/train.py:2:1: MPS900 [*]"
expect_out "pins 2.1: the rule for every version runs" "src/train.py:3:1: MPS901"
expect_no_out "an off-by-default rule does not run" "MPS902"
expect_summary "pins 2.1: the summary names requirements.txt:1... line 2" \
	"mpsfix: 1 file scanned, 2 findings (1 fixable); target torch 2.1 (requirements.txt:2)"
run_in "$p" "$bin" check $R --format concise --target-torch 2.1
if [ "$out" = "$out_pins" ] && [ "$rc" = "$rc_pins" ]; then ok "check --target-torch 2.1 reports what check does"
else fail "check --target-torch 2.1 reports what check does" "with the flag (exit $rc):" "$out" "without (exit $rc_pins):" "$out_pins"; fi
expect_summary "--target-torch 2.1: the summary names the option" \
	"mpsfix: 1 file scanned, 2 findings (1 fixable); target torch 2.1 (--target-torch)"
run_in "$p" "$bin" check $R --format concise --target-torch 2.5
expect_rc "--target-torch 2.5: exit 1" 1
if [ "$out" != "$out_pins" ]; then ok "--target-torch 2.5 reports something else"
else fail "--target-torch 2.5 reports something else" "$out"; fi
expect_no_out "--target-torch 2.5: the < 2.4 rule does not run" "MPS900"
expect_out "--target-torch 2.5: the rule for every version still runs" "MPS901"
expect_summary "--target-torch 2.5: summary" \
	"mpsfix: 1 file scanned, 1 finding (0 fixable); target torch 2.5 (--target-torch)"
run_in "$p" "$bin" check $R --format concise --target-torch 2.4
expect_no_out "< 2.4 leaves 2.4 out" "MPS900"
run_in "$p" "$bin" check $R --format concise --target-torch 2.3.1
expect_out "2.3.1 is 2.3: the rule runs" "MPS900"
run_in "$p" "$bin" check $R --format concise --target-torch '>=2.3,<2.6'
expect_out "a range that meets < 2.4 runs the rule" "MPS900"
expect_err "the range is named as written" "target torch >=2.3,<2.6 (--target-torch)"
run_in "$p" "$bin" check $R --format concise --target-torch '>=2.4'
expect_no_out ">=2.4 misses < 2.4" "MPS900"
run_in "$p" "$bin" check $R --format concise --target-torch all
expect_out "--target-torch all runs everything" "MPS900"
# a fix follows the target too
cp -R "$p" "$tmp/fixme"
run_in "$tmp/fixme" "$bin" fix $R --target-torch 2.5
grep -q '^torch.mps.synchronize()$' "$tmp/fixme/src/train.py" &&
	ok "fix --target-torch 2.5 leaves the < 2.4 rule's code alone" ||
	fail "fix --target-torch 2.5 leaves the < 2.4 rule's code alone" "$(cat "$tmp/fixme/src/train.py")"
run_in "$tmp/fixme" "$bin" fix $R
grep -q '^torch.cuda.synchronize()$' "$tmp/fixme/src/train.py" &&
	ok "fix with the pinned 2.1 applies it" || fail "fix with the pinned 2.1 applies it" "$(cat "$tmp/fixme/src/train.py")"
run_in "$p" "$bin" diff $R --target-torch 2.5
expect_rc "diff --target-torch 2.5: nothing to fix, exit 0" 0

# --- where the pins come from ---------------------------------------------------------------
# a subfolder of the project, with the configuration file at its top
printf 'select: [MPS9]\n' >"$p/.mpsfix.yml"
run_in "$p/src" "$bin" check $R --format concise
expect_out "from a subfolder: the pins of the config's folder" "MPS900"
expect_err "the pin is named from the current folder" "target torch 2.1 (../requirements.txt:2)"
rm -f "$p/.mpsfix.yml"
# outside a git work tree and without a configuration: the path operand's folder
run_in "$tmp" "$bin" check $R --isolated --format concise proj
expect_err "the folder operand's pins" "target torch 2.1 (proj/requirements.txt:2)"
expect_out "the folder operand's pins select the rule" "MPS900"
run_in "$tmp" "$bin" check $R --isolated --format concise proj/src
expect_err "a subfolder operand: the nearest folder upward with pin files" \
	"target torch 2.1 (proj/requirements.txt:2)"
run_in "$p" "$bin" check $R --isolated --format concise src/train.py
expect_err "a file operand from the project's folder: its pins" "target torch 2.1 (requirements.txt:2)"
mkdir -p "$tmp/nopins/pkg"
printf '[project]\nname = "nopins"\ndependencies = ["numpy"]\n' >"$tmp/nopins/pyproject.toml"
cp "$p/src/train.py" "$tmp/nopins/pkg/"
run_in "$tmp" "$bin" check $R --isolated --format concise nopins/pkg
expect_err "a project without a torch pin: every version" "target torch: every MPS-capable version"
expect_out "a project without a torch pin: every rule runs" "MPS900"
# in a git work tree: its top
(cd "$p" && git -c init.defaultBranch=main init -q) >/dev/null 2>&1
run_in "$tmp" "$bin" check $R --isolated --format concise proj/src/train.py
expect_err "a file in a work tree: the pins at its top" "target torch 2.1 (proj/requirements.txt:2)"
run_in "$p/src" "$bin" check $R --isolated --format concise
expect_err "from a subfolder of a work tree: its top" "target torch 2.1 (../requirements.txt:2)"
rm -rf "$p/.git"

# every kind of pin file, and several pins
q=$tmp/kinds
mkdir -p "$q"
cp "$p/src/train.py" "$q/"
printf 'torch>=2.4\n' >"$q/requirements_docker.txt"
run_in "$q" "$bin" check $R --format concise
expect_err "requirements_docker.txt" "target torch >=2.4 (requirements_docker.txt:1)"
expect_no_out ">=2.4 from the pins: the < 2.4 rule does not run" "MPS900"
rm "$q/requirements_docker.txt"
# a safe fix is safe where the target lies in the rule's range, and unsafe, with the reason, beyond it
printf 'torch==2.1.0\n' >"$q/requirements.txt"
run_in "$q" "$bin" check $R --format concise
expect_out "a target inside the rule's range: the fix is safe" "MPS900 [*]"
printf 'torch>=2.1\n' >"$q/requirements.txt"
run_in "$q" "$bin" check $R --format concise
expect_out "a target beyond the rule's range: the fix is unsafe, and why" \
	"MPS900 [~] torch.mps.synchronize() is missing before 2.4 (test rule) (unsafe fix: the fix is exact only on torch <2.4, and the target torch >=2.1 reaches beyond it)"
run_in "$q" "$bin" fix $R --format concise
expect_err "a target beyond the rule's range: fix leaves it" "1 more fixable with --unsafe-fixes"
rm "$q/requirements.txt"
printf '[project]\nname = "x"\ndependencies = [\n  "torchvision",\n  "torch[opt]==2.2.*; sys_platform == \\"darwin\\"",\n]\n' >"$q/pyproject.toml"
run_in "$q" "$bin" check $R --format concise
expect_err "pyproject.toml" "target torch 2.2 (pyproject.toml:5)"
printf '[tool.poetry.dependencies]\ntorch = {version = "^2.5", source = "pytorch"}\n' >"$q/pyproject.toml"
run_in "$q" "$bin" check $R --format concise
expect_err "Poetry" "target torch >=2.5,<3.0 (pyproject.toml:2)"
rm "$q/pyproject.toml"
printf '[options]\ninstall_requires =\n    torch~=2.0\n' >"$q/setup.cfg"
run_in "$q" "$bin" check $R --format concise
expect_err "setup.cfg" "target torch >=2.0,<3.0 (setup.cfg:3)"
rm "$q/setup.cfg"
printf 'setup(install_requires=["torch<2.2"])\n' >"$q/setup.py"
run_in "$q" "$bin" check $R --format concise
expect_err "setup.py" "target torch >=1.12,<2.2 (setup.py:1)"
rm "$q/setup.py"
printf 'dependencies:\n  - pytorch::pytorch=2.0.1\n' >"$q/environment.yml"
run_in "$q" "$bin" check $R --format concise
expect_err "environment.yml" "target torch 2.0 (environment.yml:2)"
printf 'torch==2.6.0\n' >"$q/requirements.txt"
printf 'torch==2.1.0\n' >"$q/requirements-mac.txt"
run_in "$q" "$bin" check $R --format concise
expect_err "several pins: their hull, the first named and the others counted" \
	"target torch >=2.0,<2.7 (requirements-mac.txt:1 and 2 more)"
expect_out "a rule runs when any pinned version has the problem" "MPS900"
rm -f "$q/environment.yml" "$q/requirements-mac.txt"
printf 'torch\ntorch-geometric==2.4\ntorchvision==0.17\npytorch-lightning==2.1\n# torch==2.5\n' >"$q/requirements.txt"
run_in "$q" "$bin" check $R --format concise
expect_err "no version pinned: every version" "target torch: every MPS-capable version"
printf 'torch==two\n-r ../outside.txt\n' >"$q/requirements.txt"
run_in "$q" "$bin" check $R --format concise
expect_rc "an unreadable pin is not an error" 1
expect_err "an unreadable pin is a warning naming file:line" \
	"mpsfix: requirements.txt:1: torch pin 'torch==two' ignored: 'two' is not a version"
expect_err "an include outside the project is a warning" \
	"mpsfix: requirements.txt:2: cannot read the included file '../outside.txt'"
expect_summary "an unreadable pin leaves the default target" \
	"mpsfix: 1 file scanned, 2 findings (0 fixable); target torch: every MPS-capable version; 1 more fixable with --unsafe-fixes"
run_in "$(dirname "$q")" "$bin" check $R --format concise "$(basename "$q")"
expect_err "a warning of another folder's pins names the file from the current folder" \
	"mpsfix: $(basename "$q")/requirements.txt:1: torch pin 'torch==two' ignored: 'two' is not a version"
rm "$q/requirements.txt"

# --- precedence: --target-torch, target-torch:, the pins, the default ------------------------
c=$tmp/prec
mkdir -p "$c"
cp "$p/src/train.py" "$c/"
printf 'torch==2.1.0\n' >"$c/requirements.txt"
printf 'target-torch: ">=2.5"\n' >"$c/.mpsfix.yml"
run_in "$c" "$bin" check $R --format concise
expect_err "target-torch: beats the pins" "target torch >=2.5 (.mpsfix.yml)"
expect_no_out "target-torch: >=2.5 turns the < 2.4 rule off" "MPS900"
run_in "$c" "$bin" check $R --format concise --target-torch 2.1
expect_err "--target-torch beats target-torch:" "target torch 2.1 (--target-torch)"
expect_out "--target-torch 2.1 turns it back on" "MPS900"
run_in "$c" "$bin" check $R --format concise --isolated
expect_err "--isolated: the pins again" "target torch 2.1 (requirements.txt:1)"
printf 'torch==oops\n' >"$c/requirements.txt"
run_in "$c" "$bin" check $R --format concise
expect_no_err "the pins are not read when the configuration gives the target" "oops"

# --- one target per project -------------------------------------------------------------------
# a folder holding several projects: each file's target is the nearest pins above it
m=$tmp/multi
mkdir -p "$m/a/pkg" "$m/b" "$m/c" "$m/docs"
printf 'torch==2.1.0\n' >"$m/a/requirements.txt"
printf '[project]\nname = "b"\ndependencies = ["numpy", "torch>=2.6"]\n' >"$m/b/pyproject.toml"
printf 'REQUIRED = ["torch>=2.1"]\nsetup(name="c", install_requires=REQUIRED)\n' >"$m/c/setup.py"
printf 'sphinx\n' >"$m/docs/requirements.txt" # names no torch: passed over
for f in a/pkg/x.py a/y.py b/x.py c/x.py docs/conf.py top.py; do cp "$p/src/train.py" "$m/$f"; done
run_in "$m" "$bin" check $R --format concise
expect_rc "several projects: exit 1" 1
expect_out "2.1: the < 2.4 rule runs, its fix safe" "a/pkg/x.py:2:1: MPS900 [*]"
expect_out "2.1, a file at the project's top" "a/y.py:2:1: MPS900 [*]"
expect_no_out ">=2.6: the < 2.4 rule does not run" "b/x.py:2:1: MPS900"
expect_out ">=2.6: the rule for every version runs" "b/x.py:3:1: MPS901"
expect_out ">=2.1 (setup.py's variable): the rule runs, its fix unsafe (2.4 and later are outside it)" \
	"c/x.py:2:1: MPS900 [~]"
expect_out "no pins naming torch up to the current folder: every version, the fix unsafe" \
	"top.py:2:1: MPS900 [~]"
expect_out "a folder whose pins do not name torch is passed over" "docs/conf.py:2:1: MPS900 [~]"
expect_summary "the summary names each target and its files, most files first" \
	"mpsfix: 7 files scanned, 11 findings (2 fixable); targets: every MPS-capable version for 2 files, torch 2.1 (a/requirements.txt:1) for 2 files, torch >=2.1 (c/setup.py:1) for 2 files, torch >=2.6 (b/pyproject.toml:3) for 1 file; 3 more fixable with --unsafe-fixes"
run_in "$tmp" "$bin" check $R --format concise multi/b multi/a
expect_summary "named from the current folder; only the targets of the files checked" \
	"mpsfix: 3 files scanned, 5 findings (2 fixable); targets: torch 2.1 (multi/a/requirements.txt:1) for 2 files, torch >=2.6 (multi/b/pyproject.toml:3) for 1 file"
run_in "$m" "$bin" check $R --format concise b
expect_summary "one target: the summary as before" \
	"mpsfix: 1 file scanned, 1 finding (0 fixable); target torch >=2.6 (b/pyproject.toml:3)"
run_in "$m/a/pkg" "$bin" check $R --format concise
expect_summary "outside git, from inside a project: the search stops at the current folder, then the run's pins" \
	"mpsfix: 1 file scanned, 2 findings (1 fixable); target torch 2.1 (../requirements.txt:1)"
run_in "$m/a/pkg" "$bin" check $R --format concise ../..
expect_out "a folder operand above: each project's target" "../../a/pkg/x.py:2:1: MPS900 [*]"
expect_out "a folder operand above: each project's target (b)" "../../b/x.py:3:1: MPS901"
expect_no_out "a folder operand above: each project's target (not b)" "../../b/x.py:2:1: MPS900"
printf 'import torch\ntorch.mps.synchronize()\n' >"$tmp/stdin.py"
(cd "$m" && "$bin" check $R --format concise --stdin-filename b/new.py - <"$tmp/stdin.py" >"$tmp/out" 2>"$tmp/err")
err=$(cat "$tmp/err")
expect_summary "standard input: the target of --stdin-filename's folder" \
	"mpsfix: 1 file scanned, 0 findings (0 fixable); target torch >=2.6 (b/pyproject.toml:3)"
(cd "$m" && "$bin" check $R --format concise --stdin-filename b/newpkg/sub/new.py - <"$tmp/stdin.py" >"$tmp/out" 2>"$tmp/err")
err=$(cat "$tmp/err")
expect_summary "standard input: a folder not made yet has the target of the nearest one above" \
	"mpsfix: 1 file scanned, 0 findings (0 fixable); target torch >=2.6 (b/pyproject.toml:3)"
run_in "$m" "$bin" check $R --format concise --target-torch 2.5
expect_no_out "--target-torch: one target for every file" "MPS900"
expect_summary "--target-torch: the summary names it alone" \
	"mpsfix: 7 files scanned, 6 findings (0 fixable); target torch 2.5 (--target-torch)"
printf 'target-torch: "2.1"\n' >"$m/.mpsfix.yml"
run_in "$m" "$bin" check $R --format concise
expect_out "target-torch: one target for every file, b's too" "b/x.py:2:1: MPS900 [*]"
expect_err "target-torch: the summary names it alone" "; target torch 2.1 (.mpsfix.yml)"
rm "$m/.mpsfix.yml"
if command -v python3 >/dev/null 2>&1; then
	run_in "$m" "$bin" check $R --format json
	printf '%s\n' "$out" >"$tmp/multi.json"
	run python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["target"].startswith("targets: every MPS-capable version for 2 files, torch 2.1 "), s["target"]
assert s["targets"] == [
    {"range": ">=1.12", "origin": None, "files": 2},
    {"range": "2.1", "origin": "a/requirements.txt:1", "files": 2},
    {"range": ">=2.6", "origin": "b/pyproject.toml:3", "files": 1},
    {"range": ">=2.1", "origin": "c/setup.py:1", "files": 2},
], s["targets"]
' "$tmp/multi.json"
	expect_rc "json: \"target\" the summary's words, \"targets\" each target and its files" 0
	run_in "$m" "$bin" check $R --format json b
	printf '%s\n' "$out" >"$tmp/one.json"
	run python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["target"] == "target torch >=2.6 (b/pyproject.toml:3)", s
assert s["targets"] == [{"range": ">=2.6", "origin": "b/pyproject.toml:3", "files": 1}], s
' "$tmp/one.json"
	expect_rc "json: one target, \"target\" as before and \"targets\" of one" 0
fi
cp -R "$m" "$tmp/multifix"
run_in "$tmp/multifix" "$bin" fix $R
if grep -q '^torch.cuda.synchronize()$' "$tmp/multifix/a/pkg/x.py" &&
	grep -q '^torch.mps.synchronize()$' "$tmp/multifix/c/x.py" &&
	grep -q '^torch.mps.synchronize()$' "$tmp/multifix/b/x.py"; then
	ok "fix: the safe fix where the target is inside the rule's range, not where it reaches beyond"
else
	fail "fix: the safe fix where the target is inside the rule's range, not where it reaches beyond" \
		"$(cat "$tmp/multifix/a/pkg/x.py" "$tmp/multifix/c/x.py")"
fi
# rules and explain: for a file in the current folder
run_in "$m/b" "$bin" rules $R
expect_out "rules in b: the < 2.4 rule is not for its target" \
	"MPS900  old-sync  error     safe  <2.4     on       no (not for the torch target)"
expect_summary "rules in b: b's target" "mpsfix: 3 rules, 1 run; target torch >=2.6 (pyproject.toml:3); line length 88"
run_in "$m" "$bin" explain $R MPS900
expect_out "explain above the projects: the run's target" "  runs      yes; target torch: every MPS-capable version"
# in a git work tree: the search goes up to its top, never above
mkrepo "$m/a/pkg/repo" >/dev/null 2>&1
run_in "$m/a/pkg/repo" "$bin" check $R --isolated --format concise
expect_err "not above the top of the work tree" "; target torch: every MPS-capable version"
rm -rf "$m/a/pkg/repo"
(cd "$m" && git init -q && git config user.name 'Ada Lovelace' && git config user.email ada@example.com &&
	git add . && git commit -qm projects) >/dev/null 2>&1
run_in "$m/a/pkg" "$bin" explain $R MPS900
expect_out "explain in a work tree: the nearest pins above" "  runs      yes; target torch 2.1 (../requirements.txt:1)"
run_in "$m/b" "$bin" explain $R MPS900
expect_out "explain in b: it does not run" "  runs      no: torch <2.4 is outside the target torch >=2.6 (pyproject.toml:3)"
run_in "$m" "$bin" commit $R --unsafe-fixes -q
expect_rc "commit in a work tree of several projects: exit 1 (MPS901 has no fix)" 1
trailer=$(cd "$m" && git log -1 --format=%B | grep '^Mpsfix-Target-Torch:')
expect_eq "the trailer: the smallest range holding every file's target" "$trailer" "Mpsfix-Target-Torch: >=1.12"
(cd "$m" && git reset -q --hard HEAD~1)
run_in "$m" "$bin" commit $R a c
trailer=$(cd "$m" && git log -1 --format=%B | grep '^Mpsfix-Target-Torch:')
expect_eq "the trailer for a and c: 2.1 and >=2.1 together" "$trailer" "Mpsfix-Target-Torch: >=2.1"
expect_err "commit's summary names the targets" \
	"targets: torch 2.1 (a/requirements.txt:1) for 2 files, torch >=2.1 (c/setup.py:1) for 2 files"
if grep -q '^torch.cuda.synchronize()$' "$m/a/y.py" && grep -q '^torch.mps.synchronize()$' "$m/c/x.py"; then
	ok "commit: each file fixed for its own target (the safe fix in a, not in c)"
else
	fail "commit: each file fixed for its own target (the safe fix in a, not in c)" "$(cat "$m/a/y.py" "$m/c/x.py")"
fi

# setup.py: requirements in variables, the extras when nothing else names torch
s=$tmp/setuppy
mkdir -p "$s"
cp "$p/src/train.py" "$s/"
cat >"$s/setup.py" <<'EOF'
_deps = [
    "numpy",
    "torch>=2.6",
]
deps = {b: a for a, b in (re.findall(r"^(([^!=<>~]+)(?:[!=<>~].*)?$)", x)[0] for x in _deps)}
extras = {}
extras["torch"] = [deps["torch"]]
setup(install_requires=[deps["numpy"]], extras_require=extras)
EOF
run_in "$s" "$bin" check $R --format concise
expect_err "setup.py: a table of requirements in a variable" "target torch >=2.6 (setup.py:3)"
rm "$s/setup.py"
printf '[project]\nname = "x"\ndependencies = ["numpy"]\n[project.optional-dependencies]\nmps = ["torch==2.3.*"]\n' >"$s/pyproject.toml"
run_in "$s" "$bin" check $R --format concise
expect_err "pyproject.toml: the optional dependencies when nothing else names torch" "target torch 2.3 (pyproject.toml:5)"
printf 'torch\n' >"$s/requirements.txt"
run_in "$s" "$bin" check $R --format concise
expect_err "... not when a requirement names torch, even without a version" "target torch: every MPS-capable version"
# an example folder's bare torch pins nothing: its files have the project's target
e=$tmp/example
mkdir -p "$e/examples/demo"
printf 'torch>=2.6\n' >"$e/requirements.txt"
printf 'torch\ntorchvision\n' >"$e/examples/demo/requirements.txt"
cp "$p/src/train.py" "$e/examples/demo/"
run_in "$e" "$bin" check $R --format concise
expect_summary "an example's bare torch leaves its files to the project above" \
	"mpsfix: 1 file scanned, 1 finding (0 fixable); target torch >=2.6 (requirements.txt:1)"

# --- errors ---------------------------------------------------------------------------------
run_in "$c" "$bin" check $R --target-torch 2.x
expect_rc "bad --target-torch: exit 2" 2
expect_err "bad --target-torch: the message names it" "mpsfix: --target-torch '2.x': '2.x' is not a version"
expect_empty_out "bad --target-torch: nothing checked"
run_in "$c" "$bin" check $R --target-torch '>=2.6,<2.1'
expect_rc "an empty range: exit 2" 2
expect_err "an empty range: says so" "no version satisfies all of these constraints"
run_in "$c" "$bin" check $R --target-torch '!=2.2'
expect_rc "--target-torch '!=2.2': exit 2" 2
printf 'select: [MPS9]\ntarget-torch: "=>2.1"\n' >"$c/.mpsfix.yml"
run_in "$c" "$bin" check $R
expect_rc "bad target-torch: exit 2" 2
expect_err "bad target-torch: file:line:col" ".mpsfix.yml:2:15: bad target-torch '=>2.1': unknown operator '=>'"
cat >"$tmp/badrange.yml" <<'EOF'
id: bad-range
code: MPS903
severity: info
message: m
torch: '>= 2.5, < 2.3'
match: 'f()'
EOF
run_in "$c" "$bin" check --isolated --no-default-rules --rules "$tmp/badrange.yml"
expect_rc "a rule whose range is empty: exit 2" 2
expect_err "a rule whose range is empty: file:line:col" \
	"badrange.yml:5:8: bad torch range '>= 2.5, < 2.3': no version satisfies all of these constraints"
rm -f "$c/.mpsfix.yml"

# --- mpsfix rules -----------------------------------------------------------------------------
run_in "$p" "$bin" rules $R
expect_rc "rules: exit 0" 0
expect_out "rules: a header" "CODE    ID        SEVERITY  FIX   AFFECTS  DEFAULT  RUNS"
expect_out "rules: the < 2.4 rule runs for the pinned 2.1" "MPS900  old-sync  error     safe  <2.4     on       yes"
expect_out "rules: a rule for every version" "MPS901  any-sync  warning   no    all      on       yes"
expect_out "rules: off by default" "MPS902  new-lint  info      no    >=2.5    off      no (off by default)"
expect_summary "rules: the summary counts and names the target" \
	"mpsfix: 3 rules, 2 run; target torch 2.1 (requirements.txt:2); line length 88"
run_in "$p" "$bin" rules $R --target-torch 2.5 --extend-select MPS902
expect_out "rules --target-torch 2.5: the < 2.4 rule does not run" "MPS900  old-sync  error     safe  <2.4     on       no (not for the torch target)"
expect_out "rules --extend-select turns a rule on" "MPS902  new-lint  info      no    >=2.5    off      yes"
run_in "$p" "$bin" rules $R --select MPS901
expect_out "rules --select: the others are not selected" "MPS900  old-sync  error     safe  <2.4     on       no (not selected)"
run_in "$p" "$bin" rules $R --ignore old-sync
expect_out "rules --ignore" "no (ignored)"
printf 'ignore: [MPS901]\n' >"$p/.mpsfix.yml"
run_in "$p" "$bin" rules $R
expect_out "rules reads the configuration" "MPS901  any-sync  warning   no    all      on       no (ignored)"
rm -f "$p/.mpsfix.yml"
run_in "$p" "$bin" rules $R --format json
expect_rc "rules --format json: exit 0" 0
if command -v python3 >/dev/null 2>&1; then
	printf '%s\n' "$out" >"$tmp/rules.json"
	run python3 -c '
import json, sys
rules = json.load(open(sys.argv[1]))
assert isinstance(rules, list) and [r["code"] for r in rules] == ["MPS900", "MPS901", "MPS902"], rules
old = rules[0]
assert old["id"] == "old-sync" and old["severity"] == "error" and old["fix"] == "safe", old
assert old["torch"] == "< 2.4" and old["affects"] == "<2.4", old
assert old["enabled"] and old["selected"] and old["in_target"] and old["runs"], old
assert old["reason"] is None and old["url"] == "https://example.org/old-sync", old
assert old["note"].startswith("A rule of the test suite"), old
assert old["path"].endswith("old-sync.yml"), old
off = rules[2]
assert not off["enabled"] and not off["selected"] and not off["runs"], off
assert off["reason"] == "off by default" and off["note"] is None and off["url"] is None, off
assert rules[1]["fix"] == "no", rules[1]
' "$tmp/rules.json"
	expect_rc "rules --format json: an array with every field" 0
	run_in "$p" "$bin" rules $R --format jsonl --target-torch 2.5
	printf '%s\n' "$out" >"$tmp/rules.jsonl"
	run python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 3, lines
objs = [json.loads(l) for l in lines]
assert objs[0]["code"] == "MPS900" and not objs[0]["in_target"] and objs[0]["reason"] == "not for the torch target"
' "$tmp/rules.jsonl"
	expect_rc "rules --format jsonl: one object a line" 0
fi
run_in "$p" "$bin" rules $R --format sarif
expect_rc "rules --format sarif: exit 2" 2
expect_err "rules --format sarif: says which formats" "rules are listed as text (full, concise), json or jsonl"
run_in "$p" "$bin" rules $R src
expect_rc "rules takes no operand: exit 2" 2
run_in "$p" "$bin" rules $R -o "$tmp/rules.txt" -q
expect_rc "rules -o FILE: exit 0" 0
if grep -q '^MPS900 ' "$tmp/rules.txt" && [ -z "$out" ] && [ -z "$err" ]; then ok "rules -o FILE -q: the table in the file, nothing else"
else fail "rules -o FILE -q: the table in the file, nothing else" "$(cat "$tmp/rules.txt")" "$out" "$err"; fi
run_in "$p" "$bin" rules
expect_out "rules: the shipped rules by default" "MPS006"

# --- the line length: each file's project's, named by rules for the current folder -----------
ll=$tmp/ll
mkdir -p "$ll/sub/deeper" "$ll/bad" "$ll/plain"
printf '[project]\nname = "ll"\n[tool.black]\nline-length = 100\n' >"$ll/pyproject.toml"
printf '[metadata]\nname = sub\n[flake8]\nmax-line-length = 120\n' >"$ll/sub/setup.cfg"
printf 'line-length = 0\n' >"$ll/bad/ruff.toml"
printf 'import torch\ntorch.mps.synchronize()\n' >"$ll/bad/a.py"
cp "$ll/bad/a.py" "$ll/bad/b.py"
cp "$ll/bad/a.py" "$ll/sub/deeper/x.py"
run_in "$ll" "$bin" rules $R
expect_rc "line length: rules exits 0" 0
expect_summary "line length: [tool.black] of pyproject.toml" \
	"mpsfix: 3 rules, 2 run; target torch: every MPS-capable version; line length 100 (pyproject.toml:4)"
run_in "$ll/sub/deeper" "$bin" rules $R
expect_summary "line length: the nearest folder that sets one (setup.cfg's [flake8])" \
	"mpsfix: 3 rules, 2 run; target torch: every MPS-capable version; line length 120 (../setup.cfg:4)"
run_in "$ll/plain" "$bin" rules $R
expect_summary "line length: a folder that sets none, the one above" \
	"mpsfix: 3 rules, 2 run; target torch: every MPS-capable version; line length 100 (../pyproject.toml:4)"
run_in "$ll/bad" "$bin" rules $R
expect_err "line length: a bad value is a warning naming file:line" \
	"mpsfix: ruff.toml:1: line-length 0 ignored: not a whole number from 1 to 320"
expect_summary "line length: a bad value is passed over" \
	"mpsfix: 3 rules, 2 run; target torch: every MPS-capable version; line length 100 (../pyproject.toml:4)"
run_in "$ll/sub/deeper" "$bin" rules $R --line-length 77
expect_summary "--line-length wins over the project's" \
	"mpsfix: 3 rules, 2 run; target torch: every MPS-capable version; line length 77 (--line-length)"
printf 'line-length: 90\n' >"$ll/.mpsfix.yml"
run_in "$ll/sub/deeper" "$bin" rules $R
expect_summary "line-length: in the configuration wins over the project's" \
	"mpsfix: 3 rules, 2 run; target torch: every MPS-capable version; line length 90 (../../.mpsfix.yml)"
run_in "$ll/sub/deeper" "$bin" rules $R --line-length=70
expect_summary "--line-length wins over line-length:" \
	"mpsfix: 3 rules, 2 run; target torch: every MPS-capable version; line length 70 (--line-length)"
run_in "$ll" "$bin" check $R --line-length 0 bad
expect_rc "--line-length 0: exit 2" 2
expect_err "--line-length 0: the range" \
	"mpsfix: invalid value '0' for '--line-length' (give a number of columns from 1 to 320)"
run_in "$ll" "$bin" check $R --line-length 12x bad
expect_rc "--line-length 12x: exit 2" 2
printf 'line-length: 321\n' >"$ll/.mpsfix.yml"
run_in "$ll" "$bin" rules $R
expect_rc "line-length: 321 is an error: exit 2" 2
expect_err "line-length: 321 names file:line:col" \
	".mpsfix.yml:1:14: 'line-length' must be a number of columns from 1 to 320"
printf 'line-length: "100"\n' >"$ll/.mpsfix.yml"
run_in "$ll" "$bin" rules $R
expect_rc "line-length: a string is an error: exit 2" 2
rm -f "$ll/.mpsfix.yml"
# check reads each folder's lint configuration once, on the way to the engine
run_in "$ll" "$bin" check $R --format concise bad sub
expect_rc "check: exit 1" 1
n=$(printf '%s\n' "$err" | grep -c "line-length 0 ignored")
expect_eq "check: the warning of bad/ruff.toml, once for its two files" "$n" 1
expect_err "check: the warning names the file as seen from the current folder" \
	"mpsfix: bad/ruff.toml:1: line-length 0 ignored"
run_in "$ll" "$bin" check $R --format concise --line-length 100 bad
expect_no_err "check --line-length: no lint configuration read" "ignored"
# many folders, each with its own line length: one run wraps each file as a run on its folder alone
# (the styles' table grows while it is read: a stale pointer into it once read freed memory)
many=$tmp/many-styles
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
	mkdir -p "$many/p$k"
	printf '[tool.ruff]\nline-length = %d\n' $((70 + 2 * k)) >"$many/p$k/pyproject.toml"
	printf 'import torch\n\n\ndef load(batch, device):\n    return batch.to(device, non_blocking=True), device\n' \
		>"$many/p$k/a.py"
done
run_in "$many" "$bin" diff --select MPS006 .
together=$out
# in path order, as one run reports
alone=$(cd "$many" && for k in 1 10 11 12 2 3 4 5 6 7 8 9; do "$bin" diff --select MPS006 "p$k" 2>/dev/null; done)
expect_eq "twelve folders' line lengths: one run wraps as twelve" "$together" "$alone"
n=$(printf '%s\n' "$together" | grep -c '^+    return batch.to(device, non_blocking=not str(device).startswith("mps")), device$')
expect_eq "twelve folders' line lengths: the 83-column line kept where it fits (84 to 94)" "$n" 6

# standard input: the folder of --stdin-filename
run_in "$ll" sh -c "\"\$0\" check $R --stdin-filename bad/new.py - <bad/a.py" "$bin"
expect_err "standard input: the lint configuration of --stdin-filename's folder" \
	"mpsfix: bad/ruff.toml:1: line-length 0 ignored"
run_in "$ll" sh -c "\"\$0\" check $R --stdin-filename sub/new.py - <bad/a.py" "$bin"
expect_no_err "standard input elsewhere: not bad/'s" "ignored"
# commit, patch and review read each file's too (the series gives the engine each file's options)
mkrepo "$ll/repo" >/dev/null 2>&1
mkdir -p "$ll/repo/sub"
printf 'line-length = 500\n' >"$ll/repo/sub/ruff.toml"
printf 'import torch\ntorch.mps.synchronize()\n' >"$ll/repo/sub/x.py"
(cd "$ll/repo" && git add . && git commit -qm sub)
run_in "$ll/repo" "$bin" patch $R --isolated --stdout sub
expect_err "patch: the lint configuration of a file's folder" \
	"mpsfix: sub/ruff.toml:1: line-length 500 ignored: not a whole number from 1 to 320"

# --- mpsfix explain ----------------------------------------------------------------------------
run_in "$p" "$bin" explain $R MPS900
expect_rc "explain: exit 0" 0
expect_out "explain: code, id and message" "MPS900 (old-sync): torch.mps.synchronize() is missing before 2.4 (test rule)"
expect_out "explain: severity" "  severity  error"
expect_out "explain: fix" "  fix       safe"
expect_out "explain: affected range" "  affects   torch <2.4"
expect_out "explain: runs for the target" "  runs      yes; target torch 2.1 (requirements.txt:2)"
expect_out "explain: url" "  url       https://example.org/old-sync"
expect_out "explain: the note" "A rule of the test suite: it affects torch before 2.4 only."
run_in "$p" "$bin" explain $R old-sync --target-torch '>=2.4'
expect_out "explain by id, out of target" "  runs      no: torch <2.4 is outside the target torch >=2.4 (--target-torch)"
run_in "$p" "$bin" explain $R mps902
expect_out "explain: another case, off by default" "  runs      no: off by default"
run_in "$p" "$bin" explain $R MPS90
expect_rc "explain an unknown code: exit 2" 2
expect_err "explain suggests the close codes" "mpsfix: unknown rule 'MPS90' (did you mean MPS900, MPS901 or MPS902?)"
run_in "$p" "$bin" explain $R MPS9000
expect_err "explain suggests the closest code" "mpsfix: unknown rule 'MPS9000' (did you mean MPS900?)"
run_in "$p" "$bin" explain $R old-synk
expect_err "explain suggests a close id" "unknown rule 'old-synk' (did you mean old-sync?)"
run_in "$p" "$bin" explain $R zzz
expect_err "explain: nothing close" "unknown rule 'zzz' (give a code such as MPS001 or a rule id; 'mpsfix rules' lists them)"
run_in "$p" "$bin" explain $R
expect_rc "explain without a code: exit 2" 2
run_in "$p" "$bin" explain $R MPS900 MPS901
expect_rc "explain with two codes: exit 2" 2
run_in "$p" "$bin" explain $R MPS901 --format json
if command -v python3 >/dev/null 2>&1; then
	printf '%s\n' "$out" >"$tmp/explain.json"
	run python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert o["code"] == "MPS901" and o["fix"] == "no" and o["runs"], o
' "$tmp/explain.json"
	expect_rc "explain --format json: one object" 0
fi

# MPS102's range ends where pinning works on a Mac (2.14); its fix skips a
# pinning that changes no value, so it stays safe on a target beyond it
pin=$tmp/pin
mkdir -p "$pin"
printf 'import torch\nbatch = batch.pin_memory()\n' >"$pin/load.py"
run_in "$pin" "$bin" check --isolated --select MPS102 --format concise --target-torch '>=2.6' .
expect_out "MPS102 on >=2.6: reported with a safe fix" "load.py:2:9: MPS102 [*] x.pin_memory() fails on MPS"
expect_no_out "MPS102 on >=2.6: not unsafe" "unsafe"
run_in "$pin" "$bin" check --isolated --select MPS102 --format concise --target-torch '>=2.14' .
expect_rc "MPS102 on >=2.14: pinning works there, nothing to report" 0
run_in "$pin" "$bin" rules --select MPS102 --target-torch 2.14
expect_out "MPS102 does not run on 2.14" "<2.14        on       no (not for the torch target)"

# a fix that brings in torch.backends.mps (torch 1.12) or correction= (1.10)
# would raise on older torch everywhere: unsafe, or manual, where the target reaches below
old=$tmp/oldtorch
mkdir -p "$old"
printf 'import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, pin_memory=True)
v = torch.var(x, 1)
' >"$old/load.py"
run_in "$old" "$bin" check --isolated --select MPS101,MPS003 --format concise --target-torch '>=1.12' .
expect_out "torch.backends.mps on >=1.12: a safe fix" "load.py:3:10: MPS101 [*]"
expect_out "correction= on >=1.12: a safe fix" "load.py:4:5: MPS003 [*]"
run_in "$old" "$bin" check --isolated --select MPS101,MPS003 --format concise --target-torch '>=1.7' .
expect_out "torch.backends.mps on >=1.7: unsafe, and why" \
	"(unsafe fix: the fix calls torch.backends.mps, which torch has from 1.12, and the target torch >=1.7 reaches below it)"
expect_out "correction= on >=1.7: a manual fix" \
	"(needs a manual fix: \`correction=\` exists from torch 1.10, and the target torch reaches below it"
run_in "$old" "$bin" fix --isolated --select MPS101,MPS003 --format concise --target-torch '>=1.7' .
if grep -q 'pin_memory=True)$' "$old/load.py" && grep -q 'torch.var(x, 1)$' "$old/load.py"; then
	ok "fix on >=1.7: neither is applied"
else
	fail "fix on >=1.7: neither is applied" "$(cat "$old/load.py")"
fi
run_in "$old" "$bin" fix --isolated --unsafe-fixes --select MPS101 --format concise --target-torch '>=1.7' .
if grep -q 'torch.backends.mps' "$old/load.py"; then
	ok "fix --unsafe-fixes on >=1.7: the unsafe fix is applied"
else
	fail "fix --unsafe-fixes on >=1.7: the unsafe fix is applied" "$(cat "$old/load.py")"
fi

# a fix unsafe by its rule names the version limit too
printf 'import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
' >"$old/pick.py"
run_in "$old" "$bin" check --isolated --select MPS104 --format concise --target-torch '>=1.10' pick.py
expect_out "MPS104 (unsafe by its rule) on >=1.10: why, besides" \
	"pick.py:2:23: MPS104 [~] device selection never tries MPS: on a Mac this runs on the CPU (unsafe fix: the fix calls torch.backends.mps, which torch has from 1.12, and the target torch >=1.10 reaches below it)"
run_in "$old" "$bin" check --isolated --select MPS104 --format concise --target-torch '>=1.12' pick.py
expect_out "MPS104 on >=1.12: unsafe, with no reason to add" \
	"pick.py:2:23: MPS104 [~] device selection never tries MPS: on a Mac this runs on the CPU"
expect_no_out "MPS104 on >=1.12: no version limit named" "reaches below"

test_done
