"""What ruff would be told about one file of a project: its line length and its
isort settings, read from the project's own configuration files.

Shared by tests/ruff/lint_fixes.py (make lint-fixes) and bench/realworld/lint.

Line length: the folders from the file's own up to TOP (the fixture tree, the
repository) are searched, the nearest first; the first folder with a limit
gives it, read in this order:
  .ruff.toml, ruff.toml            line-length
  pyproject.toml                   [tool.ruff] line-length, then [tool.black] line-length,
                                   then [tool.yapf] column_limit
  .style.yapf                      column_limit of [style]
  setup.cfg                        column_limit of [yapf], then as below
  setup.cfg, tox.ini, .flake8      max-line-length of [flake8] or [pycodestyle]
and 88 (ruff's and black's default) where none has one.

isort settings (ruff's lint.isort): the WebAssembly ruff sees a text, not a
file on disk, so it cannot tell a first-party module from a third-party one
the way ruff on the command line does.  What that ruff would find is given as
known-first-party: the folders and *.py files in each of the project's `src`
folders (ruff's default: the project's folder and its src/), and the top
package the file itself lies in (ruff's detect-same-package), besides the
lint.isort section of the project's ruff configuration (the nearest
.ruff.toml, ruff.toml or pyproject.toml with [tool.ruff]) passed on as it is.
"""
import configparser
import os
import tomllib

DEFAULT_LINE_LENGTH = 88
FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")


def _toml(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None


def _ruff_config(folder):
    """The ruff settings of a folder's own configuration file, or None."""
    for name in (".ruff.toml", "ruff.toml"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            doc = _toml(path)
            if doc is not None:
                return path, doc
    path = os.path.join(folder, "pyproject.toml")
    if os.path.isfile(path):
        doc = _toml(path)
        if doc is not None and isinstance(doc.get("tool", {}).get("ruff"), dict):
            return path, doc["tool"]["ruff"]
    return None


def _int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return None


def _folder_line_length(folder):
    """(limit, where) from one folder's files, or None."""
    found = _ruff_config(folder)
    if found and _int(found[1].get("line-length")):
        return _int(found[1]["line-length"]), f"{found[0]}: line-length"
    path = os.path.join(folder, "pyproject.toml")
    if os.path.isfile(path):
        doc = _toml(path) or {}
        black = doc.get("tool", {}).get("black", {})
        if isinstance(black, dict) and _int(black.get("line-length")):
            return _int(black["line-length"]), f"{path}: [tool.black] line-length"
        yapf = doc.get("tool", {}).get("yapf", {})
        if isinstance(yapf, dict) and _int(yapf.get("column_limit")):
            return _int(yapf["column_limit"]), f"{path}: [tool.yapf] column_limit"
    for name, section in ((".style.yapf", "style"), ("setup.cfg", "yapf")):
        path = os.path.join(folder, name)
        cp = configparser.RawConfigParser(strict=False)
        try:
            cp.read(path, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue
        if cp.has_option(section, "column_limit") and _int(cp.get(section, "column_limit")):
            return _int(cp.get(section, "column_limit")), f"{path}: [{section}] column_limit"
    for name in FLAKE8_FILES:
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        cp = configparser.RawConfigParser(strict=False)
        try:
            cp.read(path, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue
        for section in ("flake8", "pycodestyle"):
            if cp.has_option(section, "max-line-length"):
                n = _int(cp.get(section, "max-line-length"))
                if n:
                    return n, f"{path}: [{section}] max-line-length"
    return None


def _folders_up(path, top):
    """The folder of path (or path, a folder) and those above it, up to top."""
    top = os.path.abspath(top)
    folder = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path))
    while True:
        yield folder
        if folder == top or os.path.dirname(folder) == folder:
            return
        if not (folder + os.sep).startswith(top + os.sep):
            return
        folder = os.path.dirname(folder)


def line_length(path, top):
    """(limit, where it came from) for the file or folder path inside top."""
    for folder in _folders_up(path, top):
        got = _folder_line_length(folder)
        if got:
            return got
    return DEFAULT_LINE_LENGTH, "default"


def _names_in(folder):
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return []
    names = []
    for e in entries:
        full = os.path.join(folder, e)
        stem = e.rsplit(".", 1)[0] if e.endswith((".py", ".pyi")) else e
        if stem.startswith("__") or not stem.isidentifier():
            continue
        if stem is e and os.path.isdir(full) or stem is not e and os.path.isfile(full):
            names.append(stem)
    return names


def _top_package(path, top):
    """The name of the outermost package (folders with __init__.py) holding path."""
    name = None
    for folder in _folders_up(path, top):
        if not os.path.isfile(os.path.join(folder, "__init__.py")):
            break
        name = os.path.basename(folder)
    return name


def isort_settings(path, top, root=None):
    """ruff's lint.isort settings for the file path of the project in top;
    root: the project's folder where no ruff configuration says (default top)."""
    found = None
    for folder in _folders_up(path, top):
        found = _ruff_config(folder)
        if found:
            break
    root = os.path.dirname(found[0]) if found else os.path.abspath(root or top)
    ruff = found[1] if found else {}
    lint = ruff.get("lint") if isinstance(ruff.get("lint"), dict) else {}
    isort = lint.get("isort", ruff.get("isort", {}))
    isort = dict(isort) if isinstance(isort, dict) else {}
    src = ruff.get("src")
    if not (isinstance(src, list) and all(isinstance(s, str) for s in src)):
        src = [".", "src"]
    first = []
    for s in src:
        first += _names_in(os.path.normpath(os.path.join(root, s)))
    package = _top_package(path, top)
    if package and package.isidentifier():
        first.append(package)
    known = isort.get("known-first-party", [])
    known = list(known) if isinstance(known, list) else []
    # names the project says are third-party or standard library stay so
    others = set()
    for key in ("known-third-party", "known-local-folder", "extra-standard-library"):
        if isinstance(isort.get(key), list):
            others.update(isort[key])
    merged = sorted(set(known) | {n for n in first if n not in others})
    if merged:
        isort["known-first-party"] = merged
    return isort
