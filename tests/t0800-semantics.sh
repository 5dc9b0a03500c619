#!/bin/sh
# Tests of the semantic test harness (tests/semantics/run.py): it passes a
# correct rewrite, and fails a wrong one, a fix count or a manual count other
# than the header's, a fix that changes nothing, a script that fails, results
# that differ in any way it compares, a notebook (through the script of its
# cells; a notebook mpsfix does not fix fails), a fix that does not take its MPS branch
# where MPS is available (on-mps), and a missing torch.  Uses the rules and
# script of fixtures/semantics/.  Prints 'N passed, N failed'.
# usage: sh tests/t0800-semantics.sh [path/to/mpsfix]
. "$(dirname "$0")/test-lib.sh"
py=${MPSFIX_TORCH_PYTHON:-/usr/bin/python3}
harness=$top/tests/semantics/run.py
fx=$top/fixtures/semantics

# semantic RULE SCRIPT...: the harness with only the rule file RULE
semantic() {
	rule=$1
	shift
	run "$py" "$harness" --mpsfix "$bin" --rules "$rule" "$@"
}

# --- fixes -------------------------------------------------------------------------
semantic "$fx/right.yml" "$fx/std.py"
expect_rc "a correct rewrite passes" 0
expect_out "the passing script is named with its counts" \
	"ok   std.py: 6 values compared, 2 fixes (MPS900=2), 1 manual"
expect_out "the summary counts the compared script" "semantics: 1 scripts compared, 0 skipped, 0 failed"

semantic "$fx/wrong.yml" "$fx/std.py"
expect_rc "a wrong rewrite fails" 1
expect_out "the differing variable is named" "FAIL std.py: row: values not bit for bit equal"
expect_out "a differing gradient is named" "std.py: w.grad: values not bit for bit equal"
expect_out "the summary counts the failure" "semantics: 0 scripts compared, 0 skipped, 1 failed"

sed 's/fixes MPS900=2/fixes MPS900=3/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "another fix count fails" 1
expect_out "the fix count is compared with the header" "MPS900: 2 fixes applied, the header expects 3"

sed 's/fixes MPS900=2/fixes MPS900=2 MPS901=1/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "a code that fixed nothing fails" 1
expect_out "the missing code is named" "MPS901: 0 fixes applied, the header expects 1"

grep -v 'manual MPS900' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "another manual count fails" 1
expect_out "the manual count is compared with the header" \
	"MPS900: 1 findings need a manual fix, the header expects 0"

grep -v 'torch.std(' "$fx/std.py" >"$tmp/std.py"
echo 'whole = x.sum()' >>"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "a script mpsfix does not change fails" 1
expect_out "an unchanged script is reported" "FAIL std.py: mpsfix fix changed nothing"

# --- notebooks: the script of the code cells, and the notebook fixed -----------------
semantic "$fx/right.yml" "$fx/std.ipynb"
expect_rc "a notebook: a correct rewrite passes" 0
expect_out "a notebook: its counts, from its script" "ok   std.ipynb: 6 values compared, notebook, 2 fixes (MPS900=2), 1 manual"
semantic "$fx/wrong.yml" "$fx/std.ipynb"
expect_rc "a notebook: a wrong rewrite fails" 1
expect_out "a notebook: the differing variable is named" "FAIL std.ipynb: row: values not bit for bit equal"
# a layout mpsfix does not write back: the notebook is not fixed, which the harness sees
"$py" -c 'import json, sys
json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' "$fx/std.ipynb" "$tmp/std.ipynb"
semantic "$fx/right.yml" "$tmp/std.ipynb"
expect_rc "a notebook mpsfix does not fix fails" 1
expect_out "the notebook's count is compared with its script's" \
	"std.ipynb: mpsfix fix made 0 fixes in the notebook, 2 in its script"

# --- headers -----------------------------------------------------------------------
grep -v 'semantic: fixes' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "a script without a fixes line fails" 1
expect_out "the missing fixes line is reported" "no '# semantic: fixes CODE=N' line"

sed 's/semantic: manual/semantic: manually/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "an unknown directive fails" 1
expect_out "the unknown directive is named with its line" "std.py:5: unknown directive 'manually'"

sed 's/fixes MPS900=2/fixes MPS900=two/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "a malformed count fails" 1
expect_out "the malformed count is named" "'MPS900=two' is not CODE=N"

