#!/bin/sh
# Jupyter notebooks end to end: found like *.py, findings named by cell,
# a diff that git apply takes, fix writing only the changed cells' sources
# (outputs, metadata, layout byte for byte), a second fix changing nothing,
# standard input, positions in the JSON formats, bad notebooks skipped with a
# message while the run goes on, commit and patch recording notebooks in the
# same per-rule commits as scripts (review: tests/check_review.c).
# usage: sh tests/t0130-notebook.sh [path/to/mpsfix]
. "$(dirname "$0")/test-lib.sh"

isolate
nb=fixtures/notebook/train.ipynb
fixed=fixtures/notebook/train.fixed.ipynb

# --- check: found in a folder, by cell ---------------------------------------------
mkdir -p "$tmp/p"
cp "$nb" "$tmp/p/train.ipynb"
run_in "$tmp/p" "$bin" check
expect_rc "check: a folder whose only findings are in a notebook is not clean" 1
expect_eq "check: each finding names its cell, and the line and column in it" "$out" \
"train.ipynb:cell 3:2:13: MPS001 [*] torch.std_mean has no MPS kernel before torch 2.4: split it into torch.std and torch.mean
train.ipynb:cell 5:3:10: MPS101 [*] pin_memory does nothing on MPS: turn it off where MPS is available"
run_in "$tmp/p" "$bin" check --format full train.ipynb
expect_out "check --format full: the cell's own line numbers" "3 | loader = torch.utils.data.DataLoader(dataset, batch_size=32, pin_memory=True)"

