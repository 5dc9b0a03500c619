#!/usr/bin/python3
"""The semantic tests of mpsfix: proof that a fix computes what the original did.

Each script in tests/semantics/ (every *.py but this file) uses torch on the
CPU with fixed seeds and leaves its results in module-level variables.  For
each script this harness

 1. copies it to a temporary folder;
 2. runs `mpsfix check --isolated --format json` on the copy and applies the
    fixable findings' edits itself, pass after pass as `mpsfix fix` does
    (`check` again on each new text until nothing fixable is left), counting
    the fixes per code;
 3. runs `mpsfix fix --isolated --format json` on the copy, and requires that
    it changed the file, that it wrote exactly the text of step 2, that its
    count of fixes is the one of step 2, that the per-code counts are the ones
    of the `fixes` header, and that the findings left are the `manual` ones;
 4. runs the original and the fixed script, each in its own interpreter, and
    compares every result variable.

Header lines (anywhere in the script, one directive a line):

    # semantic: fixes MPS001=12 MPS003=4   fixes `mpsfix fix` must apply, per
                                           code, over all its passes (required:
                                           a script that expects no fix could
                                           not fail); the codes of this line and
                                           of `manual` are turned on
                                           (--extend-select), also rules that
                                           are off by default
    # semantic: manual MPS001=2            findings that must be left as needing
                                           a manual fix (default: none)
    # semantic: unsafe                     fix with --unsafe-fixes
    # semantic: target-torch SPEC          check and fix with --target-torch SPEC
                                           (default: every version, --isolated
                                           reads no pins)
    # semantic: requires torch>=2.0        skipped, with the reason printed, on
                                           an older (or newer) torch
    # semantic: allclose [rtol=R] [atol=A] compare floating-point values with a
                                           tolerance, not bit for bit
    # semantic: on-mps NAME = EXPR         on a machine where MPS is available
                                           the fixed script leaves EXPR (Python,
                                           with torch imported) in NAME, and the
                                           original does not (one line a name)
    # semantic: on-mps-ignore NAME...      results not compared where MPS is
                                           available (what the original cannot
                                           compute there)

A script with `on-mps` lines is run a second time, original and fixed, with
torch.backends.mps.is_available patched to return True (the fixes that branch
on it take their MPS branch; no MPS device is needed, so the script must not
make tensors on "mps": it records what it would do).  There the fixed script's
NAME must equal EXPR, the original's must not (else the line proves nothing),
and every other result but the on-mps-ignore ones must be the same in both.
Where CUDA is available (a machine that is not a Mac) that second run is not
made: CUDA would take the branches first; the summary says so.

A notebook (*.ipynb) is tested through its script: the Python of its code
cells, in order, with IPython lines (`%magic`, `!shell`) as `pass`, the line
of a Python cell magic (`%%time`) dropped and cells of other cell magics
(`%%bash`) left out.  The script is fixed pass by pass as above (the counts
of the headers, which sit in the code cells); then `mpsfix fix` on the
notebook itself must make as many fixes, keep the notebook's JSON as it was
outside the code cells' `source`, and change nothing on a second run; the
original notebook's script and the fixed notebook's script are what is run
and compared.

Result variables are the module globals whose names do not start with `_`,
except modules, classes and functions.  Allowed values: tensors (with their
`.grad` when they are leaves that require grad), None, bools, numbers,
strings, torch.device, torch.dtype, torch.Size, and tuples, lists and dicts of
these; any other value fails the script (name it `_x` to keep it out).
Values are compared by type, shape, dtype, device, requires_grad and value:
bit for bit by default (NaN equals NaN), and under `allclose` floating-point
values within rtol = atol = 64 machine epsilons of their dtype (or the given
rtol/atol), except variables whose names start with `exact_`, which stay bit
for bit.

Usage (from anywhere; the interpreter that has torch is found by itself):

    /usr/bin/python3 tests/semantics/run.py [--mpsfix build/mpsfix]
        [--rules PATH] [--keep] [SCRIPT...]
    /usr/bin/python3 tests/semantics/run.py --compare ORIGINAL FIXED

--keep leaves each script's temporary folder (original/, fixed/, passes/)
for a look.  --rules PATH uses only the rules in PATH (--no-default-rules --rules PATH);
by default mpsfix loads the shipped rules of this tree (MPSFIX_RULES_DIR is
set to its rules/ folder).  --compare runs and compares two scripts with no
mpsfix at all (the header of ORIGINAL applies).  The interpreter is
$MPSFIX_TORCH_PYTHON when set, else the first of /usr/bin/python3, this one
and `python3` on PATH that can import torch (Debian's python3-torch belongs
to /usr/bin/python3).  Exit status: 0 all passed, 1 a script failed, 2 the
harness could not run.
"""

import collections
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
INSTALL_HINT = "apt-get install --no-install-recommends python3-torch"
ENV_PYTHON = "MPSFIX_TORCH_PYTHON"
REEXEC_MARK = "MPSFIX_SEMANTICS_REEXEC"
MAX_PASSES = 16
RUN_TIMEOUT = 900


