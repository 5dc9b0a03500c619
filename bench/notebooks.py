#!/usr/bin/python3
"""notebooks.py: how fast mpsfix checks Jupyter notebooks (make bench-notebooks).

    /usr/bin/python3 bench/notebooks.py [--count 1000] [--size-mb 1]
        [--rounds 3] [--mpsfix build/mpsfix] [--out build/bench-notebooks]

writes OUT/corpus/ (unless it is there already, made with the same count,
size and seed): COUNT notebooks of about SIZE MB each, laid out as nbformat
writes them (indent 1), most of each file outputs (a PNG in base64, as a
plotting cell leaves it, and text streams), with 12 code cells of
training-notebook code among markdown cells; IPython lines (`!pip`,
`%matplotlib`) and a `%%bash` cell in each.  Every tenth notebook holds one
torch.std_mean call and one DataLoader(..., pin_memory=True): the rest has
nothing to report.  Seeded: the same arguments give the same bytes.

Then it runs `mpsfix check --isolated --quiet --format json OUT/corpus` ROUNDS
times (after one warm-up run), checks that the findings are exactly the
planted ones, and prints the wall time of each round, the median, the
throughput in MB/s and notebooks/s, and the peak resident memory
(/usr/bin/time, when installed).
"""

import argparse
import base64
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 20261125

CODE = [
    "!pip install torch torchvision\n%matplotlib inline",
    "import numpy as np\nimport torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader, TensorDataset",
    "device = torch.device(\"mps\" if torch.backends.mps.is_available() else \"cpu\")\n"
    "torch.manual_seed({seed})",
    "features = torch.randn({n}, {d})\nlabels = (features.sum(dim=1) > 0).long()\n"
    "dataset = TensorDataset(features, labels)",
    "{loader}",
    "model = nn.Sequential(\n    nn.Linear({d}, 64),\n    nn.ReLU(),\n    nn.Linear(64, 2),\n).to(device)\n"
    "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)",
    "%%bash\nnvidia-smi || echo no gpu",
    "for epoch in range(3):\n    for x, y in loader:\n        x, y = x.to(device), y.to(device)\n"
    "        loss = nn.functional.cross_entropy(model(x), y)\n        optimizer.zero_grad()\n"
    "        loss.backward()\n        optimizer.step()\n    print(epoch, loss.item())",
    "{stats}",
    "import matplotlib.pyplot as plt\nplt.plot(np.arange({n}) * 0.5)\nplt.title(\"loss\")",
    "with torch.no_grad():\n    acc = (model(features.to(device)).argmax(1).cpu() == labels).float().mean()\nacc",
    "torch.save(model.state_dict(), \"model_{seed}.pt\")",
]


