#!/usr/bin/env python3
"""make lint-fixes: ruff checks what mpsfix writes (issue 18, item 7).

A fixed file must have no ruff I001 (import block not sorted) or E501 (line
too long, at its project's line length) diagnostic that its input did not
have.  This collects the pairs (input, fixed text) and hands them to
tests/ruff/compare.js, the pinned ruff's comparison:

- its own self-test first: each folder of tests/ruff/selftest/ holds an
  input.py, a fixed.py, maybe a configuration file, and `expect`, the new
  diagnostics compare.js must find there ("CODE ROW" a line; empty: none);
  a clean pair must pass and one that adds a long line or a misplaced
  import must fail, or nothing below means anything;
- every fixture with an expected output: fixtures/rules/RULE/CASE/ and
  fixtures/engine/CASE/, input.py against expected.py (tests/check_fixtures.c
  runs both with unsafe fixes on; a case whose expected.py is its input, a
  refusal, is counted as unchanged);
- every rule example with an output: rules/*.yml, examples.invalid[].input
  against .output (written under OUT/examples/), at the default line length;
- the fixed notebooks: fixtures/notebook/NAME.ipynb against NAME.fixed.ipynb
  (tests/t0130-notebook.sh checks that mpsfix fix writes the latter), each
  changed code cell as a file of its own, as ruff sorts a notebook's imports
  cell by cell; IPython lines (`%magic`, `!shell`) read as `pass`, which
  ends an import block as they do in ruff;
- the fixed demo: a copy of fixtures/demo fixed by MPSFIX (`fix`, as
  fixtures/demo.expected.diff shows it, and `fix --unsafe-fixes`, which also
  takes the held-back device selection) against fixtures/demo.

Each pair's line length is its own: tests/ruff/ruffcfg.py reads it from the
configuration files in the fixture's folder or above it inside fixtures/
(default 88).  Prints the new diagnostics and a count per group; exits 1 if
the self-test fails or any pair has a new diagnostic.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import ruffcfg  # noqa: E402

COMPARE = os.path.join(HERE, "compare.js")


def compare(pairs, out, select, name):
    """Run compare.js over pairs; its JSON objects, one per pair."""
    path = os.path.join(out, f"{name}.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps(p) + "\n")
    cmd = ["node", COMPARE, "--json", "--quiet", "--pairs", path]
    if select:
        cmd += ["--select", select]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"lint_fixes.py: compare.js failed ({proc.returncode}): {proc.stderr.strip()}")
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if len(results) != len(pairs) or (proc.returncode == 1) != any(r["new"] for r in results):
        sys.exit(f"lint_fixes.py: compare.js gave {len(results)} answers for {len(pairs)} pairs, "
                 f"exit {proc.returncode}")
    return results


def text_lines(result):
    lines = []
    for code, got in sorted(result["new"].items()):
        for d in got["diagnostics"]:
            lines.append(f"{result['label']}:{d['row']}:{d['column']}: {code} {d['message']}"
                         f" (line length {result['line_length']})")
        if got["count"] != len(got["diagnostics"]):
            lines.append(f"{result['label']}: {code}: {got['count']} more than its input has")
    return lines


def pair(inp, fixed, label, top, root):
    """A pair for compare.js: the configuration is read where the input lies
    (inside top); root is the project's folder where no ruff configuration is."""
    n, _ = ruffcfg.line_length(inp, top)
    return {"input": inp, "fixed": fixed, "line_length": n, "label": label,
            "isort": ruffcfg.isort_settings(inp, top, root=root)}


def selftest(out, select):
    base = os.path.join(HERE, "selftest")
    cases = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
    pairs, wants = [], []
    for case in cases:
        d = os.path.join(base, case)
        pairs.append(pair(os.path.join(d, "input.py"), os.path.join(d, "fixed.py"),
                          os.path.relpath(os.path.join(d, "fixed.py"), TOP), base, d))
        with open(os.path.join(d, "expect"), encoding="utf-8") as f:
            wants.append(sorted(tuple(line.split()[:2]) for line in f if line.strip()
                                and not line.startswith("#")))
    bad = 0
    # the self-test is about I001 and E501, whatever --select asks for
    for case, want, got in zip(cases, wants, compare(pairs, out, None, "selftest")):
        have = sorted((code, str(d["row"])) for code, g in got["new"].items() for d in g["diagnostics"])
        if have != want:
            bad += 1
            print(f"self-test {case}: expected {want or 'no new diagnostic'}, compare.js found "
                  f"{have or 'none'}")
    kinds = sum(1 for w in wants if w), sum(1 for w in wants if not w)
    print(f"self-test: {len(cases)} pairs ({kinds[0]} that must fail, {kinds[1]} that must pass): "
          + ("ok" if not bad else f"{bad} wrong"))
    return bad == 0


def fixture_pairs():
    fixtures = os.path.join(TOP, "fixtures")
    cases = []
    for rule in sorted(os.listdir(os.path.join(fixtures, "rules"))):
        for case in sorted(os.listdir(os.path.join(fixtures, "rules", rule))):
            cases.append(os.path.join(fixtures, "rules", rule, case))
    for case in sorted(os.listdir(os.path.join(fixtures, "engine"))):
        cases.append(os.path.join(fixtures, "engine", case))
    pairs, unchanged = [], 0
    for d in cases:
        inp, exp = os.path.join(d, "input.py"), os.path.join(d, "expected.py")
        if not (os.path.isfile(inp) and os.path.isfile(exp)):
            continue
        with open(inp, "rb") as a, open(exp, "rb") as b:
            if a.read() == b.read():
                unchanged += 1
                continue
        pairs.append(pair(inp, exp, os.path.relpath(exp, TOP), fixtures, d))
    return pairs, unchanged