# --- the interpreter -------------------------------------------------------------

def has_torch(python):
    try:
        r = subprocess.run([python, "-c", "import torch"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


def torch_python():
    """The interpreter to run under, or None: see the module's docstring."""
    if os.environ.get(ENV_PYTHON):
        candidates = [os.environ[ENV_PYTHON]]
    else:
        candidates = ["/usr/bin/python3", sys.executable, shutil.which("python3")]
    seen = []
    for c in candidates:
        if c and c not in seen:
            seen.append(c)
            if has_torch(c):
                return c
    return None


def ensure_torch():
    """Import torch here, or re-execute this script under an interpreter that can."""
    forced = os.environ.get(ENV_PYTHON)
    if not forced or os.path.realpath(forced) == os.path.realpath(sys.executable):
        try:
            import torch  # noqa: F401
            return
        except ImportError:
            pass
    python = None if os.environ.get(REEXEC_MARK) else torch_python()
    if python is None:
        tried = forced if forced else "/usr/bin/python3, %s, python3 on PATH" % sys.executable
        sys.stderr.write("semantics: cannot import torch (tried %s): the semantic tests need "
                         "Debian's torch for /usr/bin/python3: %s\n" % (tried, INSTALL_HINT))
        sys.exit(2)
    os.environ[REEXEC_MARK] = "1"
    os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])


# --- headers ---------------------------------------------------------------------

HEADER = re.compile(r"^#\s*semantic:\s*(\S+)\s*(.*?)\s*$")
COUNT = re.compile(r"^(MPS\d{3})=(\d+)$")
VERSION_SPEC = re.compile(r"^(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)*)$")
ON_MPS = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\s*=\s*(\S.*)$")


def parse_counts(words, where):
    counts = {}
    if not words:
        raise ValueError("%s: expected CODE=N..." % where)
    for w in words:
        m = COUNT.match(w)
        if not m:
            raise ValueError("%s: '%s' is not CODE=N (like MPS001=3)" % (where, w))
        if m.group(1) in counts:
            raise ValueError("%s: %s given twice" % (where, m.group(1)))
        counts[m.group(1)] = int(m.group(2))
    return counts


def is_notebook(path):
    return path.endswith(".ipynb")


PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun", "debug", "python", "python3")


def notebook_script(path):
    """The Python a notebook runs (see the module's docstring), as text."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    parts = []
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        lines = src.splitlines(True)
        if lines and lines[0].startswith("%%"):
            if lines[0][2:].split()[0] not in PYTHON_CELL_MAGICS:
                continue
            lines = lines[1:]
        for i, line in enumerate(lines):
            body = line.lstrip()
            if body.startswith(("%", "!")):
                lines[i] = line[:len(line) - len(body)] + "pass\n"
        text = "".join(lines)
        parts.append(text if text.endswith("\n") or not text else text + "\n")
    return "".join(parts)


def without_sources(path):
    """A notebook's JSON without its cells' source."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    for cell in nb["cells"]:
        cell.pop("source", None)
    return nb


