#!/bin/sh
# End-to-end tests of the command line for CI and review: every report format
# against golden files, exit codes, selection, suppression, configuration,
# git-aware discovery, standard input, --since/--staged, --statistics.
# Prints 'N passed, N failed'.
# usage: sh tests/t0110-cli-lint.sh [path/to/mpsfix]
# MPSFIX_UPDATE_GOLDEN=1 rewrites fixtures/cli/expected/*.out (then read them!)
. "$(dirname "$0")/test-lib.sh"

isolate
g() { git -c user.name=t -c user.email=t@t -c init.defaultBranch=main "$@"; }

# codes NAME LIST: the codes of the concise report in $out, in order, are LIST
expect_codes() {
	got=$(printf '%s\n' "$out" | sed -n 's/^[^ ]*: \(MPS[0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$2" ]; then ok "$1"; else fail "$1" "codes: '$got', expected '$2'" "stdout: $out"; fi
}

# a file with one finding of each shipped rule
all3() {
	cat >"$1" <<'EOF'
import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, pin_memory=True)
device = "cuda" if torch.cuda.is_available() else "cpu"
y = x.to("mps", non_blocking=True)
EOF
}
one() { printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$1"; }

# --- 1. every format, golden output ---------------------------------------------
version=$("$bin" --version | sed -n 's/^mpsfix \([^ ]*\).*/\1/p')
proj=fixtures/cli/project
for fmt in concise full json jsonl sarif github diff; do
	run "$bin" check --isolated --color never --format "$fmt" "$proj"
	expect_rc "format $fmt: exit 1 (findings)" 1
	# the version changes with every release: the golden files say VERSION
	printf '%s\n' "$out" | sed "s/\"$version\"/\"VERSION\"/" >"$tmp/$fmt.out"
	if [ -n "${MPSFIX_UPDATE_GOLDEN:-}" ]; then cp "$tmp/$fmt.out" "fixtures/cli/expected/$fmt.out"; fi
	if cmp -s "$tmp/$fmt.out" "fixtures/cli/expected/$fmt.out"; then ok "format $fmt: golden output"
	else fail "format $fmt: golden output" "$(diff "fixtures/cli/expected/$fmt.out" "$tmp/$fmt.out" | head -20)"; fi
	expect_err "format $fmt: summary on standard error" "4 files scanned, 4 findings (2 fixable)"
done

if command -v python3 >/dev/null 2>&1; then
	run python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"version", "findings", "summary"}, d.keys()
assert len(d["findings"]) == 4
for f in d["findings"]:
    for k in ("code", "rule", "severity", "message", "path", "start", "end", "url", "fix"):
        assert k in f, (k, f)
    for p in (f["start"], f["end"]):
        assert set(p) == {"line", "column", "byte"}, p
fixes = [f["fix"]["applicability"] for f in d["findings"]]
assert sorted(fixes) == ["manual", "safe", "safe", "unsafe"], fixes
assert d["summary"]["findings"] == 4 and d["summary"]["fixable"] == 2, d["summary"]
' "$tmp/json.out"
	expect_rc "json parses back with the required keys" 0
	run python3 -c '
import json, sys
for line in open(sys.argv[1]):
    f = json.loads(line)
    assert f["code"].startswith("MPS") and "fix" in f
' "$tmp/jsonl.out"
	expect_rc "jsonl: every line is a finding object" 0
	run python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0"
