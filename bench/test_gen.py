#!/usr/bin/python3
"""test_gen.py: tests of bench/gen.py (make bench-smoke; no network).

    /usr/bin/python3 bench/test_gen.py --mpsfix build/mpsfix --out build/bench-smoke [--size-mb 1]

1. determinism: the same seed and size twice give byte-identical trees and
   manifests; another seed gives a different tree;
2. every generated .py file parses (ast.parse);
3. files with neither planted patterns nor near misses contain no trigger
   word of the full catalog (gen.TRIGGER_WORDS, word-bounded);
4. 5-12% of the .py files carry planted patterns;
5. mpsfix check reports exactly the (code, file, line) triples the manifest
   predicts: no planted site missed, nothing reported elsewhere.
Exits 1 naming each failure.
"""

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402


def tree_digest(corpus):
    h = hashlib.sha256()
    for root, dirs, files in os.walk(corpus):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            h.update(os.path.relpath(p, corpus).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def generate(out, seed, size):
    if os.path.exists(out):
        shutil.rmtree(out)
    subprocess.run(["/usr/bin/python3", os.path.join(HERE, "gen.py"), "--seed", str(seed),
                    "--size-mb", str(size), "--out", out], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "MANIFEST.json"), "rb") as fh:
        manifest = fh.read()
    return tree_digest(os.path.join(out, "corpus")), hashlib.sha256(manifest).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpsfix", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--size-mb", type=float, default=1)
    args = ap.parse_args()
    failures = []
    a, b, c = (os.path.join(args.out, n) for n in ("gen-a", "gen-b", "gen-c"))

    da = generate(a, gen.DEFAULT_SEED, args.size_mb)
    db = generate(b, gen.DEFAULT_SEED, args.size_mb)
    dc = generate(c, gen.DEFAULT_SEED + 1, args.size_mb)
    if da != db:
        failures.append(f"determinism: two runs with seed {gen.DEFAULT_SEED} differ: {da} vs {db}")
    if da[0] == dc[0]:
        failures.append("determinism: another seed gave the same tree")
    print(f"test_gen: seed {gen.DEFAULT_SEED}, {args.size_mb} MB: tree {da[0][:16]}, manifest {da[1][:16]} "
          f"(twice: {'identical' if da == db else 'DIFFERENT'})")

    corpus = os.path.join(a, "corpus")
    manifest = json.load(open(os.path.join(a, "MANIFEST.json")))
    planted = {p for p, _, _ in manifest["instances"]}
    near = set(manifest["nearmiss_files"])
    words = re.compile(r"\b(" + "|".join(gen.TRIGGER_WORDS) + r")\b")
    npy = 0
    for root, dirs, files in os.walk(corpus):
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, corpus)
            text = open(p, encoding="utf-8", newline="").read()
            if f.endswith(".py"):
                npy += 1
                try:
                    ast.parse(text, filename=rel)
                except SyntaxError as e:
                    failures.append(f"{rel}:{e.lineno}: does not parse: {e.msg}")
            m = words.search(text)
            if m and rel not in planted and rel not in near:
                line = text.count("\n", 0, m.start()) + 1
                failures.append(f"{rel}:{line}: trigger word '{m.group(0)}' in a clean file")
    share = len(planted) / max(npy, 1)
    print(f"test_gen: {npy} .py files, {len(planted)} with planted patterns ({100 * share:.1f}%), "
          f"{len(near)} with near misses")
    if not 0.05 <= share <= 0.12:
        failures.append(f"planted share {100 * share:.1f}% is outside 5-12%")

    # mpsfix against the manifest, site by site (the corpus is made a git
    # repository, as run.py does: build/ is ignored by the enclosing tree)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "corpus"]):
        subprocess.run(["git", "-C", corpus, "-c", "core.autocrlf=false"] + cmd, check=True, env=env)
    p = subprocess.run([os.path.abspath(args.mpsfix), "check", "--format", "jsonl", "."], cwd=corpus,
                       capture_output=True)
    if p.returncode not in (0, 1):
        failures.append(f"mpsfix check exited with {p.returncode}: {p.stderr.decode()[-500:]}")
    got = set()
    for line in p.stdout.decode().splitlines():
        if line.strip():
            f = json.loads(line)
            got.add((f["code"], os.path.normpath(f["path"]), f["start"]["line"]))
    want = set()
    for path, ln, idx in manifest["instances"]:
        for code in manifest["variants"][idx]["mpsfix"]:
            want.add((code, os.path.normpath(path), ln))
    for code, path, ln in sorted(want - got):
        failures.append(f"{path}:{ln}: mpsfix did not report the planted {code}")
    for code, path, ln in sorted(got - want):
        failures.append(f"{path}:{ln}: mpsfix reported {code} where nothing was planted")
    print(f"test_gen: mpsfix reported {len(got)} findings, the manifest predicts {len(want)}; "
          f"{len(want & got)} agree")

    for f in failures[:50]:
        print(f"test_gen: FAIL: {f}")
    if len(failures) > 50:
        print(f"test_gen: ... and {len(failures) - 50} more")
    print(f"test_gen: {'FAILED' if failures else 'ok'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