def parse_headers(path):
    """The `# semantic:` directives of a script (a notebook's: in its code
    cells) as a dict; ValueError if malformed."""
    h = {"fixes": None, "manual": {}, "unsafe": False, "requires": None, "target": None,
         "allclose": None, "on_mps": [], "on_mps_ignore": []}
    if is_notebook(path):
        lines = notebook_script(path).splitlines()
    else:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        m = HEADER.match(line)
        if not m:
            continue
        key, rest = m.group(1), m.group(2)
        where = "%s:%d" % (os.path.basename(path), n)
        words = rest.split()
        if key in ("fixes", "manual"):
            counts = parse_counts(words, where)
            if key == "fixes":
                if h["fixes"] is not None:
                    raise ValueError("%s: a second 'fixes' line" % where)
                h["fixes"] = counts
            else:
                if h["manual"]:
                    raise ValueError("%s: a second 'manual' line" % where)
                h["manual"] = counts
        elif key == "unsafe":
            if words:
                raise ValueError("%s: 'unsafe' takes nothing" % where)
            h["unsafe"] = True
        elif key == "target-torch":
            if len(words) != 1:
                raise ValueError("%s: expected 'target-torch SPEC'" % where)
            h["target"] = words[0]
        elif key == "requires":
            if not rest.startswith("torch"):
                raise ValueError("%s: expected 'requires torch>=X.Y'" % where)
            specs = []
            for part in rest[len("torch"):].split(","):
                vm = VERSION_SPEC.match(part.strip())
                if not vm:
                    raise ValueError("%s: bad version constraint '%s'" % (where, part.strip()))
                specs.append((vm.group(1), tuple(int(x) for x in vm.group(2).split("."))))
            h["requires"] = (rest[len("torch"):].replace(" ", ""), specs)
        elif key == "allclose":
            tol = {}
            for w in words:
                k, _, v = w.partition("=")
                if k not in ("rtol", "atol") or not v:
                    raise ValueError("%s: expected 'allclose [rtol=R] [atol=A]', got '%s'" % (where, w))
                try:
                    tol[k] = float(v)
                except ValueError:
                    raise ValueError("%s: '%s' is not a number" % (where, v)) from None
            h["allclose"] = tol
        elif key == "on-mps":
            m = ON_MPS.match(rest)
            if not m:
                raise ValueError("%s: expected 'on-mps NAME = EXPR', got '%s'" % (where, rest))
            if any(name == m.group(1) for name, _, _ in h["on_mps"]):
                raise ValueError("%s: on-mps %s given twice" % (where, m.group(1)))
            try:
                code = compile(m.group(2), where, "eval")
            except SyntaxError as e:
                raise ValueError("%s: on-mps %s: %s" % (where, m.group(1), e.msg)) from None
            h["on_mps"].append((m.group(1), m.group(2), code))
        elif key == "on-mps-ignore":
            if not words:
                raise ValueError("%s: expected 'on-mps-ignore NAME...'" % where)
            h["on_mps_ignore"] += words
        else:
            raise ValueError("%s: unknown directive '%s' (fixes, manual, unsafe, target-torch, requires, "
                             "allclose, on-mps, on-mps-ignore)" % (where, key))
    both = set(h["on_mps_ignore"]) & set(name for name, _, _ in h["on_mps"])
    if both:
        raise ValueError("%s: %s both on-mps and on-mps-ignore" % (
            os.path.basename(path), ", ".join(sorted(both))))
    if h["on_mps_ignore"] and not h["on_mps"]:
        raise ValueError("%s: on-mps-ignore without an on-mps line" % os.path.basename(path))
    if h["fixes"] is None:
        raise ValueError("%s: no '# semantic: fixes CODE=N' line: a script that expects no "
                         "fix could not fail" % os.path.basename(path))
    return h


def version_tuple(text):
    """'1.13.0a0' -> (1, 13, 0); '2.4.1+cpu' -> (2, 4, 1)."""
    nums = []
    for part in text.split("+")[0].split("."):
        m = re.match(r"\d+", part)
        if not m:
            break
        nums.append(int(m.group(0)))
        if m.group(0) != part:
            break
    return tuple(nums)


def version_ok(have, specs):
    def pad(t):
        return t + (0,) * (4 - len(t))
    ops = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
           "!=": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}
    return all(ops[op](pad(have), pad(v)) for op, v in specs)


# --- the child: run one script, save its results ------------------------------------

class Unsupported(Exception):
    pass


SKIPPED_TYPES = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                 types.MethodType, types.BuiltinMethodType)


def encode(v, path):
    """A value as plain tagged tuples that torch.save stores and compare() reads."""
    import torch
    if v is None or isinstance(v, (bool, int, float, complex, str)):
        return ("py", type(v).__name__, v)
    if isinstance(v, torch.Tensor):
        grad = None
        if v.is_leaf and v.requires_grad:
            grad = encode(v.grad, path + ".grad")
        return ("tensor", v.detach().clone(), v.requires_grad, grad)
    if isinstance(v, torch.Size):
        return ("size", tuple(v))
    if isinstance(v, torch.device):
        return ("device", str(v))
    if isinstance(v, torch.dtype):
        return ("dtype", str(v))
    if isinstance(v, (tuple, list)):
        return ("seq", type(v).__name__, [encode(x, "%s[%d]" % (path, i)) for i, x in enumerate(v)])
    if isinstance(v, dict):
        items = []
        for k, x in v.items():
            if not (k is None or isinstance(k, (bool, int, float, str))):
                raise Unsupported("%s: a dict key of type %s" % (path, type(k).__name__))
            items.append((k, encode(x, "%s[%r]" % (path, k))))
        return ("dict", type(v).__name__, items)
    raise Unsupported("%s: cannot compare a value of type %s (keep what matters in a "
                      "variable, or name it with a leading _)" % (path, type(v).__name__))


def child(script, out, mps=False):
    """--exec [--mps] SCRIPT OUT: run SCRIPT as __main__, torch.save its results to OUT;
    with --mps, torch.backends.mps.is_available() returns True."""
    import torch
    if mps:
        torch.backends.mps.is_available = lambda: True
    script = os.path.abspath(script)
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(script))
    with open(script, "rb") as f:
        code = compile(f.read(), script, "exec")
    g = {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__}
    exec(code, g)
    results = {}
    for name, v in g.items():
        if name.startswith("_") or isinstance(v, SKIPPED_TYPES):
            continue
        try:
            results[name] = encode(v, name)
        except Unsupported as e:
            sys.stderr.write("semantics: %s\n" % e)
            return 3
    torch.save(results, out)
    return 0


# --- comparing results ----------------------------------------------------------------

