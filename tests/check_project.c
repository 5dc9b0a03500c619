/*
 * check_project.c: what the project's other modules pass to a function or
 * class (project.h), and the project's files (projfiles.h).  Each case is
 * a project written to a temporary folder, outside any git work tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "project.h"
#include "projfiles.h"
#include "texts.h"
#include "testutil.h"
#include "tests.h"

/* the module the questions ask about: pkg/loader.py */
static const char loader_py[] = "import torch\n"
				 "\n"
				 "\n"
				 "class Prefetch:\n"
				 "    def __init__(self, loader, device=\"cuda\"):\n"
				 "        self.device = device\n"
				 "\n"
				 "\n"
				 "def helper(x, device=\"cuda\", /):\n"
				 "    return x.to(device)\n"
				 "\n"
				 "\n"
				 "def lonely(x, *, device=\"cuda\"):\n"
				 "    return x.to(device)\n";

typedef struct {
	const char *what;
	const char *name;   /* asked about */
	bool is_class;
	long at;            /* the parameter `device`: position, -1 keyword-only */
	bool posonly;
	const char *files;  /* "PATH\n<text>\f" ... written into the project */
	mpsfix_project_verdict want;
	size_t calls;       /* for PASSED and DEFAULT_USED */
} project_case;

/* Write each "PATH\nTEXT" of `files` (separated by form feeds) under `dir`. */
static void put_files(const char *dir, const char *files)
{
	char *copy = mpsfix_xstrdup(files), *save = NULL;

	for (char *f = strtok_r(copy, "\f", &save); f; f = strtok_r(NULL, "\f", &save)) {
		char *nl = strchr(f, '\n');

		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		tu_put(dir, f, nl + 1);
	}
	free(copy);
}