run = d["runs"][0]
ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
assert {"MPS006", "MPS101", "MPS104"} <= set(ids) and len(set(ids)) == len(ids), ids
res = run["results"]
assert len(res) == 4
for r in res:
    assert r["ruleId"] in ids and r["level"] in ("error", "warning", "note"), r
    assert ids[r["ruleIndex"]] == r["ruleId"], r
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] and loc["region"]["startLine"] >= 1, loc
fixed = [r for r in res if "fixes" in r]
assert len(fixed) == 3, len(fixed)      # safe, safe, unsafe; not the manual one
for r in fixed:
    rep = r["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert "deletedRegion" in rep and "insertedContent" in rep, rep
' "$tmp/sarif.out"
	expect_rc "sarif parses back: 2.1.0, rules, results, fixes" 0
fi

rm -f "$tmp/report.txt"
run "$bin" check --isolated --format concise -o "$tmp/report.txt" "$proj"
expect_rc "-o FILE: exit 1" 1
expect_empty_out "-o FILE: nothing on standard output"
if cmp -s "$tmp/report.txt" fixtures/cli/expected/concise.out; then ok "-o FILE: the report is in the file"
else fail "-o FILE: the report is in the file" "$(cat "$tmp/report.txt")"; fi
run env MPSFIX_FORMAT=json "$bin" check --isolated "$proj"
expect_out "MPSFIX_FORMAT=json gives json" '"findings": ['
run env MPSFIX_FORMAT=json "$bin" check --isolated --format github "$proj"
expect_out "--format beats MPSFIX_FORMAT" "::warning file=$proj/train.py,line=6,col=10"
# github: property values escape '%', ',' and ':' (a path is a property)
mkdir -p "$tmp/gh"
one "$tmp/gh/b,c:d%.py"
run_in "$tmp/gh" "$bin" check --isolated --format github 'b,c:d%.py'
expect_out "github escapes the file property" "::warning file=b%2Cc%3Ad%25.py,line=2,col=5,"
# check --format diff is still check: it reports findings, so it exits 1
mkdir -p "$tmp/cd"
one "$tmp/cd/a.py"
run "$bin" check --isolated --format diff "$tmp/cd"
expect_rc "check --format diff with findings exits 1" 1
expect_err "check --format diff counts the findings" "1 finding (1 fixable)"

# --- 2. exit codes ---------------------------------------------------------------
mkdir -p "$tmp/ex/empty" "$tmp/ex/clean"
printf 'import torch\nx = torch.ones(2)\n' >"$tmp/ex/clean/c.py"
run "$bin" check --isolated "$tmp/ex/clean"
expect_rc "check without findings: 0" 0
run "$bin" check --isolated "$tmp/ex/empty"
expect_rc "check of an empty folder: 0" 0
run "$bin" check --isolated --exit-zero "$proj"
expect_rc "check --exit-zero: 0" 0
run "$bin" check --isolated --bogus "$proj"
expect_rc "bad option: 2" 2
run "$bin" check --isolated --format xml "$proj"
expect_rc "bad --format: 2" 2
run "$bin" check --isolated --config x.yml "$proj"
expect_rc "--config with --isolated: 2" 2
run "$bin" check --isolated --select MPS9 "$proj"
expect_rc "unknown selector: 2" 2
expect_err "unknown selector is named" "'MPS9' names no rule"
mkdir -p "$tmp/ex/badcfg"
printf 'select: [MPS1]\nunsafe-fix: true\n' >"$tmp/ex/badcfg/.mpsfix.yml"
one "$tmp/ex/badcfg/a.py"
run_in "$tmp/ex/badcfg" "$bin" check
expect_rc "broken config: 2" 2
expect_err "broken config: file:line:col" ".mpsfix.yml:2:1: unknown key 'unsafe-fix'"
expect_empty_out "broken config: no partial run"
printf 'extend-select: MPS204\nper-file-ignores:\n  "*.py": [MPS001, NOPE1]\n' >"$tmp/ex/badcfg/.mpsfix.yml"
run_in "$tmp/ex/badcfg" "$bin" check
expect_rc "a config's unknown code: 2" 2
expect_err "a config's unknown code in per-file-ignores: file:line:col, not an option" \
	".mpsfix.yml:3:20: 'per-file-ignores': 'NOPE1' names no rule"
printf 'select: [MPS999]\n' >"$tmp/ex/badcfg/.mpsfix.yml"
run_in "$tmp/ex/badcfg" "$bin" check
expect_err "a config's unknown code in select: file:line:col, not --select" ".mpsfix.yml:1:10: 'select': 'MPS999' names no rule"
run "$bin" check --isolated --rules fixtures/bad-rules/"$(ls fixtures/bad-rules | grep '\.yml$' | head -n 1)" "$proj"
expect_rc "broken rule file: 2" 2
run "$bin" diff --isolated "$proj"
expect_rc "diff not empty: 1" 1
run "$bin" diff --isolated "$tmp/ex/clean"
expect_rc "diff empty: 0" 0
mkdir -p "$tmp/ex/fix1" "$tmp/ex/fix2" "$tmp/ex/fix3"
one "$tmp/ex/fix1/a.py"
run "$bin" fix --isolated "$tmp/ex/fix1"
expect_rc "fix, all fixed: 0" 0
expect_err "fix summary counts the fix" "1 fixed, 0 findings left"
cp -R "$proj/." "$tmp/ex/fix2/"
run "$bin" fix --isolated "$tmp/ex/fix2"
expect_rc "fix, findings left: 1" 1
expect_err "fix summary: fixed and left" "2 fixed, 2 findings left"
one "$tmp/ex/fix3/a.py"
run "$bin" fix --isolated --exit-non-zero-on-fix "$tmp/ex/fix3"
expect_rc "fix --exit-non-zero-on-fix after a fix: 1" 1
run "$bin" fix --isolated --exit-non-zero-on-fix "$tmp/ex/fix3"
expect_rc "fix --exit-non-zero-on-fix with nothing to fix: 0" 0

# interrupt: a tree big enough that the run is still going when SIGINT comes
# (3,000 files of 400 lines: about 3 s of work; SIGINT comes after 0.3 s)
mkdir -p "$tmp/big"
awk 'BEGIN { print "import torch"; for (i = 0; i < 100; i++) {
	print "loader = torch.utils.data.DataLoader(ds, pin_memory=True)"
	print "device = \"cuda\" if torch.cuda.is_available() else \"cpu\""
	print "y = x.to(\"mps\", non_blocking=True)"
	print "z = compute(y, scale=0.5)" } }' >"$tmp/big.py"
