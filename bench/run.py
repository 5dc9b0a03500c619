#!/usr/bin/python3
"""run.py: the mpsfix benchmark (`make bench`).

    /usr/bin/python3 bench/run.py [--sizes 70,700] [--rounds 5] [--mpsfix build/mpsfix]

For each size: generates the corpus with bench/gen.py into build/bench/<size>/
(reused while the seed, size and gen.py's hash are unchanged), makes it a git
repository with every file committed (a checkout, as mpsfix and ast-grep meet
real projects; it also keeps the enclosing work tree's ignore rules out),
installs the pinned ast-grep with `npm ci` (bench/package-lock.json), then
times mpsfix `check` (full default catalog, default options), ast-grep `scan`
(bench/ast-grep: the four seed patterns) and `grep -rlwE` of the seed words:
one warm-up each, then --rounds alternated rounds.  Prints the versions, the
table, the targets of issue 7 with PASS/FAIL, and the findings of both tools
on the four shared patterns against the generator's manifest, explaining
each difference by the planted spellings.  Standard library only.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen  # noqa: E402

# family -> (mpsfix code, ast-grep rule id, what it is)
SHARED = [
    ("std_mean", "MPS001", "std-mean", "torch.std_mean(...)"),
    ("grad_scaler", "MPS004", "grad-scaler-mps", 'GradScaler("mps")'),
    ("autocast", "MPS005", "autocast-mps", 'autocast("mps")'),
    ("dataloader_pin_memory", "MPS101", "dataloader-pin-memory", "DataLoader(pin_memory=True)"),
]
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


class BenchError(Exception):
    pass


def say(*a):
    print(*a, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


# --- set-up ---------------------------------------------------------------

def prepare_corpus(out_root, size, seed):
    """build/bench/<size>/corpus, reused when STAMP matches."""
    d = os.path.join(out_root, str(size))
    stamp = json.dumps({"seed": seed, "size_mb": size, "generator_sha256": gen.generator_hash(),
                        "git": True}, sort_keys=True)
    stamp_path = os.path.join(d, "STAMP")
    corpus = os.path.join(d, "corpus")
    if os.path.exists(stamp_path) and open(stamp_path).read() == stamp and os.path.isdir(corpus):
        say(f"corpus {size} MB: reusing {corpus} (seed {seed}, same generator)")
        return d
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    t0 = time.perf_counter()
    run(["/usr/bin/python3", os.path.join(HERE, "gen.py"), "--seed", str(seed), "--size-mb", str(size),
         "--out", d])
    t1 = time.perf_counter()
    env = dict(os.environ, **GIT_ENV)
    git = ["git", "-C", corpus, "-c", "core.autocrlf=false", "-c", "gc.auto=0"]
    run(git + ["init", "-q"], env=env)
    run(git + ["add", "-A"], env=env)
    run(git + ["commit", "-q", "-m", "synthetic corpus"], env=env)
    t2 = time.perf_counter()
    say(f"corpus {size} MB: generated in {t1 - t0:.1f} s, committed to git in {t2 - t1:.1f} s")
    with open(stamp_path, "w") as fh:
        fh.write(stamp)
    return d


def install_ast_grep():
    lock = json.load(open(os.path.join(HERE, "package-lock.json")))
    want = lock["packages"]["node_modules/@ast-grep/cli"]["version"]
    binary = find_ast_grep()
    if binary:
        v = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split()
        if v[-1:] == [want]:
            return binary
    say(f"installing @ast-grep/cli {want} with npm ci (checksums from bench/package-lock.json)")
    run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE)
    binary = find_ast_grep()
    if not binary:
        raise BenchError("npm ci ran but no ast-grep binary is in bench/node_modules")
    return binary


def find_ast_grep():
    # the platform package's native binary (the .bin entry is the same file,
    # or a wrapper on platforms where the postinstall step did not run)
    base = os.path.join(HERE, "node_modules", "@ast-grep")
    if os.path.isdir(base):
        for name in sorted(os.listdir(base)):
            p = os.path.join(base, name, "ast-grep")
            if name.startswith("cli-") and os.access(p, os.X_OK):
                return p
    p = os.path.join(HERE, "node_modules", ".bin", "ast-grep")
    return p if os.access(p, os.X_OK) else None


def corpus_stats(corpus):
    nbytes = nfiles = npy = 0
    for root, dirs, files in os.walk(corpus):
        if ".git" in dirs:
            dirs.remove(".git")
        for f in files:
            nfiles += 1
            n = os.path.getsize(os.path.join(root, f))
            nbytes += n
            if f.endswith(".py"):
                npy += 1
    return nbytes, nfiles, npy


# --- timing ---------------------------------------------------------------

def timed(cmd, cwd, ok_status):
    """Wall seconds (perf_counter around the process), peak RSS (KiB) and CPU
    seconds (user + system), the last two from /usr/bin/time."""
    rss_file = os.path.join(os.path.dirname(os.path.abspath(cwd)), "rss.txt")
    full = ["/usr/bin/time", "-f", "%M %U %S", "-o", rss_file] + cmd
    t0 = time.perf_counter()
    p = subprocess.run(full, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode not in ok_status:
        raise BenchError(f"{' '.join(cmd)} exited with {p.returncode} (expected {ok_status}): "
                         f"{p.stderr.decode(errors='replace')[-2000:]}")
    rss, user, system = open(rss_file).read().split()[-3:]
    return wall, int(rss), float(user) + float(system)


def preread(corpus):
    """Reads every file once, so that no tool pays for the disk."""
    for root, dirs, files in os.walk(corpus):
        if ".git" in dirs:
            dirs.remove(".git")
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                while fh.read(1 << 20):
                    pass


def per_size(spec, sizes, what):
    """'5' (every size) or '70=5,700=1' (by size) -> {size: int}."""
    out = {}
    for part in re.split(r"[ ,]+", str(spec).strip()):
        if "=" in part:
            k, v = part.split("=", 1)
            k = float(k) if "." in k else int(k)
            if k not in sizes:
                raise BenchError(f"{what} names size {k}, which is not among the sizes")
            out[k] = int(v)
        elif part:
            out = {s: int(part) for s in sizes} | out
    missing = [s for s in sizes if s not in out]
    if missing:
        raise BenchError(f"{what} '{spec}' gives no value for size {missing[0]}")
    return out


def bench_size(d, tools, rounds, warmup):
    corpus = os.path.join(d, "corpus")
    results = {name: {"wall": [], "rss": [], "cpu": []} for name, _, _ in tools}
    preread(corpus)
    for _ in range(warmup):
        for name, cmd, ok in tools:
            timed(cmd, corpus, ok)
    for r in range(rounds):
        for name, cmd, ok in tools:
            w, rss, cpu = timed(cmd, corpus, ok)
            results[name]["wall"].append(w)
            results[name]["rss"].append(rss)
            results[name]["cpu"].append(cpu)
        say(f"  round {r + 1}/{rounds}: " + ", ".join(
            f"{n} {results[n]['wall'][-1]:.2f} s" for n, _, _ in tools))
    return results


# --- findings -------------------------------------------------------------

def mpsfix_findings(mpsfix, corpus):
    p = subprocess.run([mpsfix, "check", "--format", "jsonl", "."], cwd=corpus, capture_output=True)
    if p.returncode not in (0, 1):
        raise BenchError(f"mpsfix check --format jsonl exited with {p.returncode}: {p.stderr.decode()[-2000:]}")
    out = []
    for line in p.stdout.decode().splitlines():
        if line.strip():
            f = json.loads(line)
            out.append((f["code"], os.path.normpath(f["path"]), f["start"]["line"]))
    return out


def ast_grep_findings(ag, cfg, corpus):
    p = subprocess.run([ag, "scan", "-c", cfg, "--json=stream", "."], cwd=corpus, capture_output=True)
    if p.returncode not in (0, 1):
        raise BenchError(f"ast-grep scan --json exited with {p.returncode}: {p.stderr.decode()[-2000:]}")
    out = []
    for line in p.stdout.decode().splitlines():
        if line.strip():
            f = json.loads(line)
            out.append((f["ruleId"], os.path.normpath(f["file"]), f["range"]["start"]["line"] + 1))
    return out


def compare(manifest, mf, ag):
    """Per shared pattern: planted, found by each tool, and each difference
    explained by the planted spellings; returns the number of differences the
    manifest does not predict."""
    variants = manifest["variants"]
    unexplained = 0
    say("")
    say("Findings on the four shared patterns (planted = the generator's manifest)")
    say(f"{'pattern':36} {'planted':>8} {'expected':>9} {'mpsfix':>7} {'expected':>10} {'ast-grep':>9}")
    say(f"{'':36} {'':>8} {'(mpsfix)':>9} {'':>7} {'(ast-grep)':>10} {'':>9}")
    details = []
    for fam, code, rule, label in SHARED:
        inst = [(os.path.normpath(p), ln, variants[i]) for p, ln, i in manifest["instances"]
                if variants[i]["family"] == fam]
        exp_mf = sum(1 for _, _, v in inst if code in v["mpsfix"])
        exp_ag = sum(1 for _, _, v in inst if v["ast_grep"] == rule)
        got_mf = {(p, ln) for c, p, ln in mf if c == code}
        got_ag = {(p, ln) for r, p, ln in ag if r == rule}
        say(f"{code + ' ' + label:36} {len(inst):>8} {exp_mf:>9} {len(got_mf):>7} {exp_ag:>10} {len(got_ag):>9}")
        for tool, got, expects in (("mpsfix", got_mf, lambda v: code in v["mpsfix"]),
                                   ("ast-grep", got_ag, lambda v: v["ast_grep"] == rule)):
            planted_at = {(p, ln): v for p, ln, v in inst}
            by_variant = {}
            for (p, ln), v in planted_at.items():
                hit = (p, ln) in got
                key = v["variant"]
                e = by_variant.setdefault(key, {"v": v, "hit": 0, "miss": 0})
                e["hit" if hit else "miss"] += 1
            for key in sorted(by_variant):
                e = by_variant[key]
                v = e["v"]
                exp = expects(v)
                if exp and e["miss"]:
                    unexplained += e["miss"]
                    details.append(f"  {code} {tool}: UNEXPECTED: missed {e['miss']} x {v['description']} "
                                   f"(the manifest says it reports them)")
                elif not exp and e["hit"]:
                    unexplained += e["hit"]
                    details.append(f"  {code} {tool}: UNEXPECTED: reported {e['hit']} x {v['description']} "
                                   f"(the manifest says it does not)")
                elif not exp and e["miss"]:
                    details.append(f"  {code} {tool}: does not report {e['miss']} x {v['description']}: {v['why']}")
            extra = sorted(got - set(planted_at))
            if extra:
                unexplained += len(extra)
                where = ", ".join(f"{p}:{ln}" for p, ln in extra[:3])
                details.append(f"  {code} {tool}: UNEXPECTED: {len(extra)} findings where nothing was planted "
                               f"(false positives or a generator bug), e.g. {where}")
    say("Differences, by planted spelling (counted from the findings and the manifest):")
    for line in details:
        say(line)
    if not details:
        say("  none")
    # the other catalog rules: mpsfix only
    other = {}
    for c, _, _ in mf:
        other[c] = other.get(c, 0) + 1
    exp_all = manifest["expected"]["mpsfix"]
    codes = sorted(set(other) | set(exp_all))
    say("All mpsfix findings by code (expected from the manifest / reported): " +
        ", ".join(f"{c} {exp_all.get(c, 0)}/{other.get(c, 0)}" for c in codes))
    for c in codes:
        if exp_all.get(c, 0) != other.get(c, 0) and c not in [s[1] for s in SHARED]:
            unexplained += abs(exp_all.get(c, 0) - other.get(c, 0))
            say(f"  {c}: UNEXPECTED: {other.get(c, 0)} reported, {exp_all.get(c, 0)} planted")
    return unexplained


# --- report ---------------------------------------------------------------

def grep_count(words, corpus):
    p = subprocess.run(["grep", "-rlwE", "--exclude-dir=.git", "--include=*.py", "|".join(words), "."],
                       cwd=corpus, capture_output=True)
    return len([l for l in p.stdout.decode().splitlines() if l])


def fmt_s(x):
    return f"{x:.3f}" if x < 10 else f"{x:.2f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Benchmark mpsfix against ast-grep and grep (make bench).")
    ap.add_argument("--sizes", default="70,700", help="corpus sizes in MB, comma- or space-separated")
    ap.add_argument("--rounds", default="5", help="alternated rounds: N, or by size: 70=5,700=3")
    ap.add_argument("--warmup", default="1", help="warm-up runs of each tool: N, or by size: 70=1,700=0")
    ap.add_argument("--seed", type=int, default=gen.DEFAULT_SEED)
    ap.add_argument("--mpsfix", default=os.path.join(TOP, "build", "mpsfix"))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench"))
    args = ap.parse_args(argv)
    sizes = [float(s) if "." in s else int(s) for s in re.split(r"[ ,]+", args.sizes.strip()) if s]
    rounds = per_size(args.rounds, sizes, "--rounds")
    warmup = per_size(args.warmup, sizes, "--warmup")
    mpsfix = os.path.abspath(args.mpsfix)
    args.out = os.path.abspath(args.out)
    cfg = os.path.join(HERE, "ast-grep", "sgconfig.yml")
    os.makedirs(args.out, exist_ok=True)

    ag = install_ast_grep()
    dirs = {s: prepare_corpus(args.out, s, args.seed) for s in sizes}

    versions = [
        subprocess.run([mpsfix, "--version"], capture_output=True, text=True).stdout.strip(),
        subprocess.run([ag, "--version"], capture_output=True, text=True).stdout.strip(),
        subprocess.run(["grep", "--version"], capture_output=True, text=True).stdout.splitlines()[0],
    ]
    say("")
    say("== mpsfix benchmark (issue 7)")
    say("versions: " + "; ".join(versions))
    say(f"machine: nproc {os.cpu_count()} (online {len(os.sched_getaffinity(0))}), "
        f"load average at start {open('/proc/loadavg').read().split()[:3]}")
    say("sizes: N MB is a corpus of N MiB (N x 1048576 bytes); MB/s is 10^6 bytes a second")
    say("rounds: " + ", ".join(f"{s} MB: {rounds[s]} alternated (mpsfix, ast-grep, grep) after {warmup[s]} "
                              f"warm-up{'s' if warmup[s] != 1 else ''} each" for s in sizes) +
        "; every file is read once first (page cache); times are wall")
    say("mpsfix: `mpsfix check .` (full default catalog, default options; exit 1 = findings = success)")
    say(f"ast-grep: `ast-grep scan -c bench/ast-grep/sgconfig.yml .` (4 rules, its default threads)")
    say(f"grep: `grep -rlwE --exclude-dir=.git '{'|'.join(gen.SEED_WORDS)}' .`")

    table = {}
    for s in sizes:
        d = dirs[s]
        corpus = os.path.join(d, "corpus")
        nbytes, nfiles, npy = corpus_stats(corpus)
        say("")
        say(f"-- corpus {s} MB: {nbytes} bytes, {nfiles} files ({npy} .py), {corpus}")
        tools = [
            ("mpsfix", [mpsfix, "check", "."], (1,)),
            ("ast-grep", [ag, "scan", "-c", cfg, "."], (0, 1)),
            ("grep", ["grep", "-rlwE", "--exclude-dir=.git", "|".join(gen.SEED_WORDS), "."], (0, 1)),
        ]
        res = bench_size(d, tools, rounds[s], warmup[s])
        table[s] = (nbytes, nfiles, npy, res)

    say("")
    say(f"{'size':>6} {'tool':9} {'median s':>9} {'min s':>8} {'max s':>8} {'MB/s':>8} {'peak RSS MB':>12} "
        f"{'CPU s':>8}")
    for s in sizes:
        nbytes, nfiles, npy, res = table[s]
        for name in ("mpsfix", "ast-grep", "grep"):
            w = res[name]["wall"]
            med = statistics.median(w)
            rss = max(res[name]["rss"]) / 1024
            say(f"{s:>6} {name:9} {fmt_s(med):>9} {fmt_s(min(w)):>8} {fmt_s(max(w)):>8} "
                f"{nbytes / 1e6 / med:>8.1f} {rss:>12.1f} {fmt_s(statistics.median(res[name]['cpu'])):>8}")
    say("(wall: median, min, max over the rounds; MB/s from the median; peak RSS: the largest; "
        "CPU s: median user+system seconds, all threads)")
    say("")
    for s in sizes:
        nbytes, nfiles, npy, res = table[s]
        m = statistics.median(res["mpsfix"]["wall"])
        a = statistics.median(res["ast-grep"]["wall"])
        g = statistics.median(res["grep"]["wall"])
        faster = a / m
        who = (f"mpsfix is {faster:.2f}x faster than ast-grep" if faster >= 1
               else f"ast-grep is {1 / faster:.2f}x faster than mpsfix")
        say(f"{s} MB: ast-grep/mpsfix = {faster:.2f} ({who}); mpsfix/grep = {m / g:.1f} "
            f"(mpsfix takes {m / g:.1f}x grep's time)")

    # targets (issue 7): on the 70 MB corpus (else the first size)
    base = 70 if 70 in table else sizes[0]
    nbytes, nfiles, npy, res = table[base]
    m = statistics.median(res["mpsfix"]["wall"])
    a = statistics.median(res["ast-grep"]["wall"])
    g = statistics.median(res["grep"]["wall"])
    rss = max(max(table[s][3]["mpsfix"]["rss"]) for s in sizes) / 1024
    say("")
    say(f"Targets (issue 7, on the {base} MB corpus):")
    verdict = lambda ok: "PASS" if ok else "FAIL"
    say(f"  >= 10x faster than ast-grep:       {a / m:6.2f}x          {verdict(a / m >= 10)}")
    say(f"  within 3x of grep:                 {m / g:6.1f}x          {verdict(m / g <= 3)}")
    say(f"  peak RSS < 64 MB (all sizes):      {rss:6.1f} MB        {verdict(rss < 64)}")
    if 70 in table and 700 in table:
        t70 = statistics.median(table[70][3]["mpsfix"]["wall"])
        t700 = statistics.median(table[700][3]["mpsfix"]["wall"])
        b70, b700 = table[70][0], table[700][0]
        ratio = t700 / (10 * t70)
        say(f"  700 MB within 1.2x of 10 x 70 MB:  {ratio:6.2f}           {verdict(ratio <= 1.2)}"
            f"   (bytes ratio {b700 / b70:.2f}; per byte {(t700 / b700) / (t70 / b70):.2f})")
    else:
        say("  700 MB within 1.2x of 10 x 70 MB:  not measured (needs both sizes)")

    # sanity: how many files a prefilter could skip
    unexplained = 0
    for s in sizes:
        corpus = os.path.join(dirs[s], "corpus")
        npy = table[s][2]
        full = grep_count(gen.TRIGGER_WORDS, corpus)
        seed = grep_count(gen.SEED_WORDS, corpus)
        say("")
        say(f"{s} MB: .py files containing a trigger word of the full catalog: {full}/{npy} "
            f"({100 * full / npy:.1f}%); of the four seed patterns: {seed}/{npy} ({100 * seed / npy:.1f}%)")
        manifest = json.load(open(os.path.join(dirs[s], "MANIFEST.json")))
        unexplained += compare(manifest, mpsfix_findings(mpsfix, corpus),
                               ast_grep_findings(ag, cfg, corpus))
    say("")
    say(f"trigger words assumed (word-bounded): {' '.join(gen.TRIGGER_WORDS)}")
    say(f"load average at the end {open('/proc/loadavg').read().split()[:3]}")
    if unexplained:
        say(f"run.py: {unexplained} findings differ from what the manifest predicts (see UNEXPECTED above)")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BenchError, subprocess.CalledProcessError) as e:
        print(f"run.py: {e}", file=sys.stderr)
        sys.exit(2)