sed 's/requires torch>=1.0/requires torch>=99.1/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/wrong.yml" "$tmp/std.py"
expect_rc "a script for a newer torch is skipped" 0
expect_out "the skip gives the reason" "skip std.py: needs torch>=99.1, have "
expect_out "the summary counts the skip" "semantics: 0 scripts compared, 1 skipped, 0 failed"

sed 's/requires torch>=1.0/requires torch>=1.0,<1.1/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/wrong.yml" "$tmp/std.py"
expect_out "an upper bound skips a newer torch" "skip std.py: needs torch>=1.0,<1.1, have "

sed 's/requires torch>=1.0/target-torch 2.5/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "a script with a target passes" 0
sed 's/requires torch>=1.0/target-torch not-a-version/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_rc "the target reaches mpsfix: a bad one fails" 1
expect_out "mpsfix's refusal of the target is shown" "mpsfix check exited with status 2"
sed 's/requires torch>=1.0/target-torch/' "$fx/std.py" >"$tmp/std.py"
semantic "$fx/right.yml" "$tmp/std.py"
expect_out "a target-torch line without a spec is refused" "expected 'target-torch SPEC'"

# --- comparing results (--compare: no mpsfix) ------------------------------------
cat >"$tmp/a.py" <<'EOF'
# semantic: fixes MPS900=1
import torch
torch.manual_seed(0)
x = torch.randn(4, 3, dtype=torch.float64)
w = torch.ones(3, dtype=torch.float64, requires_grad=True)
(w * 2).sum().backward()
mean = x.mean(0)
shaped = x.mean(0)
typed = x.mean(0)
grads = x.mean(0)
count = 3
ratio = 0.5
name = "cpu"
device = torch.device("cpu")
pair = (x.sum(), [1, 2])
table = {"a": x.max()}
gone = 1
EOF
# compare_edit SED-SCRIPT: run a.py against a copy edited by SED-SCRIPT
compare_edit() {
	sed "$1" "$tmp/a.py" >"$tmp/b.py"
	run "$py" "$harness" --compare "$tmp/a.py" "$tmp/b.py"
}
compare_edit 's/^count = 3$/count = 3/'
expect_rc "identical results pass" 0
expect_out "identical results are counted" "ok   b.py: 16 values compared"

compare_edit '/^gone = /d
s/^count = 3$/count = 3\nextra = 1/
s/^ratio = 0.5$/ratio = 1/
s/^name = "cpu"$/name = "mps"/
s/torch.device("cpu")/torch.device("meta")/
s/^typed = x.mean(0)$/typed = x.float().mean(0)/
s/^shaped = x.mean(0)$/shaped = x.mean(0, keepdim=True)/
s/^grads = x.mean(0)$/grads = x.mean(0).requires_grad_()/
s/(w \* 2)/(w * 3)/
s/\[1, 2\]/[1, 2, 3]/
s/x.max()}/x.min()}/
s/^mean = x.mean(0)$/mean = x.mean(0) * (1 + 2 ** -52)/'
expect_rc "different results fail" 1
expect_out "a missing variable is named" "only in the original: gone"
expect_out "an extra variable is named" "only in the fixed script: extra"
expect_out "another type is named" "ratio: float in the original, int in the fixed script"
expect_out "another string is shown" "name: 'cpu' in the original, 'mps' in the fixed script"
expect_out "another device is shown" "device: cpu in the original, meta in the fixed script"
expect_out "another dtype is shown" "typed: dtype torch.float64 in the original, torch.float32 in the fixed script"
expect_out "another shape is shown" "shaped: shape (3,) in the original, (1, 3) in the fixed script"
expect_out "requires_grad is compared" "grads: requires_grad False in the original, True in the fixed script"
expect_out "gradients are compared" "w.grad: values not bit for bit equal"
expect_out "nested values are compared" "pair[1]: list of 2 in the original, of 3 in the fixed script"
expect_out "dictionary values are compared" "table['a']: values not bit for bit equal"
expect_out "one ulp is a difference by default" "mean: values not bit for bit equal"
expect_no_out "equal values are not reported" "count:"

