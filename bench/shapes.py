#!/usr/bin/python3
"""shapes.py: time mpsfix on files of extreme shape (deep chains, many functions).

    /usr/bin/python3 bench/shapes.py [--mpsfix build/mpsfix] [--scale 1] [--timeout 120] [--only A,B]

Writes each file to a temporary folder, runs `mpsfix check` on it with every
rule selected and unsafe fixes shown, and prints one line per shape: its
size, the seconds and peak memory (from /usr/bin/time), the findings, and
whether CPython compiles it (a file it refuses cannot run, and only needs to
fail fast).  A run past --timeout is killed and shown as such.

The shapes are those where a per-node ts_node_parent() (which searches down
from the root) or a per-finding walk made mpsfix's time grow with the square
or the cube of the depth or of the number of functions (generators-5000: a
walk of the module for each name read in a generator).  project-2000 is a
folder (a pyproject.toml, a module of 2,000 functions with a "cuda" default,
1,000 modules that call them): each default asks what the project's other
modules pass (src/engine/project.h); project-calls-30000 asks a module of
30,000 nested calls of the function.  kwargs-dicts-5000 and
project-kwargs-5000 call a function through 5,000 dictionaries written out
(`f(x, **kw1)`, src/engine/kwdict.h), kwargs-calls-30000 through one
dictionary 30,000 times.  project-large-caller-400 asks 400 questions that
each read the same caller module of 590 KB (src/engine/texts.h).  Standard
library only.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAD = 'import torch\nimport warnings\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'


def method(expr):
    return HEAD + ("class C:\n    def f(self, x, device=\"cuda\"):\n        y = %s\n"
                   "        z = torch.autocast(device)\n        return y.to(device, non_blocking=True)\n" % expr)


def shapes(scale):
    n = lambda k: max(1, int(k * scale))
    return [
        ("cuda-chain-1000", method("x" + ".cuda()" * n(1000))),
        ("cuda-chain-8000", method("x" + ".cuda()" * n(8000))),
        ("nested-calls-30000", method("f(" * n(30000) + "x" + ")" * n(30000))),
        ("module-calls-30000", HEAD + 'def f(x, device="cuda"):\n    y = ' + "f(" * n(30000) + "x" +
         ")" * n(30000) + "\n    z = x.to(device)\n"),
        ("format-chain-100000", method('"x"' + ".format()" * n(100000))),
        ("module-format-20000", HEAD + 'def f(x, device="cuda"):\n    warnings.warn("x"' +
         ".format()" * n(20000) + ")\n"),
        ("percent-chain-300000", method('"x"' + " % a" * n(300000))),
        ("ifexp-2000", method('"cuda" if torch.cuda.is_available() else ' * n(2000) + '"cpu"')),
        ("lambda-chain-5000", method("x" + ".map(lambda a: a.to(device))" * n(5000))),
        ("and-chain-30000", method("x" + " and x" * n(30000))),
        ("flag-and-chain-30000", method("x" + " and x" * n(30000)).replace(
            "        y = ", "        x = torch.cuda.is_available()\n        y = ", 1)),
        ("module-flag-and-chain-30000", method("x" + " and x" * n(30000)).replace(
            HEAD, HEAD + "x = torch.cuda.is_available()\n", 1)),
        ("plus-chain-100000", method("x" + " + x" * n(100000))),
        ("subscripts-30000", method("x[" * n(30000) + "0" + "]" * n(30000))),
        ("ifs-400", HEAD + "def f(x, device=\"cuda\"):\n" + "".join(
            "    " * (i + 1) + "if x:\n" for i in range(n(400))) + "    " * (n(400) + 1) +
         "y = torch.zeros(1, device=device).to(device, non_blocking=True)\n"),
        ("functions-2000", HEAD + "".join(
            'def f%d(x, device="cuda"):\n    return x.to(device, non_blocking=True)\n' % i
            for i in range(n(2000)))),
        ("self-device-5000", HEAD + "class T:\n    def __init__(self):\n        self.device = device\n\n"
         "    def step(self, xs):\n" + "".join(
            "        y%d = xs[%d].to(self.device, non_blocking=True)\n" % (i, i) for i in range(n(5000)))),
        ("functions-5000", HEAD + "".join(
            'def f%d(x, device="cuda"):\n    return x.to(device, non_blocking=True)\n' % i
            for i in range(n(5000)))),
        ("generators-5000", HEAD + "d = 'cpu'\n" + "".join(
            "y%d = sum(x.to(d, non_blocking=True).sum() for x in xs)\n" % i for i in range(n(5000)))),
        ("project-2000", project(n(2000), n(1000))),
        ("project-calls-30000", {"pyproject.toml": "[project]\nname = 'p'\n",
                                 "lib.py": 'def f(x, device="cuda"):\n    return x.to(device)\n',
                                 "m.py": "from lib import f\ny = " + "f(" * n(30000) + "x" +
                                 ")" * n(30000) + "\n"}),
        ("kwargs-dicts-5000", HEAD + 'def f(x, device="cuda"):\n    return x.to(device)\ndef main(x):\n' +
         "".join("    kw%d = dict(device=device)\n    y%d = f(x, **kw%d)\n" % (i, i, i) for i in range(n(5000)))),
        ("kwargs-calls-30000", HEAD + 'def f(x, device="cuda"):\n    return x.to(device)\ndef main(x):\n'
         "    kw = dict(device=device)\n" + "".join("    y%d = f(x, **kw)\n" % i for i in range(n(30000)))),
        ("project-kwargs-5000", {"pyproject.toml": "[project]\nname = 'p'\n",
                                 "lib.py": 'def f(x, device="cuda"):\n    return x.to(device)\n',
                                 "m.py": "from lib import f\ndef main(x, d):\n" + "".join(
                                     "    kw%d = {'device': d}\n    y%d = f(x, **kw%d)\n" % (i, i, i)
                                     for i in range(n(5000)))}),
        ("project-large-caller-400", {"pyproject.toml": "[project]\nname = 'p'\n",
                                      "lib.py": "".join('def f%d(x, device="cuda"):\n    return x.to(device)\n\n\n' % i
                                                        for i in range(n(400))),
                                      "m.py": "from lib import *\n" + "".join(
                                          "def g%d(x, d):\n    f%d(x, device=d)\n%s\n" % (i, i, LINE * 20)
                                          for i in range(n(400)))}),
    ]


LINE = "    y = (x + 1, x * 2, x - 3, x / 4, [x, x, x], {x: x}, f(x, y=x, z=x))\n"


def project(nfns, nmods):
    """A folder: lib.py with `nfns` "cuda" defaults, `nmods` modules calling them."""
    files = {"pyproject.toml": "[project]\nname = 'p'\n",
             "lib.py": "".join('def f%d(x, device="cuda"):\n    return x.to(device)\n\n\n' % i
                               for i in range(nfns))}
    for m in range(nmods):
        files["m%d.py" % m] = "import torch\nfrom lib import %s\n\n\ndef run(x, d):\n%s" % (
            ", ".join("f%d" % ((m + k) % nfns) for k in range(5)),
            "".join("    f%d(x, device=d)  # %s\n" % ((m + k) % nfns, "pad " * 40) for k in list(range(5)) * 40))
    return files


def compiles(text):
    try:
        compile(text, "shape", "exec")
        return "yes"
    except (SyntaxError, RecursionError, MemoryError) as e:
        return type(e).__name__


def main(argv=None):
    ap = argparse.ArgumentParser(description="Time mpsfix on files of extreme shape.")
    ap.add_argument("--mpsfix", default=os.path.join(TOP, "build", "mpsfix"))
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size by this")
    ap.add_argument("--timeout", type=int, default=120, help="seconds before a run is killed")
    ap.add_argument("--only", default="", help="these shapes only (comma-separated names)")
    args = ap.parse_args(argv)
    codes = []
    for name in sorted(os.listdir(os.path.join(TOP, "rules"))):
        if name.endswith(".yml"):
            with open(os.path.join(TOP, "rules", name)) as f:
                m = re.search(r"^code:\s*(\S+)", f.read(), re.M)
                if m:
                    codes.append(m.group(1))
    print("%-22s %9s %9s %9s %9s  %s" % ("shape", "bytes", "seconds", "peak KB", "findings", "CPython"))
    with tempfile.TemporaryDirectory() as d:
        for name, text in shapes(args.scale):
            if args.only and name not in args.only.split(","):
                continue
            path = os.path.join(d, name + ".py")
            if isinstance(text, dict):
                path = os.path.join(d, name)
                os.mkdir(path)
                for rel, body in text.items():
                    with open(os.path.join(path, rel), "w") as f:
                        f.write(body)
                text = "".join(text.values())
            else:
                with open(path, "w") as f:
                    f.write(text)
            cmd = ["/usr/bin/time", "-f", "TIME %e %M", "timeout", "-s", "KILL", str(args.timeout),
                   args.mpsfix, "check", "--select", ",".join(codes), "--unsafe-fixes", "--exit-zero",
                   "--format", "concise", path]
            p = subprocess.run(cmd, capture_output=True, text=True)
            t = re.search(r"TIME (\S+) (\d+)", p.stderr)
            secs = t.group(1) if t else "?"
            if p.returncode != 0:
                secs = "killed" if p.returncode in (124, 137, -9) else "rc=%d" % p.returncode
            found = sum(1 for line in p.stdout.splitlines() if line.startswith(path) and ": MPS" in line)
            print("%-22s %9d %9s %9s %9d  %s" % (name, len(text), secs, t.group(2) if t else "?", found,
                                                compiles(text)))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