def tolerance(dtype, header):
    import torch
    eps = torch.finfo(dtype).eps
    return header.get("rtol", 64 * eps), header.get("atol", 64 * eps)


def kind(e):
    if e[0] == "py":
        return e[1]
    if e[0] in ("seq", "dict"):
        return e[1]
    return {"tensor": "Tensor", "size": "torch.Size", "device": "torch.device",
            "dtype": "torch.dtype"}[e[0]]


SIDES = ("in the original", "in the fixed script")


def compare(a, b, path, close, sides=SIDES):
    """Differences between two encoded values, as a list of lines.
    close: None (bit for bit) or the allclose header (a dict, maybe empty);
    sides: how the lines name where a and b come from."""
    import torch
    ia, ib = sides
    if kind(a) != kind(b):
        return ["%s: %s %s, %s %s" % (path, kind(a), ia, kind(b), ib)]
    tag = a[0]
    if tag == "py":
        x, y = a[2], b[2]
        if isinstance(x, float):
            if x == y or (math.isnan(x) and math.isnan(y)):
                return []
            if close is not None:
                rtol, atol = tolerance(torch.float64, close)
                if abs(x - y) <= atol + rtol * abs(y):
                    return []
        elif isinstance(x, complex):
            if x == y:
                return []
            if close is not None:
                rtol, atol = tolerance(torch.float64, close)
                if abs(x - y) <= atol + rtol * abs(y):
                    return []
        elif x == y:
            return []
        return ["%s: %r %s, %r %s" % (path, x, ia, y, ib)]
    if tag in ("size", "device", "dtype"):
        return [] if a[1] == b[1] else ["%s: %s %s, %s %s" % (path, a[1], ia, b[1], ib)]
    if tag == "seq":
        if len(a[2]) != len(b[2]):
            return ["%s: %s of %d %s, of %d %s" % (path, a[1], len(a[2]), ia, len(b[2]), ib)]
        out = []
        for i, (x, y) in enumerate(zip(a[2], b[2])):
            out += compare(x, y, "%s[%d]" % (path, i), close, sides)
        return out
    if tag == "dict":
        ka, kb = [k for k, _ in a[2]], [k for k, _ in b[2]]
        if ka != kb:
            return ["%s: keys %r %s, %r %s" % (path, ka, ia, kb, ib)]
        out = []
        for (k, x), (_, y) in zip(a[2], b[2]):
            out += compare(x, y, "%s[%r]" % (path, k), close, sides)
        return out
    # tensors
    ta, tb = a[1], b[1]
    for what, x, y in (("shape", tuple(ta.shape), tuple(tb.shape)), ("dtype", ta.dtype, tb.dtype),
                       ("device", ta.device, tb.device), ("layout", ta.layout, tb.layout),
                       ("requires_grad", a[2], b[2])):
        if x != y:
            return ["%s: %s %s %s, %s %s" % (path, what, x, ia, y, ib)]
    out = []
    floating = ta.is_floating_point() or ta.is_complex()
    if ta.is_sparse:
        ta, tb = ta.to_dense(), tb.to_dense()
    if floating and close is not None:
        rtol, atol = tolerance(ta.real.dtype if ta.is_complex() else ta.dtype, close)
        same = torch.allclose(ta, tb, rtol=rtol, atol=atol, equal_nan=True)
        how = "not within rtol=%.3g atol=%.3g" % (rtol, atol)
    elif floating:
        same = bool(((ta == tb) | (ta.isnan() & tb.isnan())).all())
        how = "not bit for bit equal"
    else:
        same = torch.equal(ta, tb)
        how = "not equal"
    if not same:
        detail = ""
        if ta.numel():
            if floating:
                diff = (ta - tb).abs()
                diff = torch.where(diff.isnan() & ~(ta.isnan() & tb.isnan()),
                                   torch.full_like(diff, float("inf")), diff.nan_to_num(0.0))
            else:
                diff = (ta != tb).to(torch.int64)
            flat = int(diff.reshape(-1).argmax())
            index, rest = [], flat
            for size in reversed(ta.shape):
                index.insert(0, rest % size)
                rest //= size
            detail = ": largest difference at %s, %r vs %r" % (
                tuple(index), ta.reshape(-1)[flat].item(), tb.reshape(-1)[flat].item())
        out.append("%s: values %s%s" % (path, how, detail))
    if (a[3] is None) != (b[3] is None):
        out.append("%s.grad: kept in one script only" % path)
    elif a[3] is not None:
        out += compare(a[3], b[3], path + ".grad", close, sides)
    return out


def count_values(e):
    if e[0] == "seq":
        return sum(count_values(x) for x in e[2])
    if e[0] == "dict":
        return sum(count_values(x) for _, x in e[2])
    if e[0] == "tensor" and e[3] is not None:
        return 1 + count_values(e[3])
    return 1