sed_i "$tmp/a.py" -e 's/^# semantic: fixes MPS900=1$/# semantic: fixes MPS900=1\
# semantic: allclose/' -e 's/^shaped = /exact_shaped = /'
compare_edit 's/^mean = x.mean(0)$/mean = x.mean(0) * (1 + 2 ** -52)/
s/^ratio = 0.5$/ratio = 0.5 * (1 + 2 ** -52)/'
expect_rc "allclose accepts a difference of one ulp" 0
compare_edit 's/^mean = x.mean(0)$/mean = x.mean(0) * (1 + 1e-9)/
s/^exact_shaped = x.mean(0)$/exact_shaped = x.mean(0) * (1 + 2 ** -52)/
s/^ratio = 0.5$/ratio = 0.5 + 1e-9/'
expect_rc "allclose rejects a relative difference of 1e-9 in float64" 1
expect_out "the tolerance is shown" "mean: values not within rtol=1.42e-14 atol=1.42e-14"
expect_out "exact_ variables stay bit for bit under allclose" "exact_shaped: values not bit for bit equal"
expect_out "numbers get the same tolerance" "ratio: 0.5 in the original, 0.500000001 in the fixed script"
sed_i "$tmp/a.py" 's/^# semantic: allclose$/# semantic: allclose rtol=1e-6/'
compare_edit 's/^ratio = 0.5$/ratio = 0.5 + 1e-9/
s/^mean = x.mean(0)$/mean = x.mean(0) * (1 + 1e-9)/'
expect_rc "allclose rtol= sets the tolerance" 0
compare_edit 's/^ratio = 0.5$/ratio = 0.5 + 1e-5/'
expect_out "a number outside rtol= is shown" "ratio: 0.5 in the original, 0.50001 in the fixed script"

compare_edit 's/^count = 3$/count = object()/'
expect_rc "a value the harness cannot compare fails" 1
expect_out "the value's type is named" "count: cannot compare a value of type object"
compare_edit 's/^count = 3$/count = 1 \/ 0/'
expect_rc "a failing script fails" 1
expect_out "the failing script is named" "the fixed script failed (exit status 1)"
expect_out "its error is shown" "ZeroDivisionError: division by zero"
expect_no_out "the original ran" "the original script failed"

# --- where MPS is available (on-mps: is_available patched to return True) ---------
cat >"$tmp/m.py" <<'EOF'
# semantic: fixes MPS900=1
# semantic: on-mps device = "mps"
# semantic: on-mps pinned = 0
import torch
pinned = 0


def pin():
    global pinned
    pinned += 1


pin()
device = "cpu"
shape = torch.Size([2])
EOF
# the fixed form: pin() only where MPS is not available, "mps" where it is
guard='s/^pin()$/if not torch.backends.mps.is_available(): pin()/'
pick='s/^device = "cpu"$/device = "mps" if torch.backends.mps.is_available() else "cpu"/'
# mps_edit SED-SCRIPT...: run m.py against a copy edited by the SED-SCRIPTs
mps_edit() {
	sed_args=
	for e in "$@"; do sed_args="$sed_args -e '$e'"; done
	eval "sed $sed_args \"\$tmp/m.py\"" >"$tmp/n.py"
	run "$py" "$harness" --compare "$tmp/m.py" "$tmp/n.py"
}
mps_edit "$guard" "$pick"
expect_rc "a fix that takes its MPS branch passes" 0
expect_out "the values on MPS are counted" "ok   n.py: 3 values compared; on MPS: 2 as expected, 1 the same"
mps_edit "$guard"
expect_rc "a fix that ignores MPS fails" 1
expect_out "the value on MPS is shown with the expected one" \
	"n.py: on MPS: device: 'mps' expected, 'cpu' in the fixed script"
expect_no_out "the branch that was taken is not reported" "pinned"
mps_edit "$guard" "$pick" 's/^shape = torch.Size(\[2\])$/shape = torch.Size([3 if torch.backends.mps.is_available() else 2])/'
expect_rc "a result no on-mps line names that changes on MPS fails" 1
expect_out "that result is compared with the original's on MPS" \
	"n.py: on MPS: shape: (2,) in the original, (3,) in the fixed script"
sed 's/^# semantic: on-mps pinned = 0$/# semantic: on-mps pinned = 0\n# semantic: on-mps-ignore shape/' "$tmp/m.py" >"$tmp/m2.py"
run "$py" "$harness" --compare "$tmp/m2.py" "$tmp/n.py"
expect_rc "on-mps-ignore leaves a result out where MPS is available" 0
expect_out "the ignored result is compared without MPS" "ok   n.py: 3 values compared; on MPS: 2 as expected, 0 the same"
sed 's/^# semantic: on-mps pinned = 0$/# semantic: on-mps pinned = 0\n# semantic: on-mps-ignore shape nothing_here/' \
	"$tmp/m.py" >"$tmp/m2.py"