i=0
while [ $i -lt 30 ]; do
	mkdir -p "$tmp/big/d$i"
	j=0
	while [ $j -lt 100 ]; do cp "$tmp/big.py" "$tmp/big/d$i/f$j.py"; j=$((j + 1)); done
	i=$((i + 1))
done
if command -v python3 >/dev/null 2>&1; then
	interruptible "$tmp/int.ready" "$bin" check --isolated "$tmp/big" >/dev/null 2>"$tmp/int.err" &
	pid=$!
	wait_file "$tmp/int.ready"
	sleep 0.3
	if kill -INT "$pid" 2>/dev/null; then
		wait "$pid"
		rc=$?
		if grep -q 'files scanned' "$tmp/int.err" && ! grep -q -i interrupt "$tmp/int.err" && [ "$rc" != 130 ]; then
			echo "skip interrupt: the run ended before SIGINT came (exit $rc)"
		else
			out="" err=$(cat "$tmp/int.err")
			expect_rc "SIGINT: 130" 130
		fi
	else
		wait "$pid"
		echo "skip interrupt: the run ended before SIGINT came"
	fi
fi

# --- 3. selection ------------------------------------------------------------------
mkdir -p "$tmp/sel"
all3 "$tmp/sel/a.py"
s=$tmp/sel
run "$bin" check --isolated --format concise "$s"
expect_codes "all rules by default" "MPS101 MPS104 MPS006"
run "$bin" check --isolated --select MPS1 "$s"
expect_codes "--select MPS1 (prefix)" "MPS101 MPS104"
run "$bin" check --isolated --select dataloader-pin-memory "$s"
expect_codes "--select rule id" "MPS101"
run "$bin" check --isolated --ignore MPS104 "$s"
expect_codes "--ignore" "MPS101 MPS006"
run "$bin" check --isolated --select MPS006,MPS104 "$s"
expect_codes "--select comma list" "MPS104 MPS006"
run "$bin" check --isolated --select MPS006 --select MPS101 "$s"
expect_codes "--select repeated" "MPS101 MPS006"
run "$bin" check --isolated --select MPS006 --extend-select MPS101 "$s"
expect_codes "--extend-select adds" "MPS101 MPS006"
run "$bin" check --isolated --ignore MPS101,to-mps-non-blocking "$s"
expect_codes "--ignore comma list of code and id" "MPS104"
printf 'select: [MPS1]\nignore: [MPS104]\n' >"$s/.mpsfix.yml"
run_in "$s" "$bin" check
expect_codes "config select/ignore" "MPS101"
run_in "$s" "$bin" check --select MPS006
expect_codes "--select beats config select" "MPS006"
run_in "$s" "$bin" check --ignore MPS101
expect_rc "--ignore adds to the config's ignore" 0
run_in "$s" "$bin" check --extend-select MPS006
expect_codes "--extend-select adds to the config's select" "MPS101 MPS006"
rm -f "$s/.mpsfix.yml"