def compare_results(ra, rb, close):
    """(differences, number of values compared) of two result dicts."""
    diffs = []
    only_a, only_b = sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))
    if only_a:
        diffs.append("only in the original: %s" % ", ".join(only_a))
    if only_b:
        diffs.append("only in the fixed script: %s" % ", ".join(only_b))
    n = 0
    for name in sorted(set(ra) & set(rb)):
        diffs += compare(ra[name], rb[name], name, None if name.startswith("exact_") else close)
        n += count_values(ra[name])
    return diffs, n


ON_MPS_SIDES = ("expected", "in the fixed script")


def compare_on_mps(ra, rb, header):
    """Where MPS is available: (differences, expected count, same count) of the
    original's results ra and the fixed script's rb, against the on-mps lines."""
    import torch
    close = header["allclose"]
    diffs, expected, same = [], 0, 0
    listed = set()
    for name, text, code in header["on_mps"]:
        listed.add(name)
        try:
            want = encode(eval(code, {"torch": torch}), name)
        except Exception as e:  # noqa: BLE001 (the header's expression: any error is its own)
            diffs.append("on-mps %s: %s does not give a value to compare (%s: %s)" % (
                name, text, type(e).__name__, e))
            continue
        if name not in rb:
            diffs.append("on MPS: %s: not set by the fixed script" % name)
            continue
        one = compare(want, rb[name], name, close, ON_MPS_SIDES)
        if name in ra and not compare(want, ra[name], name, close):
            one.append("%s: the original gives %s too: the line proves nothing" % (name, text))
        diffs += ["on MPS: " + d for d in one]
        expected += not one
    for name in header["on_mps_ignore"]:
        if name not in ra and name not in rb:
            diffs.append("on-mps-ignore %s: no such result where MPS is available" % name)
        listed.add(name)
    rest_a = {k: v for k, v in ra.items() if k not in listed}
    rest_b = {k: v for k, v in rb.items() if k not in listed}
    more, same = compare_results(rest_a, rest_b, close)
    diffs += ["on MPS: " + d for d in more]
    return diffs, expected, same


def tail(text, lines=12):
    return "\n".join(text.rstrip().splitlines()[-lines:])


def load_results(path):
    """What child() saved (our own file: torch 2.6 would refuse tuples of tags by default)."""
    import torch
    try:
        return torch.load(path, weights_only=False)
    except TypeError:  # a torch without weights_only
        return torch.load(path)


