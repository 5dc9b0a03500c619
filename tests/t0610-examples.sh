#!/bin/sh
# The files other tools read: .pre-commit-hooks.yaml and the GitHub Actions
# workflows in examples/github-actions/.  Each is parsed as YAML (python3-yaml)
# and checked for the keys its tool requires; then its commands are run as the
# tool would run them: the hook's entry with the staged file names in a git
# repository, each workflow's mpsfix steps in a copy of the demo with mpsfix
# checked out beside it (the SARIF report is then read back).
# usage: sh tests/t0610-examples.sh [path/to/mpsfix]; prints 'N passed, N failed'.
. "$(dirname "$0")/test-lib.sh"
isolate
git config --global user.name "Test User"
git config --global user.email test@example.com
git config --global init.defaultBranch main

# --- .pre-commit-hooks.yaml -----------------------------------------------------------
# pre-commit's manifest schema (clientlib.MANIFEST_HOOK_DICT): required and allowed keys
cat >"$tmp/hooks.py" <<'PY'
import sys, yaml
hooks = yaml.safe_load(open(sys.argv[1]))
assert isinstance(hooks, list) and hooks, "a list of hooks"
allowed = {"id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or",
           "exclude_types", "additional_dependencies", "args", "always_run", "fail_fast",
           "pass_filenames", "description", "language_version", "log_file", "require_serial",
           "stages", "verbose", "minimum_pre_commit_version"}
for h in hooks:
    for k in ("id", "name", "entry", "language"):
        assert isinstance(h.get(k), str) and h[k], "hook lacks %s" % k
    assert not set(h) - allowed, "unknown keys %s" % (set(h) - allowed)
    assert h["language"] == "system", h["language"]
    assert h.get("types") == ["python"], h.get("types")
    assert h.get("pass_filenames", True) is True
    for k in ("require_serial", "always_run", "pass_filenames"):
        assert isinstance(h.get(k, False), bool), k
    print("%s\t%s" % (h["id"], h["entry"]))
PY
run python3 "$tmp/hooks.py" .pre-commit-hooks.yaml
expect_rc "pre-commit hooks: valid manifest" 0
entry=$(printf '%s\n' "$out" | sed -n 's/^mpsfix	//p')
[ "$entry" = "mpsfix check --staged" ] && ok "hook mpsfix runs 'mpsfix check --staged'" ||
	fail "hook entry" "$out"

# pre-commit runs: ENTRY [args] FILENAMES (the staged files its types select), in the
# repository's top folder, with mpsfix found on PATH
mkdir -p "$tmp/bin" "$tmp/hook"
ln -s "$bin" "$tmp/bin/mpsfix"
cd "$tmp/hook" && git init -q . && printf 'import torch\n' >train.py && printf 'x\n' >notes.txt &&
	git add . && git commit -qm init && cd "$top" || exit 2
hook() { # the staged Python files, as pre-commit passes them
	files=$(cd "$tmp/hook" && git diff --cached --name-only --diff-filter=ACMR -- '*.py')
	# shellcheck disable=SC2086
	run_in "$tmp/hook" env PATH="$tmp/bin:$PATH" $entry $files
}
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/hook/train.py"
(cd "$tmp/hook" && git add train.py)
hook
expect_rc "hook: a staged finding fails the commit (exit 1)" 1
expect_out "hook: the finding names file:line:col" "train.py:2:5: MPS006"
printf 'import torch\ny = x.to("mps")\n' >"$tmp/hook/train.py"
hook
expect_rc "hook reads the index, not the work tree (fixed only in the work tree: still 1)" 1
(cd "$tmp/hook" && git add train.py)
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/hook/train.py"
hook
expect_rc "hook: the staged content is clean (work tree not): exit 0" 0