# --- 4. suppression ------------------------------------------------------------------
mkdir -p "$tmp/sup"
cat >"$tmp/sup/a.py" <<'EOF'
import torch
from torch.utils.data import DataLoader
l1 = DataLoader(ds, pin_memory=True)  # noqa
l2 = DataLoader(ds, pin_memory=True)  # noqa: MPS101
l3 = DataLoader(ds, pin_memory=True)  # noqa: MPS1
l4 = DataLoader(ds, pin_memory=True)  # mpsfix: ignore[MPS101]
l5 = DataLoader(ds, pin_memory=True)  # mpsfix: ignore
l6 = DataLoader(  # noqa: MPS101
    ds,
    pin_memory=True,
)
l7 = DataLoader(ds, pin_memory=True)  # noqa: MPS006
l8 = DataLoader(ds, pin_memory=True)
EOF
run "$bin" check --isolated --format concise "$tmp/sup"
expect_codes "only the unsuppressed findings" "MPS101 MPS101"
expect_out "noqa naming another rule suppresses nothing" "a.py:12:6: MPS101"
expect_out "no comment: reported" "a.py:13:6: MPS101"
expect_no_out "multi-line call, comment on its first line" "a.py:8:"
run "$bin" check --isolated --show-unused-suppressions --select MPS101 "$tmp/sup/a.py"
expect_rc "--show-unused-suppressions: exit 1" 1
expect_out "--show-unused-suppressions names the unused one" "a.py:12:39: MPS000 unused suppression comment for MPS006"
cat >"$tmp/sup/b.py" <<'EOF'
import torch
y = torch.ones(2)  # noqa: MPS006
EOF
run "$bin" check --isolated --show-unused-suppressions "$tmp/sup/b.py"
expect_rc "an unused suppression alone: exit 1" 1
expect_out "the unused suppression is reported" "b.py:2:"
run "$bin" check --isolated "$tmp/sup/b.py"
expect_rc "without --show-unused-suppressions: exit 0" 0
cat >"$tmp/sup/c.py" <<'EOF'
import torch
# mpsfix: ignore-file
y = x.to("mps", non_blocking=True)
loader = torch.utils.data.DataLoader(ds, pin_memory=True)
EOF
run "$bin" check --isolated "$tmp/sup/c.py"
expect_rc "ignore-file: exit 0" 0
expect_empty_out "ignore-file: nothing reported"
cp "$tmp/sup/a.py" "$tmp/sup/a.orig"
run "$bin" fix --isolated "$tmp/sup/a.py"
expect_rc "fix with suppressed findings left: 0" 0
n=$(grep -c 'pin_memory=True' "$tmp/sup/a.py")
[ "$n" = 6 ] && ok "fix leaves suppressed findings alone" || fail "fix leaves suppressed findings alone" "$(cat "$tmp/sup/a.py")"
grep -q '^l8 = DataLoader(ds, pin_memory=not torch.backends.mps.is_available())$' "$tmp/sup/a.py" &&
	ok "fix fixes the unsuppressed finding" || fail "fix fixes the unsuppressed finding" "$(cat "$tmp/sup/a.py")"

# --- 5. configuration ------------------------------------------------------------------
c=$tmp/cfg
mkdir -p "$c/src/deep" "$c/tests" "$c/gen" "$c/myrules" "$c/other"
all3 "$c/src/deep/a.py"
all3 "$c/tests/t.py"
all3 "$c/gen/g_pb2.py"
cat >"$c/.mpsfix.yml" <<'EOF'
select: [MPS0, MPS101]
exclude: ["gen/**"]
per-file-ignores:
  "tests/**": [MPS101]