def run_pair(original, fixed, workdir, mps=False):
    """Run both scripts, each in its own interpreter (with mps: as where MPS is
    available); (results_a, results_b) or raise."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    procs = []
    for name, script in (("original", original), ("fixed", fixed)):
        label = name + (" (MPS available)" if mps else "")
        name += "-mps" if mps else ""
        out = os.path.join(workdir, "%s.results" % name)
        err = open(os.path.join(workdir, "%s.stderr" % name), "w+")
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--exec"] +
                             (["--mps"] if mps else []) + [script, out],
                             cwd=os.path.dirname(script), stdin=subprocess.DEVNULL,
                             stdout=err, stderr=err, env=env)
        procs.append((label, p, out, err))
    results, problems = [], []
    for label, p, out, err in procs:
        try:
            rc = p.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rc = "timeout"
        err.seek(0)
        text = err.read()
        err.close()
        if rc != 0:
            problems.append("the %s script failed (%s):\n%s" % (
                label, "timed out after %ds" % RUN_TIMEOUT if rc == "timeout" else "exit status %d" % rc,
                tail(text)))
            continue
        results.append(load_results(out))
    if problems:
        raise ScriptFailure(problems)
    return results


class ScriptFailure(Exception):
    def __init__(self, lines):
        super().__init__("\n".join(lines))
        self.lines = lines


# --- mpsfix -----------------------------------------------------------------------

class Mpsfix:
    def __init__(self, binary, rules, unsafe, target=None, codes=()):
        self.binary = binary
        self.rules = rules
        self.unsafe = unsafe
        self.target = target
        self.codes = codes  # the header's codes: turned on, also rules off by default

    def run(self, command, path, *extra):
        args = [self.binary, command, "--isolated", "--quiet", "--format", "json", *extra]
        if self.rules:
            args += ["--no-default-rules", "--rules", self.rules]
        if self.unsafe:
            args.append("--unsafe-fixes")
        if self.target:
            args += ["--target-torch", self.target]
        known = [c for c in self.codes if self.knows(c)]
        if known:
            args += ["--extend-select", ",".join(known)]
        args.append(os.path.basename(path))
        env = dict(os.environ)
        if not self.rules:
            env["MPSFIX_RULES_DIR"] = os.path.join(TOP, "rules")
        r = subprocess.run(args, cwd=os.path.dirname(path), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                           timeout=RUN_TIMEOUT)
        if r.returncode not in (0, 1):
            raise ScriptFailure(["mpsfix %s exited with status %d: %s" % (
                command, r.returncode, tail(r.stderr.decode("utf-8", "replace")))])
        try:
            return json.loads(r.stdout.decode("utf-8"))
        except ValueError as e:
            raise ScriptFailure(["mpsfix %s did not print JSON (%s): %s" % (
                command, e, tail(r.stdout.decode("utf-8", "replace")))])

    def knows(self, code):
        """Does mpsfix (with these rules) have a rule `code`?  (A header may name
        one it lacks; the counts then say so.)"""
        args = [self.binary, "explain", code]
        if self.rules:
            args[1:1] = ["--no-default-rules", "--rules", self.rules]
        env = dict(os.environ)
        if not self.rules:
            env["MPSFIX_RULES_DIR"] = os.path.join(TOP, "rules")
        return subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env, timeout=RUN_TIMEOUT).returncode == 0

    def applies(self, finding):
        fix = finding.get("fix")
        if not fix:
            return False
        return fix["applicability"] == "safe" or (self.unsafe and fix["applicability"] == "unsafe")


def apply_pass(data, findings):
    """Apply the edits of the findings to data (bytes) as one pass of `mpsfix fix` does:
    whole fixes in order of their first edit (the longer first at one place), skipping a
    fix that overlaps one taken (it waits for the next pass); identical insertions count
    once.  Returns (new data, the findings applied)."""
    groups = []
    for i, f in enumerate(findings):
        edits = [(e["start"]["byte"], e["end"]["byte"], e["content"].encode("utf-8"))
                 for e in f["fix"]["edits"]]
        if not edits:
            continue
        groups.append(((edits[0][0], -(edits[0][1] - edits[0][0]), i), edits, f))
    groups.sort(key=lambda g: g[0])
    taken, applied = [], []
    for _, edits, f in groups:
        def free(e):
            s, t, text = e
            if s == t and any(a == s and b == t and x == text for a, b, x in taken):
                return True
            return not any(s < b and a < t for a, b, _ in taken)
        if all(free(e) for e in edits):
            for e in edits:
                if not (e[0] == e[1] and e in taken):
                    taken.append(e)
            applied.append(f)
    taken.sort(key=lambda e: (e[0], e[1]))
    out, pos = bytearray(), 0
    for s, t, text in taken:
        out += data[pos:s] + text
        pos = t
    out += data[pos:]
    return bytes(out), applied


def same_tree(a, b):
    """Do two texts parse to the same syntax tree (positions aside)?  None if one does not parse."""
    import ast
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return None


def check_fixes(mpsfix, header, path):
    """Fix the copy at path; a list of problems (empty: as the header says) and a summary."""
    problems = []
    with open(path, "rb") as f:
        original = f.read()

    # what `mpsfix fix` should do: the edits `check` reports, pass after pass
    scratch = os.path.join(os.path.dirname(os.path.dirname(path)), "passes")
    os.makedirs(scratch)
    step = os.path.join(scratch, os.path.basename(path))
    text, counts, passes = original, collections.Counter(), 0
    while True:
        with open(step, "wb") as f:
            f.write(text)
        todo = [f for f in mpsfix.run("check", step)["findings"] if mpsfix.applies(f)]
        if not todo:
            break
        if passes == MAX_PASSES:
            problems.append("fixes still pending after %d passes" % MAX_PASSES)
            break
        text, applied = apply_pass(text, todo)
        counts.update(f["code"] for f in applied)
        passes += 1

    # `fix` breaks the lines it makes too long (wrap.h), which the edits
    # `check` reports do not show: at a length no line reaches they are the
    # same text, and at the default one the same syntax tree (line breaks,
    # parentheses around a whole value, trailing commas in brackets)
    nowrap = os.path.join(scratch, "nowrap-" + os.path.basename(path))
    with open(nowrap, "wb") as f:
        f.write(original)
    mpsfix.run("fix", nowrap, "--line-length", "320")
    with open(nowrap, "rb") as f:
        unwrapped = f.read()
    report = mpsfix.run("fix", path)
    with open(path, "rb") as f:
        fixed = f.read()
    if fixed == original:
        problems.append("mpsfix fix changed nothing")
    elif unwrapped != text:
        problems.append("mpsfix fix wrote another text than the edits mpsfix check reports, "
                        "applied pass after pass")
    elif fixed != text and same_tree(fixed, text) is False:
        problems.append("mpsfix fix broke its lines into code that parses differently")
    total = report["summary"]["fixed"]
    if total != sum(counts.values()):
        problems.append("mpsfix fix says it applied %d fixes; mpsfix check reported %d, pass "
                        "after pass" % (total, sum(counts.values())))
    expected = header["fixes"]
    for code in sorted(set(expected) | set(counts)):
        if counts.get(code, 0) != expected.get(code, 0):
            problems.append("%s: %d fixes applied, the header expects %d" % (
                code, counts.get(code, 0), expected.get(code, 0)))

    manual = collections.Counter()
    for f in report["findings"]:
        fix = f.get("fix")
        where = "%s:%d:%d" % (f["path"], f["start"]["line"], f["start"]["column"])
        if fix and fix["applicability"] == "manual":
            manual[f["code"]] += 1
        elif mpsfix.applies(f):
            problems.append("%s: %s left unfixed although fixable" % (where, f["code"]))
    for code in sorted(set(header["manual"]) | set(manual)):
        if manual.get(code, 0) != header["manual"].get(code, 0):
            problems.append("%s: %d findings need a manual fix, the header expects %d" % (
                code, manual.get(code, 0), header["manual"].get(code, 0)))
    summary = "%d fix%s" % (total, "" if total == 1 else "es")
    if counts:
        summary += " (%s)" % ", ".join("%s=%d" % kv for kv in sorted(counts.items()))
    if manual:
        summary += ", %d manual" % sum(manual.values())
    return problems, summary, fixed != original, total


# --- the driver ---------------------------------------------------------------------

def default_scripts():
    return sorted(os.path.join(HERE, n) for n in os.listdir(HERE)
                  if (n.endswith(".py") or is_notebook(n)) and n != os.path.basename(__file__))


def check_notebook_fix(mpsfix, original, path, fixes):
    """Fix the notebook copy at path (`fixes`: what its script took); a list of problems."""
    problems = []
    report = mpsfix.run("fix", path)
    if report["summary"]["skipped"]:
        return ["mpsfix fix skipped the notebook"]
    if report["summary"]["fixed"] != fixes:
        problems.append("mpsfix fix made %d fixes in the notebook, %d in its script" % (
            report["summary"]["fixed"], fixes))
    if without_sources(path) != without_sources(original):
        problems.append("mpsfix fix changed the notebook outside its cells' source")
    with open(path, "rb") as f:
        once = f.read()
    again = mpsfix.run("fix", path)
    with open(path, "rb") as f:
        if again["summary"]["fixed"] or f.read() != once:
            problems.append("a second mpsfix fix changed the notebook")
    return problems


def fix_and_compare_notebook(script, header, work, mpsfix_binary, rules, cuda=False):
    """A notebook: its script fixed and counted, the notebook fixed, both scripts run."""
    name = os.path.basename(script)[:-len(".ipynb")]
    for d in ("original", "fixed", "script"):
        os.makedirs(os.path.join(work, d))
    original_nb = os.path.join(work, "original", name + ".ipynb")
    fixed_nb = os.path.join(work, "fixed", name + ".ipynb")
    shutil.copyfile(script, original_nb)
    shutil.copyfile(script, fixed_nb)
    as_script = os.path.join(work, "script", name + ".py")
    with open(as_script, "w", encoding="utf-8") as f:
        f.write(notebook_script(script))
    try:
        mpsfix = Mpsfix(mpsfix_binary, rules, header["unsafe"], header["target"],
                        sorted(set(header["fixes"] or {}) | set(header["manual"])))
        problems, summary, changed, total = check_fixes(mpsfix, header, as_script)
        if changed:
            problems += check_notebook_fix(mpsfix, original_nb, fixed_nb, total)
    except ScriptFailure as e:
        return "FAIL", e.lines
    if not changed:
        return "FAIL", problems
    runs = []
    for nb in (original_nb, fixed_nb):
        runs.append(nb[:-len(".ipynb")] + ".py")
        with open(runs[-1], "w", encoding="utf-8") as f:
            f.write(notebook_script(nb))
    return compare_runs(runs[0], runs[1], header, work, problems, "notebook, " + summary, cuda)


def run_script(script, mpsfix_binary, rules, torch_version, keep=False, cuda=False):
    """('ok'|'skip'|'FAIL', message lines); keep: leave the temporary folder; cuda:
    CUDA is available here, so the on-mps run (a Mac has no CUDA) is not made."""
    name = os.path.basename(script)
    try:
        header = parse_headers(script)
    except (ValueError, OSError, UnicodeDecodeError) as e:
        return "FAIL", ["%s: %s" % (name, e)]
    if header["requires"] and not version_ok(version_tuple(torch_version), header["requires"][1]):
        return "skip", ["%s: needs torch%s, have %s" % (name, header["requires"][0], torch_version)]
    work = tempfile.mkdtemp(prefix="mpsfix-semantics.")
    try:
        status, lines = fix_and_compare(script, header, work, mpsfix_binary, rules, cuda)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    lines = ["%s: %s" % (name, line) for line in lines]
    if keep:
        lines.append("(kept %s)" % work)
    return status, lines


def fix_and_compare(script, header, work, mpsfix_binary, rules, cuda=False):
    if is_notebook(script):
        return fix_and_compare_notebook(script, header, work, mpsfix_binary, rules, cuda)
    name = os.path.basename(script)
    os.makedirs(os.path.join(work, "original"))
    os.makedirs(os.path.join(work, "fixed"))
    original = os.path.join(work, "original", name)
    fixed = os.path.join(work, "fixed", name)
    shutil.copyfile(script, original)
    shutil.copyfile(script, fixed)
    try:
        mpsfix = Mpsfix(mpsfix_binary, rules, header["unsafe"], header["target"],
                        sorted(set(header["fixes"] or {}) | set(header["manual"])))
        problems, summary, changed, _ = check_fixes(mpsfix, header, fixed)
    except ScriptFailure as e:
        return "FAIL", e.lines
    if not changed:
        return "FAIL", problems
    return compare_runs(original, fixed, header, work, problems, summary, cuda)


def compare_runs(original, fixed, header, work, problems, summary, cuda):
    """Run the original and the fixed script (and on MPS, when the header asks) and compare."""
    try:
        ra, rb = run_pair(original, fixed, work)
        diffs, n = compare_results(ra, rb, header["allclose"])
        if header["on_mps"] and cuda:
            summary += "; on MPS: not run (CUDA is available here, and a Mac has none)"
        elif header["on_mps"]:
            more, expected, same = compare_on_mps(*run_pair(original, fixed, work, mps=True),
                                                  header=header)
            diffs += more
            summary += "; on MPS: %d as expected, %d the same" % (expected, same)
    except ScriptFailure as e:
        return "FAIL", problems + e.lines
    if problems or diffs:
        return "FAIL", problems + diffs
    return "ok", ["%d values compared, %s" % (n, summary)]


def compare_only(original, fixed):
    """--compare: run two scripts and compare their results (no mpsfix)."""
    name = os.path.basename(fixed)
    try:
        header = parse_headers(original)
    except (ValueError, OSError, UnicodeDecodeError) as e:
        return "FAIL", ["%s: %s" % (name, e)]
    work = tempfile.mkdtemp(prefix="mpsfix-semantics.")
    try:
        pair, summary = (os.path.abspath(original), os.path.abspath(fixed)), ""
        try:
            ra, rb = run_pair(*pair, workdir=work)
            diffs, n = compare_results(ra, rb, header["allclose"])
            if header["on_mps"]:
                more, expected, same = compare_on_mps(*run_pair(*pair, workdir=work, mps=True),
                                                      header=header)
                diffs += more
                summary = "; on MPS: %d as expected, %d the same" % (expected, same)
        except ScriptFailure as e:
            return "FAIL", ["%s: %s" % (name, line) for line in e.lines]
        if diffs:
            return "FAIL", ["%s: %s" % (name, d) for d in diffs]
        return "ok", ["%s: %d values compared%s" % (name, n, summary)]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_lines(status, lines):
    """The status and the first line, the others indented under it."""
    text = "\n".join(lines).split("\n")
    print("%-4s %s" % (status, text[0]))
    for line in text[1:]:
        print("     %s" % line)
    sys.stdout.flush()


USAGE = ("usage: run.py [--mpsfix BINARY] [--rules PATH] [--keep] [SCRIPT...]\n"
         "       run.py --compare ORIGINAL FIXED\n")


def main(argv):
    if argv[:1] == ["--exec"] and len(argv) == 3:
        return child(argv[1], argv[2])
    if argv[:2] == ["--exec", "--mps"] and len(argv) == 4:
        return child(argv[2], argv[3], mps=True)
    binary, rules, scripts, pair = os.path.join(TOP, "build", "mpsfix"), None, [], None
    keep = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--mpsfix", "--rules") and i + 1 < len(argv):
            if a == "--mpsfix":
                binary = argv[i + 1]
            else:
                rules = os.path.abspath(argv[i + 1])
            i += 2
        elif a == "--compare" and i + 2 < len(argv):
            pair = (argv[i + 1], argv[i + 2])
            i += 3
        elif a == "--keep":
            keep = True
            i += 1
        elif a in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        elif a.startswith("-"):
            sys.stderr.write("semantics: unknown option '%s'\n%s" % (a, USAGE))
            return 2
        else:
            scripts.append(a)
            i += 1
    ensure_torch()
    import torch
    if pair:
        if scripts:
            sys.stderr.write(USAGE)
            return 2
        status, lines = compare_only(*pair)
        print_lines(status, lines)
        return 0 if status == "ok" else 1
    binary = os.path.abspath(binary)
    if not os.access(binary, os.X_OK):
        sys.stderr.write("semantics: %s: no mpsfix binary there (make builds it)\n" % binary)
        return 2
    scripts = [os.path.abspath(s) for s in scripts] or default_scripts()
    if not scripts:
        sys.stderr.write("semantics: no scripts in %s\n" % HERE)
        return 2
    print("semantics: torch %s (%s), %s" % (torch.__version__, sys.executable, binary))
    tally = collections.Counter()
    for script in scripts:
        status, lines = run_script(script, binary, rules, torch.__version__, keep,
                                   torch.cuda.is_available())
        tally[status] += 1
        print_lines(status, lines)
    print("semantics: %d scripts compared, %d skipped, %d failed" % (
        tally["ok"], tally["skip"], tally["FAIL"]))
    return 1 if tally["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