START_TEST(test_project_calls)
{
	static const project_case cases[] = {
		{"no other module names it", "lonely", false, -1, false, "", MPSFIX_PROJECT_PASSED, 0},
		{"imported from its module, passed by keyword", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\nlonely(1, device=d)\n", MPSFIX_PROJECT_PASSED, 1},
		{"left out", "lonely", false, -1, false, "train.py\nfrom pkg.loader import lonely\nlonely(1)\n",
		 MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"positional-only, passed by position", "helper", false, 1, true,
		 "train.py\nfrom pkg.loader import helper\nhelper(1, d)\n", MPSFIX_PROJECT_PASSED, 1},
		{"positional-only: a keyword does not pass it", "helper", false, 1, true,
		 "train.py\nfrom pkg.loader import helper\nhelper(1, device=d)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"a class through its package's __init__", "Prefetch", true, 1, false,
		 "pkg/__init__.py\nfrom .loader import Prefetch\n\f"
		 "train.py\nfrom pkg import Prefetch\np = Prefetch(xs, device=d)\nq = Prefetch(xs, d)\n",
		 MPSFIX_PROJECT_PASSED, 2},
		{"a package's `import X as X` (PEP 484) hands it on", "Prefetch", true, 1, false,
		 "pkg/__init__.py\nfrom .loader import Prefetch as Prefetch\n\f"
		 "train.py\nfrom pkg import Prefetch\np = Prefetch(xs, device=d)\n", MPSFIX_PROJECT_PASSED, 1},
		{"... and a call through it that leaves it out", "Prefetch", true, 1, false,
		 "pkg/__init__.py\nfrom .loader import Prefetch as Prefetch\n\f"
		 "train.py\nfrom pkg import Prefetch as Prefetch\np = Prefetch(xs)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"a package that renames it: not followed", "Prefetch", true, 1, false,
		 "pkg/__init__.py\nfrom .loader import Prefetch as P\n\f"
		 "train.py\nfrom pkg import P\np = P(xs, device=d)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a package's star import hands it on", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import *\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"a package that imports the name from another of its modules", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .other import lonely\n\f"
		 "pkg/other.py\ndef lonely(x):\n    pass\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a relative import, left out", "Prefetch", true, 1, false,
		 "pkg/run.py\nfrom .loader import Prefetch\np = Prefetch(xs)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"the module imported under a name", "lonely", false, -1, false,
		 "train.py\nimport pkg.loader as L\nL.lonely(1, device=d)\n", MPSFIX_PROJECT_PASSED, 1},
		{"the module imported whole", "lonely", false, -1, false,
		 "train.py\nimport pkg.loader\npkg.loader.lonely(1)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"the module from its package", "lonely", false, -1, false,
		 "train.py\nfrom pkg import loader\nloader.lonely(1)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"another module's function of the same name", "lonely", false, -1, false,
		 "other.py\ndef lonely(x):\n    pass\n\f"
		 "train.py\nfrom other import lonely\nlonely(1)\n", MPSFIX_PROJECT_PASSED, 0},
		{"a package's own function of the same name", "lonely", false, -1, false,
		 "train.py\nfrom torchvision.ops import lonely\nlonely(1)\n", MPSFIX_PROJECT_PASSED, 0},
		{"another object's method", "lonely", false, -1, false, "train.py\nmodel.lonely(1)\n",
		 MPSFIX_PROJECT_PASSED, 0},
		{"annotations and isinstance() name a type", "Prefetch", true, 1, false,
		 "train.py\nfrom pkg.loader import Prefetch\n"
		 "def f(p: Prefetch, q: \"Prefetch\") -> list[\"Prefetch\"]:\n    return isinstance(p, (Prefetch, int))\n",
		 MPSFIX_PROJECT_PASSED, 0},
		{"a class's static method: no instance", "Prefetch", true, 1, false,
		 "train.py\nfrom pkg.loader import Prefetch\nPrefetch.headroom()\n", MPSFIX_PROJECT_PASSED, 0},
		{"a subclass", "Prefetch", true, 1, false,
		 "train.py\nfrom pkg.loader import Prefetch\nclass Mine(Prefetch):\n    pass\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"__init__ called by name", "Prefetch", true, 1, false,
		 "train.py\nfrom pkg.loader import Prefetch\nPrefetch.__init__(self, xs)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"imported under another name", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely as l\nl(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"handed on as a value", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\nfns = [lonely]\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"the module's function handed on", "lonely", false, -1, false,
		 "train.py\nimport pkg.loader as L\nf = L.lonely\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"**kwargs may hold it", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\nlonely(1, **kw)\n", MPSFIX_PROJECT_UNKNOWN, 1},
		{"*args may reach it", "helper", false, 1, true,
		 "train.py\nfrom pkg.loader import helper\nhelper(*args)\n", MPSFIX_PROJECT_UNKNOWN, 1},
		{"but a call that leaves it out settles it", "lonely", false, -1, false,
		 "a.py\nfrom pkg.loader import lonely\nlonely(1, **kw)\n\f"
		 "b.py\nfrom pkg.loader import lonely\nlonely(2)\n", MPSFIX_PROJECT_DEFAULT_USED, 2},
		{"**NAME of a dictionary a function writes out with the keyword", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\ndef main(d):\n    kw = dict(device=d)\n    lonely(1, **kw)\n",
		 MPSFIX_PROJECT_PASSED, 1},
		{"**NAME of a dictionary a function writes out without it", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\ndef main(d):\n    kw = {'n': 1}\n    lonely(1, **kw)\n",
		 MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"**NAME of a dictionary changed after", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\ndef main(d):\n    kw = dict(device=d)\n    kw.clear()\n"
		 "    lonely(1, **kw)\n", MPSFIX_PROJECT_UNKNOWN, 1},
		{"**NAME of a module's dictionary, which another module may change", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\nkw = dict(device='cpu')\ndef main():\n    lonely(1, **kw)\n\f"
		 "cli.py\nfrom train import kw, main\nkw.pop('device')\nmain()\n", MPSFIX_PROJECT_UNKNOWN, 1},
		{"a package's star import of a module that cannot bind the name", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\n\f"
		 "pkg/consts.py\nMEAN = (0.5,)\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"a star import of a module that names it", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\n\f"
		 "pkg/consts.py\nlonely = None\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a star import of a module that imports * in turn", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\n\f"
		 "pkg/consts.py\nfrom .more import \\\n    *\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a star import of a module that writes its globals", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\n\f"
		 "pkg/consts.py\nglobals()['lon' + 'ely'] = None\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a star import of a module with a __getattr__ (and a computed __all__)", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\n\f"
		 "pkg/consts.py\nimport importlib\n_m = importlib.import_module('pkg.loader')\n"
		 "__all__ = [n for n in dir(_m) if n[0] != '_']\ndef __getattr__(n):\n    return getattr(_m, n)\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a star import of a module that binds by eval() or a frame", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\nfrom .more import *\n\f"
		 "pkg/consts.py\nfor n in ['lon' + 'ely']:\n    eval(f'({n} := 1)')\n\f"
		 "pkg/more.py\nimport inspect\ninspect.currentframe().f_globals.update(x=1)\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a star import of a module named as one in a folder between it and the top", "lonely", false, -1, false,
		 "tools/consts.py\nfrom pkg.loader import lonely\n\f"
		 "tools/sub/consts.py\nMEAN = (0.5,)\n\f"
		 "tools/sub/run.py\nfrom consts import *\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a star import of a module in UTF-7, which spells names in other bytes", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\n\f"
		 "pkg/consts.py\n# vim: set fileencoding=utf-7 :\nfrom .loader import +AGw-onely\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a star import of a module that declares UTF-8", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\nfrom .consts import *\n\f"
		 "pkg/consts.py\n# -*- coding: utf-8 -*-\nMEAN = (0.5,)\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"a star import of a module named as one at the project's top", "lonely", false, -1, false,
		 "consts.py\nfrom pkg.loader import lonely\n\f"
		 "scripts/consts.py\nMEAN = (0.5,)\n\f"
		 "scripts/run.py\nfrom consts import *\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a name no import binds, beside a star import that cannot bind it", "lonely", false, -1, false,
		 "pkg/consts.py\nMEAN = (0.5,)\n\f"
		 "train.py\nfrom pkg.consts import *\ndef lonely(x):\n    pass\nlonely(1)\n", MPSFIX_PROJECT_PASSED, 0},
		{"a star import of the project", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import *\nlonely(1, device=d)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a string that names it", "lonely", false, -1, false,
		 "train.py\nimport importlib\nf = getattr(importlib.import_module(\"pkg.loader\"), \"lonely\")\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"a dotted string that names it", "Prefetch", true, 1, false,
		 "train.py\nREGISTRY = {\"p\": \"pkg.loader.Prefetch\"}\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a string that monkeypatch.setattr() rebinds is not a use", "Prefetch", true, 1, false,
		 "test_run.py\nfrom pkg import run\nfrom pkg.loader import Prefetch\n"
		 "def test(monkeypatch):\n    monkeypatch.setattr(run, \"Prefetch\", Spy)\n"
		 "    monkeypatch.setattr(\"pkg.loader.Prefetch\", Spy)\n    setattr(run, \"Prefetch\", Spy)\n",
		 MPSFIX_PROJECT_PASSED, 0},
		{"nor one that mock.patch() rebinds", "Prefetch", true, 1, false,
		 "test_run.py\nfrom unittest import mock\nimport pkg.loader\n"
		 "@mock.patch(\"pkg.loader.Prefetch\")\ndef test(p):\n"
		 "    with mock.patch.object(pkg.loader, \"Prefetch\", autospec=True):\n        pass\n",
		 MPSFIX_PROJECT_PASSED, 0},
		{"but a string a rebinding reads is", "Prefetch", true, 1, false,
		 "test_run.py\nfrom pkg import run\n"
		 "def test(monkeypatch):\n    monkeypatch.setattr(run, \"P\", getattr(run, \"Prefetch\"))\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"and another object's patch() or setattr()", "Prefetch", true, 1, false,
		 "client.py\nimport requests\nfrom pkg import run\nrequests.patch(\"Prefetch\")\ncfg.setattr(run, \"Prefetch\", 1)\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"and so is setattr()'s name with a splat", "Prefetch", true, 1, false,
		 "test_run.py\nfrom pkg import run\nsetattr(run, \"Prefetch\", *spy)\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"__all__ is not a use", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\n__all__ = [\"lonely\"]\n", MPSFIX_PROJECT_PASSED, 0},
		{"a Hydra configuration", "Prefetch", true, 1, false,
		 "conf/data.yaml\nloader:\n  _target_: pkg.loader.Prefetch\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a notebook", "lonely", false, -1, false,
		 "demo.ipynb\n{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"lonely(x)\"]}]}\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"a word in a comment or a docstring is not a use", "lonely", false, -1, false,
		 "train.py\n# lonely(x) is never called\n\"\"\"see lonely()\"\"\"\n", MPSFIX_PROJECT_PASSED, 0},
		{"a module that does not parse", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\nlonely(1, device=d\n", MPSFIX_PROJECT_UNKNOWN, 0},
		/* found wrong by a review: each may reach the function unseen */
		{"a package under lib/, found through sys.path", "lonely", false, -1, false,
		 "tools/run.py\nimport sys\nsys.path.insert(0, 'lib')\nfrom loader import lonely\nlonely(1)\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"the module bound again: M = loader", "lonely", false, -1, false,
		 "train.py\nfrom pkg import loader\nM = loader\nM.lonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"the module on an object", "lonely", false, -1, false,
		 "train.py\nfrom pkg import loader\nclass R:\n    mod = loader\n    def go(self):\n        self.mod.lonely(1)\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"two imports bind the alias (try / except)", "lonely", false, -1, false,
		 "train.py\ntry:\n    import otherlib as B\nexcept ImportError:\n    from pkg import loader as B\nB.lonely(1, device=d)\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"an explicit import and a star import of ours", "lonely", false, -1, false,
		 "train.py\nfrom other import lonely\nfrom pkg.loader import *\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"exec() of a string", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\nexec(\"lonely(1)\")\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a doctest", "lonely", false, -1, false,
		 "train.py\nfrom pkg.loader import lonely\ndef f():\n    \"\"\"\n    >>> lonely(1)\n    \"\"\"\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"a package's __getattr__ (PEP 562)", "lonely", false, -1, false,
		 "pkg/__init__.py\ndef __getattr__(name):\n    from . import loader\n    return getattr(loader, name)\n\f"
		 "train.py\nfrom pkg import lonely\nlonely(1)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a notebook cell in one string, after an escape", "lonely", false, -1, false,
		 "demo.ipynb\n{\"cells\": [{\"source\": \"from pkg.loader import *\\nlonely(1)\"}]}\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"a symbolic link to a FIFO is no file", "lonely", false, -1, false, "", MPSFIX_PROJECT_PASSED, 0},
		/* found wrong by a second review */
		{"through a module of another package that hands it on", "lonely", false, -1, false,
		 "other/__init__.py\nfrom pkg.loader import lonely\n\f"
		 "x.py\nfrom other import lonely\nlonely(1)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"a relative import with two blanks", "lonely", false, -1, false,
		 "pkg/__init__.py\nfrom .loader import lonely\n\f"
		 "pkg/sub/__init__.py\n\f"
		 "pkg/sub/a.py\nfrom  .. import lonely\nlonely(1)\n", MPSFIX_PROJECT_DEFAULT_USED, 1},
		{"the module handed on by a module that names the function", "lonely", false, -1, false,
		 "train.py\nimport pkg.loader as L\nL.lonely(1, device=d)\nrun(L)\n", MPSFIX_PROJECT_UNKNOWN, 0},
		{"a string run as code", "lonely", false, -1, false,
		 "train.py\nimport subprocess, sys\n"
		 "subprocess.run([sys.executable, \"-c\", \"from pkg.loader import lonely; lonely(1)\"])\n",
		 MPSFIX_PROJECT_UNKNOWN, 0},
		{"a hidden folder and a virtual environment are not the project's", "lonely", false, -1, false,
		 ".venv/lib/x.py\nfrom pkg.loader import lonely\nlonely(1)\n\f"
		 "venv/y.py\nfrom pkg.loader import lonely\nlonely(1)\n", MPSFIX_PROJECT_PASSED, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const project_case *c = &cases[i];
		char tmpl[] = "/tmp/mpsfix-project-XXXXXX";
		char *dir = mkdtemp(tmpl), *path;
		mpsfix_project_cache *cache = mpsfix_project_cache_new();
		mpsfix_project_question q = {c->name, strlen(c->name), c->is_class, "device", 6, c->at, c->posonly, false};
		mpsfix_project_verdict v;
		size_t n = 99;

		ck_assert_ptr_nonnull(dir);
		tu_put(dir, "pyproject.toml", "[project]\nname = \"p\"\n");
		tu_put(dir, "pkg/__init__.py", "");
		tu_put(dir, "pkg/loader.py", loader_py);
		put_files(dir, c->files);
		if (strstr(c->what, "FIFO"))
			ck_assert_int_eq(tu_sh(dir, "mkfifo fifo && ln -s fifo pkg/pipe.py"), 0);
		path = mpsfix_xasprintf("%s/pkg/loader.py", dir);
		v = mpsfix_project_calls(cache, path, &q, &n);
		ck_assert_msg(v == c->want, "%s: verdict %d, not %d", c->what, v, c->want);
		if (v != MPSFIX_PROJECT_UNKNOWN)
			ck_assert_msg(n == c->calls, "%s: %zu calls, not %zu", c->what, n, c->calls);
		/* asked again: the same answer, from the cache */
		ck_assert_int_eq(mpsfix_project_calls(cache, path, &q, &n), v);
		mpsfix_project_cache_free(cache);
		free(path);
		tu_rm_rf(dir);
	}
}
END_TEST

/*
 * A module larger than the texts keep (64 KiB) is parsed again for each
 * question; what its `**NAME` pass is read once (kwdict.h's store), and
 * read again when the file changes.
 */
START_TEST(test_project_kwargs_large)
{
	char tmpl[] = "/tmp/mpsfix-project-XXXXXX";
	char *dir = mkdtemp(tmpl), *path;
	mpsfix_buf text = MPSFIX_BUF_INIT;
	mpsfix_project_question q = {"lonely", 6, false, "device", 6, -1, false, false};
	mpsfix_project_question other = {"helper", 6, false, "device", 6, 1, true, false};
	mpsfix_project_cache *cache = mpsfix_project_cache_new();
	size_t n;

	ck_assert_ptr_nonnull(dir);
	tu_put(dir, "pyproject.toml", "[project]\nname = \"p\"\n");
	tu_put(dir, "pkg/__init__.py", "");
	tu_put(dir, "pkg/loader.py", loader_py);
	for (int i = 0; i < 2; i++) {
		mpsfix_buf_release(&text);
		mpsfix_buf_adds(&text, "from pkg.loader import lonely, helper\n");
		for (int k = 0; k < 1200; k++)
			mpsfix_buf_adds(&text, "# padding padding padding padding padding padding padding\n");
		mpsfix_buf_adds(&text, i ? "def main(d):\n    kw = dict(n=1)\n" : "def main(d):\n    kw = dict(device=d)\n");
		mpsfix_buf_adds(&text, "    helper(1, d)\n    return lonely(1, **kw)\n");
		ck_assert_uint_gt(text.len, 64 * 1024);
		tu_put(dir, "train.py", text.data);
		path = mpsfix_xasprintf("%s/pkg/loader.py", dir);
		if (i == 0) {
			/* another question first, then the one whose call spreads kw */
			ck_assert_int_eq(mpsfix_project_calls(cache, path, &other, &n), MPSFIX_PROJECT_PASSED);
			ck_assert_int_eq(mpsfix_project_calls(cache, path, &q, &n), MPSFIX_PROJECT_PASSED);
		} else {
			/* the file changed (its size too): a new question (a value
			   asked for) reads it and its `**kw` again, in the same cache */
			q.given = true;
			ck_assert_int_eq(mpsfix_project_calls(cache, path, &q, &n), MPSFIX_PROJECT_DEFAULT_USED);
		}
		free(path);
	}
	mpsfix_project_cache_free(cache);
	mpsfix_buf_release(&text);
	tu_rm_rf(dir);
}
END_TEST

/* Sum of the kept texts' lengths, as the cache counts them. */
static size_t kept_bytes(const mpsfix_texts *c)
{
	size_t n = 0;

	for (size_t i = 0; i < MPSFIX_TEXTS_KEPT; i++)
		if (c->items[i].path)
			n += c->items[i].len;
	return n;
}

/* A module of exactly `bytes` bytes (at least 8): a statement, then comment
 * lines of at most 1 KiB (quick to parse, also under the sanitizers). */
static void put_module(const char *dir, const char *rel, size_t bytes)
{
	mpsfix_buf text = MPSFIX_BUF_INIT;

	mpsfix_buf_adds(&text, "x = 1\n");
	while (text.len + 2 < bytes) {
		size_t n = bytes - text.len - 2; /* "#" ... "\n" */

		n = n > 1022 ? 1022 : n;
		mpsfix_buf_addc(&text, '#');
		for (size_t i = 0; i < n; i++)
			mpsfix_buf_addc(&text, 'y');
		mpsfix_buf_addc(&text, '\n');
	}
	while (text.len < bytes)
		mpsfix_buf_addc(&text, '\n');
	tu_put(dir, rel, text.data);
	mpsfix_buf_release(&text);
}

/* The modules read for the questions are kept by a byte budget: a module
 * larger than 64 KiB is kept too (it was parsed again for each question),
 * one larger than the budget is not, and a text being read is never put
 * out to make room. */
START_TEST(test_project_texts_kept)
{
	char tmpl[] = "/tmp/mpsfix-texts-XXXXXX";
	char *dir = mkdtemp(tmpl), *small, *big, *big2, *huge;
	mpsfix_texts c = {0};
	mpsfix_text *t, *u, *v;
	bool owned;

	ck_assert_ptr_nonnull(dir);
	put_module(dir, "small.py", 100);
	put_module(dir, "big.py", 600 * 1024);
	put_module(dir, "big2.py", 600 * 1024);
	put_module(dir, "huge.py", MPSFIX_TEXTS_KEPT_BYTES + 1);
	small = mpsfix_xasprintf("%s/small.py", dir);
	big = mpsfix_xasprintf("%s/big.py", dir);
	big2 = mpsfix_xasprintf("%s/big2.py", dir);
	huge = mpsfix_xasprintf("%s/huge.py", dir);

	/* a large module is parsed once and kept */
	t = mpsfix_texts_get(&c, big, &owned);
	ck_assert_ptr_nonnull(t);
	ck_assert(!owned);
	ck_assert_ptr_nonnull(t->tree);
	mpsfix_texts_put(t, owned);
	u = mpsfix_texts_get(&c, big, &owned);
	ck_assert_ptr_eq(u, t);
	ck_assert(!owned);
	ck_assert_uint_eq(u->pins, 1);

	/* while big is read, big2 does not fit beside it: not kept */
	v = mpsfix_texts_get(&c, big2, &owned);
	ck_assert_ptr_nonnull(v);
	ck_assert(owned);
	ck_assert_ptr_nonnull(v->tree);
	mpsfix_texts_put(v, owned);
	ck_assert_uint_eq(c.bytes, 600 * 1024);
	mpsfix_texts_put(u, false);

	/* once nobody reads big, big2 takes its place */
	v = mpsfix_texts_get(&c, big2, &owned);
	ck_assert(!owned);
	mpsfix_texts_put(v, owned);
	ck_assert_uint_eq(c.bytes, 600 * 1024);
	ck_assert_uint_eq(kept_bytes(&c), c.bytes);

	/* a small one fits beside it; one past the budget is never kept */
	t = mpsfix_texts_get(&c, small, &owned);
	ck_assert(!owned);
	mpsfix_texts_put(t, owned);
	t = mpsfix_texts_get(&c, huge, &owned);
	ck_assert_ptr_nonnull(t);
	ck_assert(owned);
	mpsfix_texts_put(t, owned);
	ck_assert_uint_eq(c.bytes, 600 * 1024 + 100);
	ck_assert_uint_eq(kept_bytes(&c), c.bytes);

	/* a changed file is read again (its stamp differs) */
	put_module(dir, "small.py", 200);
	t = mpsfix_texts_get(&c, small, &owned);
	ck_assert_uint_eq(t->len, 200);
	mpsfix_texts_put(t, owned);
	ck_assert_uint_eq(kept_bytes(&c), c.bytes);

	/* more small files than places: the oldest make room */
	for (int i = 0; i < 2 * MPSFIX_TEXTS_KEPT; i++) {
		char rel[32], *path;

		snprintf(rel, sizeof(rel), "m%d.py", i);
		put_module(dir, rel, 1000);
		path = mpsfix_xasprintf("%s/%s", dir, rel);
		t = mpsfix_texts_get(&c, path, &owned);
		ck_assert(!owned);
		mpsfix_texts_put(t, owned);
		free(path);
		ck_assert_uint_eq(kept_bytes(&c), c.bytes);
	}
	ck_assert_uint_eq(c.bytes, MPSFIX_TEXTS_KEPT * 1000);

	mpsfix_texts_release(&c);
	free(small);
	free(big);
	free(big2);
	free(huge);
	tu_rm_rf(dir);
}
END_TEST

/* A module that says the name past PROJECT_MAX_MENTIONS (1024) times is left unread: its calls are unknown. */
START_TEST(test_project_crowded)
{
	char tmpl[] = "/tmp/mpsfix-project-XXXXXX";
	char *dir = mkdtemp(tmpl), *path;
	mpsfix_buf text = MPSFIX_BUF_INIT;
	mpsfix_project_question q = {"lonely", 6, false, "device", 6, -1, false, false};

	ck_assert_ptr_nonnull(dir);
	tu_put(dir, "pyproject.toml", "[project]\nname = \"p\"\n");
	tu_put(dir, "pkg/__init__.py", "");
	tu_put(dir, "pkg/loader.py", loader_py);
	path = mpsfix_xasprintf("%s/pkg/loader.py", dir);
	for (int calls = 1000; calls <= 1100; calls += 100) {
		mpsfix_project_cache *cache = mpsfix_project_cache_new();
		size_t n = 0;

		mpsfix_buf_clear(&text);
		mpsfix_buf_adds(&text, "from pkg.loader import lonely\n");
		for (int i = 0; i < calls; i++)
			mpsfix_buf_adds(&text, "lonely(1, device=d)\n");
		tu_put(dir, "train.py", text.data);
		if (calls == 1000) {
			ck_assert_int_eq(mpsfix_project_calls(cache, path, &q, &n), MPSFIX_PROJECT_PASSED);
			ck_assert_uint_eq(n, 1000);
		} else {
			ck_assert_int_eq(mpsfix_project_calls(cache, path, &q, &n), MPSFIX_PROJECT_UNKNOWN);
		}
		mpsfix_project_cache_free(cache);
	}
	mpsfix_buf_release(&text);
	free(path);
	tu_rm_rf(dir);
}
END_TEST

/* A fallback taken when the parameter is None (mpsfix_defaults_given()): a None, False, 0 or "" passed leaves it out. */
START_TEST(test_project_given)
{
	static const struct {
		const char *call;
		mpsfix_project_verdict want;
	} cases[] = {
		{"lonely(1, device=d)", MPSFIX_PROJECT_PASSED},
		{"lonely(1, device=\"cpu\")", MPSFIX_PROJECT_PASSED},
		{"lonely(1, device=None)", MPSFIX_PROJECT_DEFAULT_USED},
		{"lonely(1, device=(None))", MPSFIX_PROJECT_DEFAULT_USED},
		{"lonely(1, device=\"\")", MPSFIX_PROJECT_DEFAULT_USED},
		{"lonely(1, device=0)", MPSFIX_PROJECT_DEFAULT_USED},
		{"lonely(1, device=False)", MPSFIX_PROJECT_DEFAULT_USED},
		{"lonely(1)", MPSFIX_PROJECT_DEFAULT_USED},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char tmpl[] = "/tmp/mpsfix-project-XXXXXX";
		char *dir = mkdtemp(tmpl), *path, *text;
		mpsfix_project_cache *cache = mpsfix_project_cache_new();
		mpsfix_project_question q = {"lonely", 6, false, "device", 6, -1, false, true};
		size_t n;

		ck_assert_ptr_nonnull(dir);
		tu_put(dir, "pyproject.toml", "");
		tu_put(dir, "pkg/__init__.py", "");
		tu_put(dir, "pkg/loader.py", loader_py);
		text = mpsfix_xasprintf("from pkg.loader import lonely\n%s\n", cases[i].call);
		tu_put(dir, "train.py", text);
		path = mpsfix_xasprintf("%s/pkg/loader.py", dir);
		ck_assert_msg(mpsfix_project_calls(cache, path, &q, &n) == cases[i].want, "%s", cases[i].call);
		/* without `given`, any value passes it */
		q.given = false;
		ck_assert_msg(mpsfix_project_calls(cache, path, &q, &n) ==
				      (strchr(cases[i].call, '=') ? MPSFIX_PROJECT_PASSED : MPSFIX_PROJECT_DEFAULT_USED),
			      "%s (not given)", cases[i].call);
		mpsfix_project_cache_free(cache);
		free(text);
		free(path);
		tu_rm_rf(dir);
	}
}
END_TEST

/* Does no other file of the project name a function (callers.h)? */
START_TEST(test_project_unnamed)
{
	char tmpl[] = "/tmp/mpsfix-project-XXXXXX";
	char *dir = mkdtemp(tmpl), *path;
	mpsfix_project_cache *cache = mpsfix_project_cache_new();

	ck_assert_ptr_nonnull(dir);
	tu_put(dir, "requirements.txt", "torch\n");
	tu_put(dir, "bench.py", "def cuda_ts():\n    pass\n\nx = cuda_ts\n");
	tu_put(dir, "other.py", "def cuda_ts2():\n    pass\n");
	path = mpsfix_xasprintf("%s/bench.py", dir);
	ck_assert(mpsfix_project_unnamed(cache, path, "cuda_ts", 7));
	mpsfix_project_cache_free(cache);
	/* a comment of another module names it */
	cache = mpsfix_project_cache_new();
	tu_put(dir, "other.py", "# see bench.cuda_ts\n");
	ck_assert(!mpsfix_project_unnamed(cache, path, "cuda_ts", 7));
	mpsfix_project_cache_free(cache);
	/* a configuration file names it */
	cache = mpsfix_project_cache_new();
	tu_put(dir, "other.py", "");
	tu_put(dir, "conf/run.yaml", "timer: bench.cuda_ts\n");
	ck_assert(!mpsfix_project_unnamed(cache, path, "cuda_ts", 7));
	mpsfix_project_cache_free(cache);
	/* no project: not known */
	cache = mpsfix_project_cache_new();
	ck_assert(!mpsfix_project_unnamed(cache, "/nonexistent/bench.py", "cuda_ts", 7));
	mpsfix_project_cache_free(cache);
	free(path);
	tu_rm_rf(dir);
}
END_TEST

/* The project's top: the folder with .git, else the outermost with a pyproject.toml (or the like). */
START_TEST(test_project_root)
{
	char tmpl[] = "/tmp/mpsfix-project-XXXXXX";
	char *dir = mkdtemp(tmpl), *real, *file, *top, *want;
	mpsfix_project_cache *cache = mpsfix_project_cache_new();
	mpsfix_project_question q = {"lonely", 6, false, "device", 6, -1, false, false};
	size_t n;

	ck_assert_ptr_nonnull(dir);
	real = realpath(dir, NULL);
	tu_put(real, "repo/setup.py", "");
	tu_put(real, "repo/examples/demo/pyproject.toml", "");
	tu_put(real, "repo/examples/demo/m.py", "def lonely(x, device='cuda'):\n    pass\n");
	file = mpsfix_xasprintf("%s/repo/examples/demo/m.py", real);
	top = mpsfix_project_root(file);
	want = mpsfix_xasprintf("%s/repo", real);
	ck_assert_str_eq(top, want); /* the outermost */
	free(top);
	tu_put(real, "repo/examples/.git/HEAD", "ref: refs/heads/main\n");
	top = mpsfix_project_root(file);
	free(want);
	want = mpsfix_xasprintf("%s/repo/examples", real);
	ck_assert_str_eq(top, want); /* the work tree's top */
	free(top);
	free(want);
	free(file);
	/* in no project: nothing is known */
	tu_put(real, "loose/m.py", "def lonely(x, device='cuda'):\n    pass\n");
	file = mpsfix_xasprintf("%s/loose/m.py", real);
	ck_assert_ptr_null(mpsfix_project_root(file));
	ck_assert_int_eq(mpsfix_project_calls(cache, file, &q, &n), MPSFIX_PROJECT_UNKNOWN);
	/* a file that is not there */
	ck_assert_int_eq(mpsfix_project_calls(cache, "/nonexistent/m.py", &q, &n), MPSFIX_PROJECT_UNKNOWN);
	free(file);
	mpsfix_project_cache_free(cache);
	tu_rm_rf(real);
	free(real);
}
END_TEST

/* Words and the per-file filter: a file that may hold a word is read; one that cannot is not. */
START_TEST(test_project_words)
{
	char tmpl[] = "/tmp/mpsfix-project-XXXXXX";
	char *dir = mkdtemp(tmpl);
	mpsfix_project_files p;
	size_t held = 0, py = 0;

	ck_assert(mpsfix_has_word("x = lonely(1)", 13, "lonely", 6));
	ck_assert(!mpsfix_has_word("x = lonely_2(1)", 15, "lonely", 6));
	ck_assert(!mpsfix_has_word("x = my_lonely", 13, "lonely", 6));
	ck_assert(mpsfix_has_word("pkg.lonely", 10, "lonely", 6));
	ck_assert(!mpsfix_has_word("lonel", 5, "lonely", 6));
	ck_assert_ptr_nonnull(dir);
	for (int i = 0; i < 50; i++) {
		char rel[32], text[64];

		snprintf(rel, sizeof(rel), "m%d.py", i);
		snprintf(text, sizeof(text), "def f%d(x):\n    return g%d(x)\n", i, i);
		tu_put(dir, rel, text);
	}
	tu_put(dir, "conf.yaml", "a: f7\n");
	tu_put(dir, "README.md", "f7 is not read\n");
	mpsfix_project_files_walk(&p, dir);
	ck_assert(p.ok);
	ck_assert_uint_eq(p.len, 51);
	for (size_t i = 0; i < p.len; i++) {
		py += p.files[i].kind == 1;
		held += mpsfix_project_file_may_hold(&p.files[i], "f7", 2);
	}
	ck_assert_uint_eq(py, 50);
	/* m7.py and conf.yaml; a false positive of the filter now and then, not many */
	ck_assert_uint_ge(held, 2);
	ck_assert_uint_le(held, 6);
	mpsfix_project_files_release(&p);
	tu_rm_rf(dir);
}
END_TEST

Suite *mpsfix_suite_project(void)
{
	Suite *s = suite_create("project");
	TCase *tc = tcase_create("project");

	tcase_add_test(tc, test_project_calls);
	tcase_add_test(tc, test_project_crowded);
	tcase_add_test(tc, test_project_kwargs_large);
	tcase_add_test(tc, test_project_texts_kept);
	tcase_add_test(tc, test_project_given);
	tcase_add_test(tc, test_project_unnamed);
	tcase_add_test(tc, test_project_root);
	tcase_add_test(tc, test_project_words);
	tcase_set_timeout(tc, 60); /* large modules, under the sanitizers too */
	suite_add_tcase(s, tc);
	return s;
}