EOF
run_in "$c/src/deep" "$bin" check --format concise .
expect_rc "config found from a subfolder" 1
expect_codes "config from a subfolder applies" "MPS101 MPS006"
run_in "$c" "$bin" check --format concise
expect_no_out "exclude skips gen/" "g_pb2.py"
expect_out "per-file-ignores: other rules still reported" "tests/t.py:5:5: MPS006"
expect_no_out "per-file-ignores: MPS101 off in tests/" "tests/t.py:3"
run_in "$c" "$bin" check --format concise --exclude 'tests'
expect_no_out "config exclude still applies with --exclude" "g_pb2.py"
expect_no_out "--exclude applies with a config exclude" "tests/t.py"
expect_out "both excludes leave the rest" "src/deep/a.py"
run_in "$c" "$bin" check --isolated --format concise
expect_out "--isolated ignores the config" "g_pb2.py"
printf 'select: [MPS104]\n' >"$c/other/alt.yml"
run_in "$c" "$bin" check --config other/alt.yml src
expect_codes "--config FILE" "MPS104"
cat >"$c/myrules/r.yml" <<'EOF'
id: no-cuda-sync
code: MPS900
severity: warning
message: "torch.cuda.synchronize() does nothing on MPS"
torch: all
match: 'torch.cuda.synchronize()'
EOF
printf 'rules: [../myrules]\nselect: [MPS900]\n' >"$c/other/rules.yml"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$c/other/s.py"
run_in "$c/other" "$bin" check --config rules.yml s.py
expect_rc "rules: extra folder loads" 1
expect_codes "rules: the extra rule reports" "MPS900"
mkdir -p "$c/unsafe"
printf 'unsafe-fixes: true\n' >"$c/unsafe/.mpsfix.yml"
all3 "$c/unsafe/a.py"
run_in "$c/unsafe" "$bin" diff
expect_out "unsafe-fixes: true applies the unsafe fix" 'if torch.backends.mps.is_available()'
run_in "$c/unsafe" "$bin" diff --no-unsafe-fixes
expect_no_out "--no-unsafe-fixes overrides the config" 'if torch.backends.mps.is_available()'
expect_out "--no-unsafe-fixes keeps safe fixes" 'pin_memory=not torch.backends.mps.is_available()'
printf 'target-torch: ">=2.1,<2.6"\n' >"$c/unsafe/.mpsfix.yml"
run_in "$c/unsafe" "$bin" check
expect_err "target-torch in the summary" ">=2.1,<2.6"

# --- 6. git-aware discovery ----------------------------------------------------------
r=$tmp/repo
mkdir -p "$r/pkg" "$r/build"
one "$r/tracked.py"
one "$r/pkg/stub.pyi"
one "$r/build/gen.py"
one "$r/ignored.py"
printf 'build/\nignored.py\n' >"$r/.gitignore"
(cd "$r" && g init -q && g add tracked.py .gitignore && g commit -q -m init) >/dev/null 2>&1
one "$r/untracked.py"
run_in "$r" "$bin" check --isolated --format concise
expect_out "git: tracked file checked" "tracked.py:2:5"
expect_out "git: untracked file checked" "untracked.py:2:5"
expect_out "git: .pyi file found" "stub.pyi:2:5"
expect_no_out "git: ignored file skipped" "ignored.py"
expect_no_out "git: ignored folder skipped" "gen.py"
run_in "$r" "$bin" check --isolated --no-ignore --format concise
expect_out "--no-ignore: ignored file included" "ignored.py:2:5"
expect_out "--no-ignore: ignored folder included" "gen.py:2:5"
run_in "$r" "$bin" check --isolated --format concise ignored.py
expect_out "an ignored file named explicitly is checked" "ignored.py:2:5"
run_in "$r" "$bin" check --isolated --format concise build/gen.py
expect_out "a file in an ignored folder named explicitly is checked" "build/gen.py:2:5"
# a folder git ignores, named on the command line, is read (as ruff reads it)
mkdir -p "$r/build/sub" "$r/build/.cache"
one "$r/build/sub/deep.py"
one "$r/build/.cache/hidden.py"
run_in "$r" "$bin" check --isolated --format concise build
expect_rc "an ignored folder named explicitly: exit 1" 1
expect_out "an ignored folder named explicitly is checked" "build/gen.py:2:5"
expect_out "an ignored folder named explicitly: its subfolders too" "build/sub/deep.py:2:5"
expect_no_out "an ignored folder named explicitly: hidden folders still skipped" "hidden.py"
expect_err "an ignored folder named explicitly: counted" "2 files scanned"
run_in "$r/build" "$bin" check --isolated --format concise .
expect_out "check . inside an ignored folder finds the finding" "gen.py:2:5"
expect_out "check . inside an ignored folder: its subfolders too" "sub/deep.py:2:5"
run_in "$r/build/sub" "$bin" check --isolated --format concise
expect_out "check inside a folder below an ignored one" "deep.py:2:5"
run_in "$r" "$bin" check --isolated --format concise .
expect_no_out "an ignored folder found in a folder is still skipped" "gen.py"
# what reads git's content keeps git's list: an ignored folder's tracked files only
run_in "$r" "$bin" check --isolated --format concise --staged build
expect_empty_out "--staged: an ignored folder gives its tracked files only (none)"
expect_err "--staged: why nothing was checked" \
	"mpsfix: build: nothing to check: git ignores its 2 Python files (--no-ignore reads them)"