def notebook(i, size, rng):
    planted = i % 10 == 0
    values = {
        "seed": i, "n": 256 + i % 7, "d": 8 + i % 5,
        "loader": "loader = DataLoader(dataset, batch_size=32, shuffle=True"
                  + (", pin_memory=True)" if planted else ")"),
        "stats": "spread, centre = torch.std_mean(features, dim=0)" if planted
                 else "centre = features.mean(dim=0)",
    }
    cells = []
    for k, code in enumerate(CODE):
        if k % 3 == 0:
            cells.append({"cell_type": "markdown", "metadata": {},
                          "source": ["## Step %d\n" % (k // 3 + 1), "\n", "What the next cells do."]})
        cells.append({"cell_type": "code", "execution_count": k + 1, "metadata": {}, "outputs": [],
                      "source": code.format(**values).splitlines(True)})
    # outputs: text streams in each code cell, the rest one plot's PNG
    for c in cells:
        if c["cell_type"] == "code":
            c["outputs"].append({"name": "stdout", "output_type": "stream",
                                 "text": ["epoch %d loss %.4f\n" % (e, rng.random()) for e in range(20)]})
    doc = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                        "name": "python3"},
                                         "language_info": {"name": "python", "version": "3.11.4"}},
           "nbformat": 4, "nbformat_minor": 5}
    base = len(json.dumps(doc, indent=1, ensure_ascii=False)) + 200
    png = base64.b64encode(rng.randbytes(max(0, (size - base) * 3 // 4))).decode()
    plot = next(c for c in cells if c["source"] and c["source"][0].startswith("import matplotlib"))
    plot["outputs"].append({"data": {"image/png": png, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
                                 "metadata": {}, "output_type": "display_data"})
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n", planted


def make_corpus(out, count, size_mb):
    corpus = os.path.join(out, "corpus")
    stamp = os.path.join(out, "corpus.json")
    want = {"count": count, "size_mb": size_mb, "seed": SEED}
    if os.path.isdir(corpus) and os.path.isfile(stamp):
        with open(stamp) as f:
            have = json.load(f)
        if have.get("made") == want:
            return corpus, have["planted"], have["bytes"]
    shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(corpus)
    rng = random.Random(SEED)
    planted = total = 0
    for i in range(count):
        text, p = notebook(i, int(size_mb * 1024 * 1024), rng)
        d = os.path.join(corpus, "project%02d" % (i // 100))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "nb%04d.ipynb" % i), "w", encoding="utf-8") as f:
            f.write(text)
        planted += p
        total += len(text.encode("utf-8"))
    with open(stamp, "w") as f:
        json.dump({"made": want, "planted": planted, "bytes": total}, f)
    return corpus, planted, total


def run(mpsfix, corpus, timed):
    cmd = [mpsfix, "check", "--isolated", "--quiet", "--format", "json", "."]
    peak = None
    if timed and os.path.exists("/usr/bin/time"):
        cmd = ["/usr/bin/time", "-f", "%M"] + cmd
    env = dict(os.environ, MPSFIX_RULES_DIR=os.path.join(TOP, "rules"))
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=corpus, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if p.returncode not in (0, 1):
        sys.exit("notebooks.py: mpsfix check exited %d: %s" % (p.returncode, p.stderr[-2000:]))
    if cmd[0] == "/usr/bin/time":
        peak = int(p.stderr.strip().splitlines()[-1])
    return wall, json.loads(p.stdout), peak


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--size-mb", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mpsfix", default=os.path.join(TOP, "build", "mpsfix"))
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench-notebooks"))
    args = ap.parse_args(argv)
    mpsfix = os.path.abspath(args.mpsfix)
    started = time.perf_counter()
    corpus, planted, total = make_corpus(args.out, args.count, args.size_mb)
    print("corpus: %d notebooks, %.1f MB, %d with planted findings (made or reused in %.1f s)"
          % (args.count, total / 1e6, planted, time.perf_counter() - started))
    run(mpsfix, corpus, False)  # warm-up: the page cache
    walls, peaks = [], []
    for r in range(args.rounds):
        wall, report, peak = run(mpsfix, corpus, True)
        found = sorted((f["code"], f["path"]) for f in report["findings"])
        want = sorted([("MPS001", "project%02d/nb%04d.ipynb" % (i // 100, i)) for i in range(0, args.count, 10)]
                      + [("MPS101", "project%02d/nb%04d.ipynb" % (i // 100, i))
                         for i in range(0, args.count, 10)])
        if found != want or report["summary"]["files"] != args.count:
            sys.exit("notebooks.py: round %d: %d findings in %d files, expected %d in %d"
                     % (r + 1, len(found), report["summary"]["files"], len(want), args.count))
        walls.append(wall)
        if peak is not None:
            peaks.append(peak)
        print("round %d: %.2f s" % (r + 1, wall))
    med = statistics.median(walls)
    print("mpsfix check: median %.2f s over %d rounds: %.0f MB/s, %.0f notebooks/s%s; "
          "findings: exactly the %d planted" % (
              med, len(walls), total / 1e6 / med, args.count / med,
              ", peak RSS %.0f MB" % (max(peaks) / 1024) if peaks else "", 2 * planted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