# --- GitHub Actions workflows -------------------------------------------------------
for wf in examples/github-actions/*.yml; do
	if grep -q "$(printf '\t')" "$wf"; then fail "$wf: no tabs (YAML forbids them in indentation)"; else ok "$wf: no tabs"; fi
	cat >"$tmp/workflow.py" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
# PyYAML reads the key `on` as the boolean True (YAML 1.1); GitHub reads it as "on"
on = wf.get("on", wf.get(True))
assert on, "no 'on' trigger"
assert isinstance(on, (str, list, dict)), "bad 'on'"
jobs = wf.get("jobs")
assert isinstance(jobs, dict) and jobs, "no jobs"
for name, job in jobs.items():
    assert isinstance(job.get("runs-on"), (str, list)), "%s: no runs-on" % name
    steps = job.get("steps")
    assert isinstance(steps, list) and steps, "%s: no steps" % name
    for i, st in enumerate(steps):
        assert ("uses" in st) != ("run" in st), "%s step %d: exactly one of uses and run" % (name, i + 1)
        if "uses" in st:
            assert "@" in st["uses"], "%s step %d: uses without a version" % (name, i + 1)
            print("uses\t%s" % st["uses"])
        else:
            for line in st["run"].splitlines():
                print("run\t%s" % line)
    perms = job.get("permissions", wf.get("permissions", {}))
    uploads = any("upload-sarif" in st.get("uses", "") for st in steps)
    if uploads:
        assert perms.get("security-events") == "write", "upload-sarif needs security-events: write"
        print("sarif")
PY
	run python3 "$tmp/workflow.py" "$wf"
	expect_rc "$wf: YAML with on, jobs, runs-on, steps (uses or run)" 0
	printf '%s\n' "$out" >"$tmp/steps"
	# the packages the workflow installs are the build's (Makefile DEBIAN_PACKAGES)
	pkgs=$(sed -n 's/^run	sudo apt-get install -y --no-install-recommends //p' "$tmp/steps")
	missing=""
	for p in $pkgs; do
		grep -A1 '^DEBIAN_PACKAGES' Makefile | grep -qw -- "$p" || missing="$missing $p"
	done
	[ -n "$pkgs" ] && [ -z "$missing" ] && ok "$wf: installs the build's Debian packages" ||
		fail "$wf: apt packages" "not in DEBIAN_PACKAGES:$missing" "$pkgs"
	grep -q '^run	make -C mpsfix build/mpsfix$' "$tmp/steps" && ok "$wf: builds build/mpsfix with make" ||
		fail "$wf: build step" "$(cat "$tmp/steps")"
	# the mpsfix steps, run in a checked-out project with mpsfix/ beside it
	proj=$tmp/wf-$(basename "$wf" .yml)
	mkdir -p "$proj/mpsfix/build"
	cp -R fixtures/demo/. "$proj/"
	cp -R rules "$proj/mpsfix/rules"
	cp "$bin" "$proj/mpsfix/build/mpsfix"
	mkdir -p "$proj/mpsfix/tests"
	printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$proj/mpsfix/tests/inside.py"
	(cd "$proj" && git init -q . && git add . && git commit -qm demo)
	sed -n 's/^run	\(mpsfix\/build\/mpsfix .*\)$/\1/p' "$tmp/steps" >"$tmp/cmds"
	[ -s "$tmp/cmds" ] || fail "$wf: runs mpsfix" "$(cat "$tmp/steps")"
	while IFS= read -r cmd; do
		run_in "$proj" sh -c "$cmd"
		case $cmd in
		*--exit-zero*) expect_rc "$wf: '$cmd' exits 0 with findings (the upload runs)" 0 ;;
		*) expect_rc "$wf: '$cmd' exits 1 on the demo's findings" 1 ;;
		esac
		case $cmd in
		*"--format github"*)
			expect_out "$wf: annotations" "::error file=model.py," ;;
		esac
	done <"$tmp/cmds"
	if grep -q '^sarif$' "$tmp/steps"; then
		cat >"$tmp/sarif.py" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
assert log["version"] == "2.1.0"
run = log["runs"][0]
assert run["tool"]["driver"]["name"] == "mpsfix"
uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
assert "model.py" in uris and "train.py" in uris, uris
assert not any(u.startswith("mpsfix/") for u in uris), "the mpsfix checkout is checked: %s" % uris
print(len(run["results"]), "results")
PY
		run python3 "$tmp/sarif.py" "$proj/mpsfix.sarif"
		expect_rc "$wf: the uploaded SARIF is 2.1.0 with the demo's results, not mpsfix's own" 0
	fi
done

test_done