# a folder that gives nothing says why
mkdir -p "$r/docs" "$r/data"
printf 'x\n' >"$r/docs/index.md"
one "$r/data/load.py"
printf '*.py\n' >"$r/data/.gitignore"
run_in "$r" "$bin" check --isolated --format concise docs
expect_rc "a folder without Python files: exit 0" 0
expect_err "a folder without Python files: named, and why" "mpsfix: docs: nothing to check: no *.py, *.pyi or *.ipynb file in it"
run_in "$r" "$bin" check --isolated --format concise data
expect_err "a folder whose files git ignores: named, and why" \
	"mpsfix: data: nothing to check: git ignores its 1 Python file (--no-ignore reads it)"
run_in "$r" "$bin" check --isolated --format concise --exclude 'pkg/*' pkg
expect_err "a folder whose files --exclude leaves out: named, and why" \
	"mpsfix: pkg: nothing to check: --exclude, --include or the configuration's exclude leave out its 1 Python file"
run_in "$r" "$bin" check --isolated --format concise pkg
expect_no_err "a folder that gives files: no such warning" "nothing to check"
rm -rf "$r/docs" "$r/data" "$r/build/sub" "$r/build/.cache"
run_in "$r" "$bin" check --isolated --format concise --exclude 'pkg/*'
expect_no_out "--exclude glob" "stub.pyi"
expect_out "--exclude leaves the rest" "tracked.py"
run_in "$r" "$bin" check --isolated --format concise --include '*.pyi'
expect_out "--include glob" "stub.pyi"
expect_no_out "--include leaves out the rest" "tracked.py"

# --- 7. standard input -----------------------------------------------------------------
printf 'import torch\ny = x.to("mps", non_blocking=True)\n' >"$tmp/in.py"
"$bin" check --isolated --stdin-filename src/x.py - <"$tmp/in.py" >"$tmp/out" 2>"$tmp/err"
rc=$? out=$(cat "$tmp/out") err=$(cat "$tmp/err")
expect_rc "check -: exit 1" 1
expect_out "check - --stdin-filename names it" "src/x.py:2:5: MPS006 [*]"
"$bin" fix --isolated - <"$tmp/in.py" >"$tmp/out" 2>"$tmp/err"
rc=$? err=$(cat "$tmp/err")
expect_rc "fix -: exit 0" 0
printf 'import torch\ny = x.to("mps")\n' >"$tmp/in.want"
if cmp -s "$tmp/out" "$tmp/in.want"; then ok "fix - prints the fixed text on stdout"
else fail "fix - prints the fixed text on stdout" "$(cat "$tmp/out")"; fi
expect_err "fix -: report on stderr" "1 fixed"
"$bin" diff --isolated --stdin-filename src/x.py - <"$tmp/in.py" >"$tmp/out" 2>"$tmp/err"
rc=$? out=$(cat "$tmp/out") err=$(cat "$tmp/err")
expect_rc "diff -: exit 1" 1
expect_out "diff - names the stdin file" "+++ b/src/x.py"
expect_out "diff - shows the fix" '+y = x.to("mps")'