# the JSON formats: the notebook file's lines, and the cell
std_line=$(grep -n 'torch.std_mean' "$nb" | cut -d: -f1)
run_in "$tmp/p" "$bin" check --format json train.ipynb
got=$(printf '%s\n' "$out" | python3 -c 'import json, sys
f = json.load(sys.stdin)["findings"][0]
print(f["start"]["line"], f["start"]["column"], f["cell"]["number"], f["cell"]["line"])')
expect_eq "check --format json: line in the file, cell number and line" "$got" "$std_line 13 3 2"
got=$("$bin" check --format json fixtures/notebook/imports.ipynb | python3 -c 'import json, sys
f = json.load(sys.stdin)["findings"][0]
e = f["fix"]["edits"][0]
print(f["start"]["byte"], e["start"]["byte"], e["start"]["cell"], e["start"]["column"], repr(e["content"]))')
expect_eq "check --format json: a notebook's edits by cell and line, no byte offsets" "$got" \
	"None None {'number': 3, 'line': 2} 19 '\\nimport torch\\n'"
run_in "$tmp/p" "$bin" check --format github train.ipynb
expect_out "check --format github: the annotation lands on the notebook's line" "file=train.ipynb,line=$std_line,"
run_in "$tmp/p" "$bin" check --format sarif train.ipynb
got=$(printf '%s\n' "$out" | python3 -c 'import json, sys
print(json.load(sys.stdin)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"])')
expect_eq "check --format sarif: the notebook's line" "$got" "$std_line"
got=$(printf '%s\n' "$out" | python3 -c 'import json, sys
r = json.load(sys.stdin)["runs"][0]["results"][0]
print(sorted(r["locations"][0]["physicalLocation"]["region"]), r["properties"], "fixes" in r)')
expect_eq "check --format sarif: no byte offsets or replacements in a notebook, the cell in the properties" "$got" \
	"['endLine', 'startLine'] {'cell': 3, 'cellLine': 2, 'cellColumn': 13, 'cellEndColumn': 37} False"

# --- diff and fix ----------------------------------------------------------------------
(cd "$tmp/p" && git init -q && git add train.ipynb && git -c user.name=t -c user.email=t@t commit -qm nb)
run_in "$tmp/p" "$bin" diff
expect_rc "diff: exit 1 (fixes to show)" 1
printf '%s\n' "$out" >"$tmp/nb.diff"
(cd "$tmp/p" && git apply --check "$tmp/nb.diff") && ok "diff: git apply takes it" || fail "diff: git apply takes it"
run_in "$tmp/p" "$bin" fix
expect_rc "fix: exit 0" 0
same_files "fix: only the changed cells' sources change (byte for byte)" "$fixed" "$tmp/p/train.ipynb"
got=$(changed_cells "$nb" "$tmp/p/train.ipynb")
expect_eq "fix: outputs and metadata the same; cells 3 and 5 changed" "$got" "True [3, 5]"
(cd "$tmp/p" && git diff) >"$tmp/git.diff"
same_files "fix: writes what diff showed" "$tmp/nb.diff" "$tmp/git.diff"
run_in "$tmp/p" "$bin" fix
expect_err "fix again: nothing left" "0 fixed, 0 findings left"
same_files "fix again: the file stays" "$fixed" "$tmp/p/train.ipynb"

# --- an import a fix needs: into the cell that imports from torch ----------------------------
cp fixtures/notebook/imports.ipynb "$tmp/imports.ipynb"
run "$bin" fix "$tmp/imports.ipynb"
expect_rc "fix: an added import, exit 0" 0
same_files "fix: import torch where isort sorts it, in the cell that imports from torch" \
	fixtures/notebook/imports.fixed.ipynb "$tmp/imports.ipynb"
run "$bin" check --statistics fixtures/notebook/imports.ipynb fixtures/notebook/train.ipynb
expect_out "check --statistics: the notebooks' findings counted" "2 MPS101 [*] dataloader-pin-memory"

# --- standard input ------------------------------------------------------------------------
"$bin" fix - --stdin-filename train.ipynb <"$nb" >"$tmp/stdin.out" 2>"$tmp/stdin.err"
same_files "fix -: the fixed notebook on standard output" "$fixed" "$tmp/stdin.out"
run sh -c "\"$bin\" check - --stdin-filename x.ipynb <\"$nb\""
expect_out "check -: cells named" "x.ipynb:cell 3:2:13: MPS001"

# --- bad notebooks: named, skipped, the run goes on, nothing written ---------------------------
mkdir -p "$tmp/bad"
cp "$nb" "$tmp/bad/good.ipynb"
head -c 500 "$nb" >"$tmp/bad/truncated.ipynb"
printf '{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}\n' >"$tmp/bad/old.ipynb"
printf '{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "x = 1\\u0000"}]}\n' >"$tmp/bad/nul.ipynb"
printf '{"nbformat": 4, "cells": [{"cell_type": "code", "source": "caf\351"}]}\n' >"$tmp/bad/latin1.ipynb"
for f in truncated old nul latin1; do cp "$tmp/bad/$f.ipynb" "$tmp/$f.before"; done
run_in "$tmp/bad" "$bin" fix
expect_rc "bad notebooks: the good one is fixed, exit 0" 0
expect_err "truncated JSON: named with its position" "mpsfix: truncated.ipynb:"
expect_err "nbformat 3: named" "mpsfix: old.ipynb: skipped: nbformat 3 notebook"
expect_err "a NUL in a cell: named" "mpsfix: nul.ipynb: cell 1: skipped: the code holds a NUL character"
expect_err "not UTF-8: named" "latin1.ipynb:1:63: skipped: invalid UTF-8"
same_files "bad notebooks: the good one is fixed" "$fixed" "$tmp/bad/good.ipynb"
for f in truncated old nul latin1; do
	same_files "bad notebooks: $f.ipynb left as it was" "$tmp/$f.before" "$tmp/bad/$f.ipynb"
done

# a notebook of 50 MB, mostly outputs (over the 16 MiB limit of a .py file): checked and fixed
python3 -c 'import base64, json, os, random, sys
rng = random.Random(1)
cell = lambda n, src, out: {"cell_type": "code", "execution_count": n, "metadata": {},
    "outputs": out, "source": src}
png = lambda: [{"data": {"image/png": base64.b64encode(rng.randbytes(2600000)).decode()},
    "metadata": {}, "output_type": "display_data"}]
cells = [cell(1, ["import torch\n", "x = torch.randn(8, 2)"], png())]
cells += [cell(i, ["x.sum()"], png()) for i in range(2, 20)]
cells.append(cell(20, ["s, m = torch.std_mean(x, dim=0)"], png()))
json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
    open(sys.argv[1], "w"), indent=1)' "$tmp/big.ipynb"
cp "$tmp/big.ipynb" "$tmp/big.before"
size=$(wc -c <"$tmp/big.ipynb" | tr -d ' ')
[ "$size" -gt 50000000 ] && ok "a 50 MB notebook made ($size bytes)" || fail "a 50 MB notebook made ($size bytes)"
run "$bin" check "$tmp/big.ipynb"
expect_out "a 50 MB notebook: its finding, by cell" "big.ipynb:cell 20:1:8: MPS001"
run "$bin" fix "$tmp/big.ipynb"
expect_rc "a 50 MB notebook: fixed, exit 0" 0
got=$(changed_cells "$tmp/big.before" "$tmp/big.ipynb")
expect_eq "a 50 MB notebook: outputs kept, cell 20 alone changed" "$got" "True [20]"
rm -f "$tmp/big.ipynb" "$tmp/big.before"

# a cell whose JSON mpsfix would not write back the same: reported, not written
printf '{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\\n", "s = torch.std_mean(x)"]}]}\n' >"$tmp/compact.ipynb"
cp "$tmp/compact.ipynb" "$tmp/compact.before"
run "$bin" fix "$tmp/compact.ipynb"
expect_rc "a layout not reproduced: the finding stays (exit 1)" 1
expect_err "a layout not reproduced: why" "cell 1: not fixed: its source is not written the way nbformat writes JSON"
expect_out "a layout not reproduced: the finding is reported" "compact.ipynb:cell 1:2:5: MPS001"
expect_out "a layout not reproduced: as needing a manual fix, with the reason" \
	"(needs a manual fix: cell 1: its source is not written the way nbformat writes JSON"
same_files "a layout not reproduced: the file is left alone" "$tmp/compact.before" "$tmp/compact.ipynb"
run "$bin" check --format concise "$tmp/compact.ipynb"
expect_out "a layout not reproduced: check says manual too, not [*]" \
	"compact.ipynb:cell 1:2:5: MPS001 torch.std_mean has no MPS kernel before torch 2.4: split it into torch.std and torch.mean (needs a manual fix: cell 1: its source is not written the way nbformat writes JSON"
expect_err "a layout not reproduced: check counts it as not fixable" "1 finding (0 fixable)"
# a compact cell whose only fix is unsafe: check without --unsafe-fixes judges
# the fixes fix would make without it (the other cell's safe fix is written)
python3 -c 'import json, sys
nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                 "source": ["import torch\n", "s = torch.std_mean(x)\n"]}],
      "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
text = json.dumps(nb, indent=1)
compact = "{\"cell_type\": \"code\", \"execution_count\": null, \"metadata\": {}, \"outputs\": [], " \
          "\"source\": [\"dev = \\\"cuda\\\" if torch.cuda.is_available() else \\\"cpu\\\"\\n\"]}"
sys.stdout.write(text.replace("\n  }\n ],", "\n  },\n  " + compact + "\n ],", 1) + "\n")' >"$tmp/mixed.ipynb"
run "$bin" check --format concise "$tmp/mixed.ipynb"
expect_out "a compact cell with an unsafe fix only: the other cell's safe fix stays [*]" "mixed.ipynb:cell 1:2:5: MPS001 [*]"
run "$bin" fix "$tmp/mixed.ipynb"
expect_err "a compact cell with an unsafe fix only: fix writes the safe one" "2 fixed, 1 finding left"
run sh -c "\"\$0\" check --format concise --stdin-filename compact.ipynb - <\"\$1\"" "$bin" "$tmp/compact.ipynb"
expect_out "a layout not reproduced: check of standard input says manual too" \
	"(needs a manual fix: cell 1: its source is not written the way nbformat writes JSON"

# --- commit and patch: notebooks in the same per-rule commits as scripts ------------------------
mkrepo "$tmp/r"
cp "$nb" "$tmp/r/train.ipynb"
(cd "$tmp/r" && git add train.ipynb && git commit -qm nb)
cp -R "$tmp/r" "$tmp/r2"
run_in "$tmp/r" "$bin" commit
expect_rc "commit: exit 1 (the demo's unsafe fix is left)" 1
got=$(cd "$tmp/r" && git log --format=%s -1 && git show --name-only --format= HEAD | sort | tr '\n' ' ')
expect_eq "commit: the notebook's MPS101 fix in the MPS101 commit with the script's" "$got" \
"mpsfix: MPS101 dataloader-pin-memory: pin_memory does nothing on MPS: turn it off where MPS is available (2 sites)
data.py train.ipynb "
got=$(cd "$tmp/r" && git show HEAD:train.ipynb | cmp - "$tmp/r/train.ipynb" && git status --porcelain)
expect_eq "commit: the work tree holds the committed notebook, nothing else changed" "$got" ""
run_in "$tmp/r2" "$bin" patch -o "$tmp/patches"
expect_rc "patch: exit 1 (the same finding left)" 1
if grep -q '^+++ b/train.ipynb' "$tmp/patches"/0002-*.patch; then
	ok "patch: the notebook in the MPS101 patch"
else
	fail "patch: the notebook in the MPS101 patch" "$(ls "$tmp/patches")"
fi
(cd "$tmp/r2" && git am -q "$tmp/patches"/*.patch) && ok "patch: git am takes the patches" ||
	fail "patch: git am takes the patches"
got=$(cd "$tmp/r" && git show HEAD:train.ipynb | cmp - "$tmp/r2/train.ipynb" && echo same)
expect_eq "patch: git am gives the notebook commit wrote" "$got" "same"
(cd "$tmp/r2" && git reset -q --hard HEAD~2)
run_in "$tmp/r2" "$bin" commit --allow-dirty train.ipynb
got=$(cd "$tmp/r2" && git log --format=%s -1)
expect_eq "commit NOTEBOOK: the notebook alone" "$got" \
"mpsfix: MPS101 dataloader-pin-memory: pin_memory does nothing on MPS: turn it off where MPS is available (1 site)"

# an import a fix adds goes after a cell magic, which must stay its cell's first line
mkdir -p "$tmp/magic"
printf '%s\n' '{' ' "cells": [' '  {' '   "cell_type": "code",' '   "execution_count": null,' \
	'   "metadata": {},' '   "outputs": [],' '   "source": [' '    "%%capture\n",' '    "import torch\n"' '   ]' \
	'  },' '  {' '   "cell_type": "code",' '   "execution_count": null,' '   "metadata": {},' '   "outputs": [],' \
	'   "source": [' '    "with torch.autocast(\"mps\"):\n",' '    "    pass\n"' '   ]' '  }' ' ],' \
	' "metadata": {},' ' "nbformat": 4,' ' "nbformat_minor": 5' '}' >"$tmp/magic/m.ipynb"
run "$bin" fix --isolated --target-torch '<2.5' "$tmp/magic/m.ipynb"
got=$(python3 -c 'import json, sys; print("|".join(json.load(open(sys.argv[1]))["cells"][0]["source"]).replace("\n", "/"))' \
	"$tmp/magic/m.ipynb")
expect_eq "fix: an added import goes after the cell magic" "$got" "%%capture/|import contextlib/|/|import torch/"

# the lines a fix writes in a cell end as that cell's lines do
printf '%s\n' '{' ' "cells": [' '  {' '   "cell_type": "code",' '   "execution_count": null,' \
	'   "metadata": {},' '   "outputs": [],' '   "source": [' '    "import torch\n"' '   ]' \
	'  },' '  {' '   "cell_type": "code",' '   "execution_count": null,' '   "metadata": {},' '   "outputs": [],' \
	'   "source": [' '    "if a: torch.cuda.synchronize()\r\n",' '    "z = 2\r\n"' '   ]' '  }' ' ],' \
	' "metadata": {},' ' "nbformat": 4,' ' "nbformat_minor": 5' '}' >"$tmp/magic/eol.ipynb"
run "$bin" fix --isolated "$tmp/magic/eol.ipynb"
got=$(python3 -c 'import json, sys; print(sorted(set(l[-2:] for l in json.load(open(sys.argv[1]))["cells"][1]["source"])))' \
	"$tmp/magic/eol.ipynb")
expect_eq "fix: the lines written in a CRLF cell end with CRLF" "$got" "['\\r\\n']"

test_done