def example_pairs(out):
    pairs = []
    root = os.path.join(out, "examples")
    shutil.rmtree(root, ignore_errors=True)
    for name in sorted(os.listdir(os.path.join(TOP, "rules"))):
        if not name.endswith(".yml"):
            continue
        with open(os.path.join(TOP, "rules", name), encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        examples = (doc.get("examples") or {}).get("invalid") or []
        for i, ex in enumerate(examples):
            if not isinstance(ex, dict) or "output" not in ex:
                continue
            d = os.path.join(root, name[:-4], str(i))
            os.makedirs(d)
            for what in ("input", "output"):
                with open(os.path.join(d, f"{what}.py"), "w", encoding="utf-8") as f:
                    f.write(ex[what])
            pairs.append({"input": os.path.join(d, "input.py"), "fixed": os.path.join(d, "output.py"),
                          "line_length": ruffcfg.DEFAULT_LINE_LENGTH,
                          "label": f"rules/{name} examples.invalid[{i}].output"})
    return pairs


def cell_code(cell):
    """A code cell's source with its IPython lines as `pass` (same lines)."""
    src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
    lines = src.splitlines(True)
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("%", "!")):
            lines[i] = line[:len(line) - len(line.lstrip())] + "pass" + ("\n" if line.endswith("\n") else "")
    return "".join(lines)


def notebook_pairs(out):
    folder = os.path.join(TOP, "fixtures", "notebook")
    root = os.path.join(out, "notebooks")
    shutil.rmtree(root, ignore_errors=True)
    pairs = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ipynb") or name.endswith(".fixed.ipynb"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as a, \
                open(os.path.join(folder, name[:-6] + ".fixed.ipynb"), encoding="utf-8") as b:
            before, after = json.load(a)["cells"], json.load(b)["cells"]
        for i, (x, y) in enumerate(zip(before, after)):
            if x["cell_type"] != "code" or x["source"] == y["source"]:
                continue
            d = os.path.join(root, name[:-6], str(i + 1))
            os.makedirs(d)
            for what, cell in (("input", x), ("fixed", y)):
                with open(os.path.join(d, f"{what}.py"), "w", encoding="utf-8") as f:
                    f.write(cell_code(cell))
            pairs.append({"input": os.path.join(d, "input.py"), "fixed": os.path.join(d, "fixed.py"),
                          "line_length": ruffcfg.DEFAULT_LINE_LENGTH,
                          "label": f"fixtures/notebook/{name[:-6]}.fixed.ipynb:cell {i + 1}"})
    if not pairs:
        sys.exit("lint_fixes.py: no changed cell in fixtures/notebook")
    return pairs


def demo_pairs(mpsfix, scratch):
    demo = os.path.join(TOP, "fixtures", "demo")
    pairs = []
    for how, extra in (("fix", []), ("fix --unsafe-fixes", ["--unsafe-fixes"])):
        # outside any git work tree: mpsfix walks the copy (build/ is ignored by git)
        d = os.path.join(scratch, "unsafe" if extra else "safe")
        shutil.copytree(demo, d)
        proc = subprocess.run([mpsfix, "fix", "--quiet", *extra, "."], cwd=d, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            sys.exit(f"lint_fixes.py: mpsfix {how} in a copy of fixtures/demo exited "
                     f"{proc.returncode}: {proc.stderr.strip()}")
        changed = 0
        for name in sorted(os.listdir(demo)):
            orig, fixed = os.path.join(demo, name), os.path.join(d, name)
            if not name.endswith(".py"):
                continue
            with open(orig, "rb") as a, open(fixed, "rb") as b:
                if a.read() == b.read():
                    continue
            changed += 1
            pairs.append(pair(orig, fixed, f"fixtures/demo/{name} ({how})", os.path.join(TOP, "fixtures"), demo))
        if not changed:
            sys.exit(f"lint_fixes.py: mpsfix {how} changed no file of the demo")
    return pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mpsfix", default=os.path.join(TOP, "build", "mpsfix"))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "lint-fixes"))
    ap.add_argument("--select", help="codes or prefixes to compare (compare.js --select; default I001,E501)")
    args = ap.parse_args()
    mpsfix = os.path.abspath(args.mpsfix)
    os.makedirs(args.out, exist_ok=True)
    if not selftest(args.out, args.select):
        print("lint-fixes: compare.js's self-test failed: its verdicts below would mean nothing")
        return 1
    groups = []
    fixtures, unchanged = fixture_pairs()
    groups.append(("fixtures", fixtures, f", {unchanged} more unchanged (a refusal)"))
    groups.append(("rule examples", example_pairs(args.out), ""))
    groups.append(("fixed notebook cells", notebook_pairs(args.out), ""))
    with tempfile.TemporaryDirectory(prefix="mpsfix-lint-demo.") as scratch:
        groups.append(("the fixed demo", demo_pairs(mpsfix, scratch), ""))
        results = compare([p for _, ps, _ in groups for p in ps], args.out, args.select, "pairs")
    failing = 0
    summary = []
    i = 0
    for name, pairs, note in groups:
        mine = results[i:i + len(pairs)]
        i += len(pairs)
        bad = [r for r in mine if r["new"]]
        failing += len(bad)
        for r in bad:
            print("\n".join(text_lines(r)))
        counts = {}
        for r in bad:
            for code, got in r["new"].items():
                counts[code] = counts.get(code, 0) + got["count"]
        what = ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))
        summary.append(f"{name}: {len(pairs)} pairs{note}; {len(bad)} with new diagnostics"
                       + (f" ({what})" if what else ""))
    print("\n".join(summary))
    print(f"lint-fixes: {'FAIL' if failing else 'ok'}: {failing} fixed texts with new ruff "
          f"{args.select or 'I001/E501'} diagnostics")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