# --- 8. --since and --staged -----------------------------------------------------------
h=$tmp/hist
mkdir -p "$h"
printf 'import torch\nold = a.to("mps", non_blocking=True)\n' >"$h/m.py"
(cd "$h" && g init -q && g add m.py && g commit -q -m one) >/dev/null 2>&1
printf 'import torch\nold = a.to("mps", non_blocking=True)\nnew = b.to("mps", non_blocking=True)\n' >"$h/m.py"
run_in "$h" "$bin" check --isolated --format concise
expect_codes "without --since: both" "MPS006 MPS006"
run_in "$h" "$bin" check --isolated --format concise --since HEAD
expect_rc "--since HEAD: exit 1 (new finding)" 1
expect_out "--since HEAD reports the new finding" "m.py:3:7"
expect_no_out "--since HEAD leaves out the old finding" "m.py:2:"
(cd "$h" && g add m.py && g commit -q -m two) >/dev/null 2>&1
run_in "$h" "$bin" check --isolated --since HEAD
expect_rc "--since HEAD with nothing changed: 0" 0
one "$h/s.py"
(cd "$h" && g add s.py) >/dev/null 2>&1
printf 'import torch\ny = x.to("mps")\n' >"$h/s.py"
run_in "$h" "$bin" check --isolated --format concise --staged
expect_rc "--staged: exit 1" 1
expect_out "--staged checks the staged content" "s.py:2:5: MPS006"
expect_no_out "--staged leaves out the files with no staged change (m.py as HEAD has it)" "m.py"
run_in "$h" "$bin" check --isolated --format concise s.py
expect_rc "plain check of the work tree: exit 0" 0
expect_no_out "plain check does not see the staged content" "s.py"

# --- 9. --statistics, --quiet -----------------------------------------------------------
run "$bin" check --isolated --statistics "$proj"
expect_rc "--statistics: exit 1" 1
stats="$out
$err"
case $stats in *MPS104*2*|*2*MPS104*) ok "--statistics counts MPS104 twice" ;; *) fail "--statistics counts MPS104 twice" "$stats" ;; esac
case $stats in *MPS101*) ok "--statistics names MPS101" ;; *) fail "--statistics names MPS101" "$stats" ;; esac
run "$bin" check --isolated --quiet "$proj"
expect_rc "--quiet: exit 1" 1
[ -z "$err" ] && ok "--quiet: no summary" || fail "--quiet: no summary" "$err"
expect_out "--quiet still reports" "train.py:6:10: MPS101"

# --- 10. a rule's skip-paths: MPS104 leaves tests and conversion scripts alone, MPS101 and MPS007 tests ----
sp=$tmp/skip-paths
mkdir -p "$sp/tests" "$sp/scripts" "$sp/src/testing"
sel='import torch
device = "cuda" if torch.cuda.is_available() else "cpu"
'
mkdir -p "$sp/kv"
for f in tests/test_model.py scripts/convert_ckpt.py conftest.py src/train.py src/testing/helpers.py kv/tests.py \
	kv/my_tests.py; do
	printf '%s' "$sel" >"$sp/$f"
done
run_in "$sp" "$bin" check --isolated --select MPS104 --format concise .
expect_out "skip-paths: a training script is reported" "src/train.py:2:10: MPS104"
expect_out "skip-paths: a folder that only looks like tests is not skipped" "src/testing/helpers.py:2:10: MPS104"
expect_no_out "skip-paths: a tests folder is skipped" "tests/test_model.py"
expect_no_out "skip-paths: a conversion script is skipped" "convert_ckpt.py"
expect_no_out "skip-paths: conftest.py is skipped" "conftest.py"
expect_no_out "skip-paths: a test module named tests.py is skipped" "kv/tests.py"
expect_out "skip-paths: a module that only ends in tests.py is not" "kv/my_tests.py:2:10: MPS104"
run_in "$sp/src" "$bin" check --isolated --select MPS104 --format concise "$sp/src/train.py"
expect_out "skip-paths: a path given outside the folder run from" "train.py:2:10: MPS104"
loader='import torch
loader = torch.utils.data.DataLoader(range(4), pin_memory=True)
'
for f in tests/test_loader.py src/test_support.py src/loader.py; do
	printf '%s' "$loader" >"$sp/$f"
done
run_in "$sp" "$bin" check --isolated --select MPS101 --format concise .
expect_out "skip-paths: MPS101 reports a training loader" "src/loader.py:2:10: MPS101"
expect_no_out "skip-paths: MPS101 leaves a test's loader alone" "tests/test_loader.py"
expect_no_out "skip-paths: MPS101 leaves test_*.py alone" "src/test_support.py"
amp='import torch
with torch.autocast(device_type=dev, dtype=torch.float16):
    y = model(x)
'
for f in tests/test_amp.py src/amp_test.py src/amp.py; do
	printf '%s' "$amp" >"$sp/$f"