run "$py" "$harness" --compare "$tmp/m2.py" "$tmp/n.py"
expect_rc "on-mps-ignore of no result fails" 1
expect_out "the name that is no result is reported" "on-mps-ignore nothing_here: no such result where MPS is available"
sed 's/^# semantic: on-mps pinned = 0$/# semantic: on-mps pinned = 0\n# semantic: on-mps-ignore pinned/' "$tmp/m.py" >"$tmp/m2.py"
run "$py" "$harness" --compare "$tmp/m2.py" "$tmp/n.py"
expect_out "a name both on-mps and on-mps-ignore is refused" "m2.py: pinned both on-mps and on-mps-ignore"
sed '/on-mps /d; s/^# semantic: fixes MPS900=1$/# semantic: fixes MPS900=1\n# semantic: on-mps-ignore shape/' "$tmp/m.py" >"$tmp/m2.py"
run "$py" "$harness" --compare "$tmp/m2.py" "$tmp/n.py"
expect_out "on-mps-ignore needs an on-mps line" "m2.py: on-mps-ignore without an on-mps line"
sed 's/^# semantic: on-mps pinned = 0$/# semantic: on-mps shape = torch.Size([2])/' "$tmp/m.py" >"$tmp/m2.py"
sed -e "$guard" -e "$pick" "$tmp/m.py" >"$tmp/n.py"
run "$py" "$harness" --compare "$tmp/m2.py" "$tmp/n.py"
expect_rc "an on-mps line the original meets too fails" 1
expect_out "the line that proves nothing is named" \
	"on MPS: shape: the original gives torch.Size([2]) too: the line proves nothing"
expect_out "a branch no line names is compared with the original's" \
	"on MPS: pinned: 1 in the original, 0 in the fixed script"
mps_edit "$pick" 's/^pin()$/pin()\nif torch.backends.mps.is_available(): del pinned/'
expect_rc "a name the fixed script does not set on MPS fails" 1
expect_out "the missing name is reported" "on MPS: pinned: not set by the fixed script"
mps_edit "$guard" 's/^device = "cpu"$/device = "cpu" if not torch.backends.mps.is_available() else 1 \/ 0/'
expect_rc "a script that fails only where MPS is available fails" 1
expect_out "the run where MPS is available is named" "the fixed (MPS available) script failed (exit status 1)"
expect_out "its error is shown" "ZeroDivisionError"
# malformed on-mps lines
for line in 'on-mps device "mps"' 'on-mps device = ' 'on-mps device = "mps" +' 'on-mps 1x = 2'; do
	sed "s/^# semantic: on-mps device = \"mps\"$/# semantic: $line/" "$tmp/m.py" >"$tmp/bad.py"
	run "$py" "$harness" --compare "$tmp/bad.py" "$tmp/m.py"
	expect_rc "a malformed on-mps line fails: $line" 1
done
expect_out "the malformed line is named" "bad.py:2: expected 'on-mps NAME = EXPR', got '1x = 2'"
sed 's/^# semantic: on-mps pinned = 0$/# semantic: on-mps device = "cpu"/' "$tmp/m.py" >"$tmp/bad.py"
run "$py" "$harness" --compare "$tmp/bad.py" "$tmp/m.py"
expect_out "a name given twice is refused" "bad.py:3: on-mps device given twice"
sed 's/^# semantic: on-mps pinned = 0$/# semantic: on-mps pinned = undefined_name/' "$tmp/m.py" >"$tmp/bad.py"
sed -e "$guard" -e "$pick" "$tmp/bad.py" >"$tmp/n.py"
run "$py" "$harness" --compare "$tmp/bad.py" "$tmp/n.py"
expect_rc "an expression that cannot be evaluated fails" 1
expect_out "its error is shown with the line" \
	"on-mps pinned: undefined_name does not give a value to compare (NameError"

# --- no torch --------------------------------------------------------------------
run env MPSFIX_TORCH_PYTHON=/bin/false "$py" -S "$harness" --mpsfix "$bin" "$fx/std.py"
expect_rc "without torch the harness exits 2" 2
expect_err "without torch the package to install is named" "apt-get install --no-install-recommends python3-torch"
run "$py" "$harness" --mpsfix "$tmp/none" "$fx/std.py"
expect_rc "a missing mpsfix binary exits 2" 2
expect_err "the missing binary is named" "$tmp/none: no mpsfix binary there"

test_done
