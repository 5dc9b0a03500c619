#!/usr/bin/env python3
"""Build the real-world corpus from fetched snapshots (see README.md).

Each line of repos.txt is `owner/name commit`.  The snapshot of owner/name is
the bare repository /work/.mirror/owner+name/repo (or $MPSFIX_MIRROR/...);
from the recorded commit this writes every *.py and *.ipynb file, every pin file
(requirements*.txt, requirements/*.txt, pyproject.toml, setup.cfg, setup.py,
environment.yml), every file that sets the project's line length or import
order (ruff.toml, .ruff.toml, .flake8, tox.ini, .style.yapf; read by lint) and
every configuration file (*.yaml, *.yml, *.json, *.toml, *.cfg, *.ini: a
Hydra config or a notebook may build a class of the project with its
parameters, which mpsfix reads for MPS205, src/engine/project.h) under
OUT/owner+name/.  A repository folder already in OUT is kept as it is
(delete it to build it again, say after this list grew).  Blobs a snapshot
lacks (large files left out of it) are skipped and counted.  The repositories' code is never
committed to mpsfix: OUT lies under build/.
"""
import argparse
import os
import subprocess
import sys

PIN_NAMES = {"pyproject.toml", "setup.cfg", "setup.py", "environment.yml", "environment.yaml"}
# the linters' configuration (line length, isort settings) that lint reads
LINT_NAMES = {"ruff.toml", ".ruff.toml", ".flake8", "tox.ini", ".style.yapf"}
# configuration that may build the project's classes (Hydra's _target_, OmegaConf)
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".cfg", ".ini")


def wanted(path):
    base = os.path.basename(path)
    if path.endswith((".py", ".ipynb")) or base in PIN_NAMES or base in LINT_NAMES:
        return True
    if path.endswith(CONFIG_SUFFIXES):
        return True
    if base.startswith("requirements") and base.endswith(".txt"):
        return True
    return os.path.basename(os.path.dirname(path)) == "requirements" and base.endswith(".txt")


def read_repos(path):
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            repo, commit = line.split()
            yield repo, commit


def extract(gitdir, commit, out):
    tree = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", commit],
                          check=True, capture_output=True).stdout
    entries = []
    for rec in tree.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, oid = meta.split()
        path = path.decode("utf-8", "surrogateescape")
        if kind == b"blob" and mode in (b"100644", b"100755") and wanted(path):
            entries.append((oid.decode(), path))
    proc = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = 0
    for oid, path in entries:
        proc.stdin.write(oid.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3:
            missing += 1
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        dest = os.path.join(out, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(data)
    proc.stdin.close()
    proc.wait()
    return len(entries) - missing, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", default=os.path.join(os.path.dirname(__file__), "repos.txt"))
    ap.add_argument("--mirror", default=os.environ.get("MPSFIX_MIRROR", "/work/.mirror"))
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    status = 0
    for repo, commit in read_repos(args.repos):
        gitdir = os.path.join(args.mirror, repo.replace("/", "+"), "repo")
        dest = os.path.join(args.out, repo.replace("/", "+"))
        if os.path.isdir(dest):
            continue
        if not os.path.isdir(gitdir):
            print(f"build.py: {repo}: no snapshot at {gitdir} (fetch it first)", file=sys.stderr)
            status = 1
            continue
        tmp = dest + ".tmp"
        subprocess.run(["rm", "-rf", tmp], check=True)
        try:
            n, missing = extract(gitdir, commit, tmp)
        except subprocess.CalledProcessError as e:
            print(f"build.py: {repo}: cannot read commit {commit}: {e}", file=sys.stderr)
            status = 1
            continue
        os.rename(tmp, dest)
        print(f"{repo}: {n} files" + (f" ({missing} not in the snapshot)" if missing else ""))
    return status


if __name__ == "__main__":
    sys.exit(main())