done
run_in "$sp" "$bin" check --isolated --select MPS007 --format concise .
expect_out "skip-paths: MPS007 reports a training autocast" "src/amp.py:2:6: MPS007"
expect_no_out "skip-paths: MPS007 leaves a test's autocast alone" "tests/test_amp.py"
expect_no_out "skip-paths: MPS007 leaves *_test.py alone" "src/amp_test.py"
# a file named alone: its path inside its git work tree, not the folders above the project
mkdir -p "$sp/test/proj/tests"
printf '%s' "$loader" >"$sp/test/proj/train.py"
printf '%s' "$loader" >"$sp/test/proj/tests/helpers.py"
(cd "$sp/test/proj" && git init -q .)
run_in "$sp" "$bin" check --isolated --select MPS101 --format concise "$sp/test/proj/train.py"
expect_out "skip-paths: a folder above the work tree is not the project's" "train.py:2:10: MPS101"
run_in / "$bin" check --isolated --select MPS101 --format concise "$sp/test/proj/tests/helpers.py"
expect_no_out "skip-paths: a file named alone in the work tree's tests folder is skipped" "helpers.py"
run_in "$sp/test/proj" "$bin" check --isolated --select MPS101 --format concise --stdin-filename tests/helpers.py - <"$sp/test/proj/tests/helpers.py"
expect_no_out "skip-paths: --stdin-filename in the tests folder is skipped" "helpers.py"

# --- 11. the AMP trainer of issue 19: device variables, on torch 2.5.1 --------------------
# fixtures/cli/amp-trainer/project: AMP enabled for MPS and CUDA alike, copies to
# self.device with non_blocking=True, pin_memory turned on because MPS is available.
am=$tmp/amp-trainer
cp -r fixtures/cli/amp-trainer/project "$am"
run_in "$am" "$bin" check --isolated --format concise .
expect_rc "amp trainer: findings exit 1" 1
if [ -n "${MPSFIX_UPDATE_GOLDEN:-}" ]; then printf '%s\n' "$out" >fixtures/cli/amp-trainer/expected-check.txt; fi
if [ "$out" = "$(cat fixtures/cli/amp-trainer/expected-check.txt)" ]; then
	ok "amp trainer: the autocast, both copies, the GradScaler and the pin_memory guard are reported"
else fail "amp trainer: findings" "$(printf '%s\n' "$out" | diff fixtures/cli/amp-trainer/expected-check.txt - | head -20)"; fi
run_in "$am" "$bin" diff --isolated --unsafe-fixes .
printf '%s\n' "$out" >"$tmp/amp.diff"
(cd "$am" && git init -q . && git apply --check "$tmp/amp.diff") && ok "amp trainer: git apply takes the diff" \
	|| fail "amp trainer: git apply takes the diff" "$(head -20 "$tmp/amp.diff")"
run_in "$am" "$bin" fix --isolated --unsafe-fixes .
expect_rc "amp trainer: everything is fixed" 0
if [ -n "${MPSFIX_UPDATE_GOLDEN:-}" ]; then cp "$am/train.py" fixtures/cli/amp-trainer/expected-train.py; fi
if cmp -s "$am/train.py" fixtures/cli/amp-trainer/expected-train.py; then
	ok "amp trainer: fix --unsafe-fixes turns AMP off on MPS only"
else fail "amp trainer: fixed text" "$(diff fixtures/cli/amp-trainer/expected-train.py "$am/train.py" | head -20)"; fi
expect_file_has() { if grep -qF -- "$3" "$2"; then ok "$1"; else fail "$1" "no '$3' in $2"; fi; }
expect_file_has "amp trainer: autocast is off on MPS only" "$am/train.py" 'enabled=self.device.type != "mps" and self.use_amp,'
expect_file_has "amp trainer: the copies block on MPS only" "$am/train.py" 'non_blocking=not str(self.device).startswith("mps")'
cp "$am/train.py" "$tmp/amp-once.py"
run_in "$am" "$bin" fix --isolated --unsafe-fixes .
if cmp -s "$am/train.py" "$tmp/amp-once.py"; then ok "amp trainer: a second fix changes nothing"
else fail "amp trainer: a second fix changes nothing" "$(diff "$tmp/amp-once.py" "$am/train.py" | head)"; fi

test_done
