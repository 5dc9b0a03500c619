/* check_names.c: imports and local bindings per scope, spellings, import points. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fix_import.h"
#include "names.h"
#include "parse.h"
#include "tests.h"
#include "testutil.h"

typedef struct {
	TSTree *tree;
	mpsfix_names *n;
	const char *code;
} fixture;

static fixture open_code(const char *code)
{
	fixture f = {.code = code};

	ck_assert_int_eq(mpsfix_parse(&f.tree, tu_parser(), code, (uint32_t)strlen(code)), 0);
	f.n = mpsfix_names_new(ts_tree_root_node(f.tree), code, (uint32_t)strlen(code));
	return f;
}

static void close_code(fixture *f)
{
	mpsfix_names_free(f->n);
	ts_tree_delete(f->tree);
}

/* An expression statement (or a block of one) has the text of its expression: skip it. */
static bool is_statement(TSNode n)
{
	return ts_node_symbol(n) == mpsfix_symbol("expression_statement") ||
	       ts_node_symbol(n) == mpsfix_symbol("block");
}

/* The `nth` named node (document order, outermost first) whose text is `text`. */
static TSNode find_text(TSNode root, const char *code, const char *text, int nth)
{
	TSTreeCursor c = ts_tree_cursor_new(root);
	TSNode found = {{0}, NULL, NULL};

	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);

		if (ts_node_is_named(n) && !is_statement(n) && mpsfix_node_text_is(n, code, text) &&
		    nth-- == 0) {
			found = n;
			break;
		}
		if (ts_tree_cursor_goto_first_child(&c))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&c))
			if (!ts_tree_cursor_goto_parent(&c))
				goto done;
	}
done:
	ts_tree_cursor_delete(&c);
	ck_assert_msg(!ts_node_is_null(found), "no node '%s' in:\n%s", text, code);
	return found;
}

/* The qualified name of the `nth` (outermost) node spelled `expr`, or <local>, <star>, <not-name>. */
static char *qual_nth(const char *code, const char *expr, int nth)
{
	fixture f = open_code(code);
	mpsfix_buf out = MPSFIX_BUF_INIT;
	TSNode node = find_text(ts_tree_root_node(f.tree), code, expr, nth);
	char *res;

	switch (mpsfix_names_qualify(f.n, node, &out)) {
	case MPSFIX_NAME_RESOLVED:
		res = mpsfix_xstrndup(out.data, out.len);
		break;
	case MPSFIX_NAME_LOCAL:
		res = mpsfix_xstrdup("<local>");
		break;
	case MPSFIX_NAME_STAR:
		res = mpsfix_xstrdup("<star>");
		break;
	default:
		ck_assert_uint_eq(out.len, 0);
		res = mpsfix_xstrdup("<not-name>");
		break;
	}
	mpsfix_buf_release(&out);
	close_code(&f);
	return res;
}

#define QUAL_NTH(code, expr, nth, want)                    \
	do {                                               \
		char *got_ = qual_nth(code, expr, nth);    \
		ck_assert_str_eq(got_, want);              \
		free(got_);                                \
	} while (0)
/* the last occurrence is the reference in most snippets: count them */
#define QUAL(code, expr, want) QUAL_NTH(code, expr, last_index(code, expr), want)

static int last_index(const char *code, const char *expr)
{
	fixture f = open_code(code);
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(f.tree));
	int count = 0;

	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);

		if (ts_node_is_named(n) && !is_statement(n) && mpsfix_node_text_is(n, code, expr))
			count++;
		if (ts_tree_cursor_goto_first_child(&c))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&c))
			if (!ts_tree_cursor_goto_parent(&c))
				goto done;
	}
done:
	ts_tree_cursor_delete(&c);
	close_code(&f);
	return count - 1;
}

/* How `qname` is spelled at the `nth` node of text `at`: "OK:<spelling>", "NEED" or "SHADOWED". */
static char *spell_at(const char *code, const char *at, int nth, const char *qname)
{
	fixture f = open_code(code);
	mpsfix_buf out = MPSFIX_BUF_INIT;
	TSNode node = find_text(ts_tree_root_node(f.tree), code, at, nth);
	mpsfix_buf res = MPSFIX_BUF_INIT;

	switch (mpsfix_names_spell(f.n, node, qname, &out)) {
	case MPSFIX_SPELL_OK:
		mpsfix_buf_printf(&res, "OK:%.*s", (int)out.len, out.data);
		break;
	case MPSFIX_SPELL_NEED_IMPORT:
		ck_assert_uint_eq(out.len, 0);
		mpsfix_buf_adds(&res, "NEED");
		break;
	default:
		ck_assert_uint_eq(out.len, 0);
		mpsfix_buf_adds(&res, "SHADOWED");
		break;
	}
	mpsfix_buf_release(&out);
	close_code(&f);
	return mpsfix_buf_detach(&res, NULL);
}

#define SPELL(code, at, nth, qname, want)                         \
	do {                                                      \
		char *got_ = spell_at(code, at, nth, qname);      \
		ck_assert_str_eq(got_, want);                     \
		free(got_);                                       \
	} while (0)

/* The import point for the statement holding the first `marker`, and *nl. */
static uint32_t point_at(const char *code, const char *marker, bool *nl)
{
	fixture f = open_code(code);
	const char *m = marker ? strstr(code, marker) : NULL;
	uint32_t p;

	ck_assert(!marker || m);
	*nl = true;
	p = mpsfix_fix_import_point(f.n, m ? (uint32_t)(m - code) : (uint32_t)strlen(code), nl);
	close_code(&f);
	return p;
}

static uint32_t offset_of(const char *code, const char *s)
{
	const char *p = strstr(code, s);

	ck_assert_ptr_nonnull(p);
	return (uint32_t)(p - code);
}

/* ---- qualify ----------------------------------------------------------------- */

START_TEST(test_names_import_forms)
{
	QUAL("import torch\ntorch.std_mean(x)\n", "torch.std_mean", "torch.std_mean");
	QUAL("import torch as th\nth.std_mean(x)\n", "th.std_mean", "torch.std_mean");
	QUAL("import torch.amp\ntorch.amp.GradScaler()\n", "torch.amp.GradScaler",
	     "torch.amp.GradScaler");
	QUAL("import torch.amp\ntorch.cuda\n", "torch.cuda", "torch.cuda");
	QUAL("from torch import std_mean\nstd_mean(x)\n", "std_mean", "torch.std_mean");
	QUAL("from torch import std_mean as sm\nsm(x)\n", "sm", "torch.std_mean");
	QUAL("from torch.utils.data import DataLoader as DL\nDL(ds)\n", "DL",
	     "torch.utils.data.DataLoader");
	QUAL("from torch.amp import GradScaler\nGradScaler()\n", "GradScaler",
	     "torch.amp.GradScaler");
	QUAL("from torch import amp\namp.GradScaler()\n", "amp.GradScaler", "torch.amp.GradScaler");
	QUAL("from torch.cuda.amp import GradScaler\nGradScaler()\n", "GradScaler",
	     "torch.cuda.amp.GradScaler");
	QUAL("import os, torch.nn as nn\nnn.Linear\n", "nn.Linear", "torch.nn.Linear");
	QUAL("from torch import (cuda,\n    amp as a)\na.autocast\n", "a.autocast",
	     "torch.amp.autocast");
	/* spaces and comments inside the chain are ignored */
	QUAL("import torch as th\nx = (th # c\n  .std_mean)\n", "th # c\n  .std_mean",
	     "torch.std_mean");
	QUAL("from __future__ import annotations\nannotations\n", "annotations",
	     "__future__.annotations");
	/* two imports of the same thing are still that thing */
	QUAL("import torch\nimport torch.nn\ntorch.nn.Linear\n", "torch.nn.Linear",
	     "torch.nn.Linear");
	/* ... but two different things make a local name */
	QUAL("import torch as t\nimport numpy as t\nt.zeros\n", "t.zeros", "<local>");
}
END_TEST

START_TEST(test_names_unbound_star_relative)
{
	QUAL("torch.std_mean(x)\n", "torch.std_mean", "torch.std_mean");
	QUAL("len(x)\n", "len", "len");
	QUAL("from torch import *\nstd_mean(x)\n", "std_mean", "<star>");
	QUAL("try:\n    from torch import *\nexcept ImportError:\n    pass\nstd_mean(x)\n",
	     "std_mean", "<star>");
	/* a bound name is not affected by the star */
	QUAL("from torch import *\nimport numpy as np\nnp.zeros\n", "np.zeros", "numpy.zeros");
	QUAL("from . import torch\ntorch.x\n", "torch.x", "<local>");
	QUAL("from .m import torch\ntorch.x\n", "torch.x", "<local>");
	QUAL("from ..m import std_mean as torch\ntorch.x\n", "torch.x", "<local>");

	fixture f = open_code("import os\nfrom torch.nn import *\nfrom numpy import *\n");
	const char *mod = NULL;
	size_t mlen = 0;
	uint32_t byte = 0;

	ck_assert(mpsfix_names_star_import(f.n, &mod, &mlen, &byte));
	ck_assert_uint_eq(mlen, 8);
	ck_assert(memcmp(mod, "torch.nn", 8) == 0);
	ck_assert_uint_eq(byte, 10);
	close_code(&f);
	f = open_code("def f():\n    from torch import *\n");
	ck_assert(!mpsfix_names_star_import(f.n, NULL, NULL, NULL));
	close_code(&f);
}
END_TEST

START_TEST(test_names_not_name)
{
	QUAL("import torch\ntorch.std_mean(x)\n", "torch.std_mean(x)", "<not-name>");
	QUAL("import torch\ntorch.ops[0].x\n", "torch.ops[0].x", "<not-name>");
	QUAL("import torch\ntorch.ops[0]\n", "torch.ops[0]", "<not-name>");
	QUAL("import torch\nf().x\n", "f().x", "<not-name>");
	QUAL("x = 'a'.join\n", "'a'.join", "<not-name>");
	QUAL("x = 1\n", "1", "<not-name>");
}
END_TEST

START_TEST(test_names_function_imports)
{
	const char *code = "def f():\n    import torch as th\n    th.zeros\n"
			   "def g():\n    th.zeros\n";

	QUAL_NTH(code, "th.zeros", 0, "torch.zeros");
	QUAL_NTH(code, "th.zeros", 1, "th.zeros");
	/* a module import is seen from functions */
	QUAL("import torch\ndef f():\n    return torch.zeros\n", "torch.zeros", "torch.zeros");
	/* the function's own binding wins */
	QUAL("import torch\ndef f():\n    import numpy as torch\n    torch.zeros\n",
	     "torch.zeros", "numpy.zeros");
}
END_TEST

START_TEST(test_names_try_idiom)
{
	QUAL("try:\n    import torch\nexcept ImportError:\n    torch = None\ntorch.zeros\n",
	     "torch.zeros", "torch.zeros");
	QUAL("try:\n    from torch import std_mean\nexcept (ImportError, AttributeError):\n"
	     "    std_mean = None\nstd_mean(x)\n",
	     "std_mean", "torch.std_mean");
	QUAL("def f():\n    try:\n        import torch\n    except ImportError:\n"
	     "        torch = None\n    torch.zeros\n",
	     "torch.zeros", "torch.zeros");
	/* only None, only in the except clause of that try */
	QUAL("try:\n    import torch\nexcept ImportError:\n    torch = numpy\ntorch.zeros\n",
	     "torch.zeros", "<local>");
	QUAL("try:\n    import torch\nexcept ImportError:\n    pass\ntorch = None\ntorch.zeros\n",
	     "torch.zeros", "<local>");
	QUAL("try:\n    import os\nexcept ImportError:\n    torch = None\nimport torch\n"
	     "torch.zeros\n",
	     "torch.zeros", "<local>");
}
END_TEST

START_TEST(test_names_module_shadowing)
{
	QUAL("import torch\ntorch = something\ntorch.zeros\n", "torch.zeros", "<local>");
	/* per scope, not per line: a later assignment shadows earlier uses too */
	QUAL_NTH("import torch\ntorch.zeros\ntorch = something\n", "torch.zeros", 0, "<local>");
	QUAL("from torch import std_mean\ndef std_mean(x):\n    pass\nstd_mean(y)\n", "std_mean",
	     "<local>");
	QUAL("from torch import nn\nclass nn:\n    pass\nnn.Linear\n", "nn.Linear", "<local>");
	QUAL("import torch\ntorch += 1\ntorch.x\n", "torch.x", "<local>");
	QUAL("import torch\ntorch: int = 1\ntorch.x\n", "torch.x", "<local>");
	QUAL("import torch\ndel torch\ntorch.x\n", "torch.x", "<local>");
	QUAL("import torch\na, (b, *torch) = z\ntorch.x\n", "torch.x", "<local>");
	QUAL("import torch\n(torch := 3)\ntorch.x\n", "torch.x", "<local>");
	QUAL("import torch\ntry:\n    pass\nexcept E as torch:\n    pass\ntorch.x\n", "torch.x",
	     "<local>");
	/* attributes and subscripts on the left bind nothing */
	QUAL("import torch\ntorch.x = 1\ntorch.y[0] = 2\ntorch.z\n", "torch.z", "torch.z");
	/* a match capture */
	QUAL("import torch\nmatch p:\n    case [torch, *rest]:\n        pass\ntorch.x\n",
	     "torch.x", "<local>");
	QUAL("import torch\nmatch p:\n    case torch.nn:\n        pass\ntorch.x\n",
	     "torch.x", "torch.x");
	QUAL("import torch\nmatch p:\n    case Point(x=torch):\n        pass\ntorch.x\n",
	     "torch.x", "<local>");
	QUAL("import torch\nmatch p:\n    case {'k': v, **torch}:\n        pass\ntorch.x\n",
	     "torch.x", "<local>");
	QUAL("import torch\nmatch p:\n    case [1] as torch:\n        pass\ntorch.x\n",
	     "torch.x", "<local>");
	/* names used, not bound, by the pattern */
	QUAL("import torch\nmatch p:\n    case torch(x=1):\n        pass\ntorch.x\n",
	     "torch.x", "torch.x");
}
END_TEST

START_TEST(test_names_function_scopes)
{
	/* a parameter */
	QUAL("import torch\ndef f(torch):\n    return torch.zeros\n", "torch.zeros", "<local>");
	QUAL("import torch\ndef f(a, *torch):\n    return torch.zeros\n", "torch.zeros", "<local>");
	QUAL("import torch\ndef f(a, **torch):\n    return torch.zeros\n", "torch.zeros",
	     "<local>");
	QUAL("import torch\ndef f(torch: int = 1):\n    return torch.zeros\n", "torch.zeros",
	     "<local>");
	QUAL("import torch\ndef f(a, /, *, torch=2):\n    return torch.zeros\n", "torch.zeros",
	     "<local>");
	/* ... shadows only inside the function */
	QUAL("import torch\ndef f(torch):\n    pass\ntorch.zeros\n", "torch.zeros", "torch.zeros");
	/* defaults, annotations and decorators are evaluated outside */
	QUAL("import torch\ndef f(torch=torch.float32):\n    pass\n", "torch.float32",
	     "torch.float32");
	QUAL("import torch\ndef f(torch: torch.Tensor):\n    pass\n", "torch.Tensor",
	     "torch.Tensor");
	QUAL("import torch\ndef f(torch) -> torch.Tensor:\n    pass\n", "torch.Tensor",
	     "torch.Tensor");
	QUAL("import torch\n@torch.no_grad()\ndef torch(x):\n    pass\n", "torch.no_grad",
	     "<local>");
	QUAL("import torch\ndef f():\n    @torch.no_grad()\n    def torch(x):\n        pass\n",
	     "torch.no_grad", "<local>");
	QUAL("import torch\ndef f():\n    @torch.no_grad()\n    def g(torch):\n        pass\n",
	     "torch.no_grad", "torch.no_grad");
	/* a for target, a with target */
	QUAL("import torch\ndef f():\n    for torch in xs:\n        torch.x\n", "torch.x", "<local>");
	QUAL("import torch\ndef f():\n    with g() as (a, torch):\n        torch.x\n", "torch.x",
	     "<local>");
	QUAL("import torch\ndef f():\n    with g() as a:\n        torch.x\n", "torch.x",
	     "torch.x");
	/* a lambda parameter, and its default outside */
	QUAL("import torch\nf = lambda torch: torch.zeros\n", "torch.zeros", "<local>");
	QUAL("import torch\nf = lambda x=torch.zeros: x\n", "torch.zeros", "torch.zeros");
	QUAL("import torch\nf = lambda torch=torch.zeros: torch\n", "torch.zeros",
	     "torch.zeros");
	/* a nested function sees the enclosing function's binding */
	QUAL("def f():\n    import torch as t\n    def g():\n        return t.zeros\n",
	     "t.zeros", "torch.zeros");
	QUAL("import torch\ndef f(torch):\n    def g():\n        return torch.zeros\n",
	     "torch.zeros", "<local>");
}
END_TEST

START_TEST(test_names_comprehensions)
{
	QUAL("import torch\n[torch.x for torch in xs]\n", "torch.x", "<local>");
	QUAL("import torch\n{k: torch.x for k, torch in xs}\n", "torch.x", "<local>");
	QUAL("import torch\nlist(torch.x for torch in xs)\n", "torch.x", "<local>");
	/* the comprehension's variable does not leak */
	QUAL("import torch\n[1 for torch in xs]\ntorch.x\n", "torch.x", "torch.x");
	/* the first iterable is evaluated outside */
	QUAL("import torch\ndef f(xs):\n    return [torch for torch in torch.ys]\n", "torch.ys",
	     "torch.ys");
	/* the second is not */
	QUAL("import torch\n[a for torch in xs for a in torch.ys]\n", "torch.ys", "<local>");
	/* a walrus in a comprehension binds in the enclosing function */
	QUAL("import torch\ndef f():\n    [(torch := y) for y in ys]\n    torch.x\n", "torch.x",
	     "<local>");
}
END_TEST

START_TEST(test_names_global_nonlocal_class)
{
	/* global: the function's assignment is the module's */
	QUAL("import torch\ndef f():\n    global torch\n    torch = 1\ntorch.x\n", "torch.x",
	     "<local>");
	QUAL("import torch\ndef f():\n    global torch\n    torch = 1\n    torch.x\n", "torch.x",
	     "<local>");
	/* global names the module's import, past a function's own binding */
	QUAL("import torch\ndef f(torch):\n    def g():\n        global torch\n        torch.x\n",
	     "torch.x", "torch.x");
	QUAL("def f():\n    global torch\n    import torch\ndef g():\n    torch.x\n", "torch.x",
	     "torch.x");
	/* nonlocal */
	QUAL("import torch\ndef f():\n    import numpy as torch\n    def g():\n"
	     "        nonlocal torch\n        torch.x\n",
	     "torch.x", "numpy.x");
	QUAL("import torch\ndef f():\n    torch = 1\n    def g():\n"
	     "        nonlocal torch\n        torch = 2\n    torch.y\n",
	     "torch.y", "<local>");
	/* a class body binds for itself, not for its methods */
	QUAL("import torch\nclass C:\n    torch = 1\n    torch.x\n", "torch.x", "<local>");
	QUAL("import torch\nclass C:\n    torch = 1\n    def m(self):\n        return torch.x\n",
	     "torch.x", "torch.x");
	QUAL("import torch\nclass C:\n    torch = 1\n    def m(self, a=torch.x):\n        pass\n",
	     "torch.x", "<local>");
	QUAL("class C:\n    import torch as t\n    def m(self):\n        return t.x\n", "t.x", "t.x");
	QUAL("import torch\nclass torch(Base):\n    pass\ntorch.x\n", "torch.x", "<local>");
}
END_TEST

/* ---- spell ------------------------------------------------------------------- */

START_TEST(test_names_spell)
{
	/* the root module's binding first */
	SPELL("import torch as th\nfrom torch import cuda\nx\n", "x", 0, "torch.cuda.is_available",
	      "OK:th.cuda.is_available");
	SPELL("import torch\nx\n", "x", 0, "torch.cuda.is_available",
	      "OK:torch.cuda.is_available");
	SPELL("import torch.amp\nx\n", "x", 0, "torch.amp.autocast", "OK:torch.amp.autocast");
	/* else the longest prefix */
	SPELL("from torch import cuda\nx\n", "x", 0, "torch.cuda.is_available",
	      "OK:cuda.is_available");
	SPELL("from torch import cuda\nfrom torch.cuda import is_available as ia\nx\n", "x", 0,
	      "torch.cuda.is_available", "OK:ia");
	/* the plain spelling among two of the root */
	SPELL("import torch as th\nimport torch\nx\n", "x", 0, "torch.zeros", "OK:torch.zeros");
	/* nothing reaches it: the root is free */
	SPELL("import numpy as np\nx\n", "x", 0, "torch.zeros", "NEED");
	SPELL("x\n", "x", 0, "torch.zeros", "NEED");
	/* imported only in some other function */
	SPELL("def f():\n    import torch\ndef g():\n    x\n", "x", 0, "torch.zeros", "NEED");
	/* in the same function it is visible */
	SPELL("def f():\n    import torch as t\n    x\n", "x", 0, "torch.zeros", "OK:t.zeros");
	/* the root bound to something else */
	SPELL("torch = 1\nx\n", "x", 0, "torch.zeros", "SHADOWED");
	SPELL("import torch\ndef f(torch):\n    x\n", "x", 0, "torch.zeros", "SHADOWED");
	SPELL("import numpy as torch\nx\n", "x", 0, "torch.zeros", "SHADOWED");
	/* an alias shadowed where it is needed is not used */
	SPELL("import torch as th\nimport torch\ndef f(th):\n    x\n", "x", 0, "torch.zeros",
	      "OK:torch.zeros");
	SPELL("from torch import cuda\ndef f(cuda):\n    x\n", "x", 0, "torch.cuda.is_available",
	      "NEED");
	/* a prefix only at a dot */
	SPELL("from torch import cu\nx\n", "x", 0, "torch.cuda", "NEED");
	/* the qualified name itself */
	SPELL("from torch import std_mean as sm\nx\n", "x", 0, "torch.std_mean", "OK:sm");
	/* a class-level import is not seen from a method */
	SPELL("import torch as th\nclass C:\n    import torch as t\n    def m(self):\n        x\n",
	      "x", 0, "torch.zeros", "OK:th.zeros");
}
END_TEST

/* ---- import point ------------------------------------------------------------ */

START_TEST(test_names_import_point_basic)
{
	bool nl;
	const char *c;

	c = "x = 1\n";
	ck_assert_uint_eq(point_at(c, "x", &nl), 0);
	ck_assert(!nl);
	c = "\"\"\"Doc.\"\"\"\nx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "x ="));
	ck_assert(!nl);
	c = "'''Doc\nstring.'''\n\nx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "\nx =") - 0);
	c = "\"Doc \" 'part two'  # c\nx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "x ="));
	c = "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "x ="));
	c = "import os\nimport sys  # why\n\ndef f():\n    x\n";
	ck_assert_uint_eq(point_at(c, "    x", &nl), offset_of(c, "\ndef") );
	c = "import os\n\ndef f():\n    x\n\nimport sys\n";
	ck_assert_uint_eq(point_at(c, "    x", &nl), offset_of(c, "\ndef"));
	c = "import os\nfrom a import (b,\n    c)\ny = 2\n";
	ck_assert_uint_eq(point_at(c, "y", &nl), offset_of(c, "y ="));
	/* a try block of imports is code, not an import */
	c = "import os\ntry:\n    import numpy\nexcept ImportError:\n    pass\nx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "try"));
	/* the import on the target's own line: before that line */
	c = "import os; x = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), 0);
}
END_TEST

START_TEST(test_names_import_point_edges)
{
	bool nl;
	const char *c;

	c = "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\n# Licence: MIT\n\nx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "x ="));
	ck_assert(!nl);
	c = "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nimport os\nx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "x ="));
	/* the last line without a line ending */
	c = "import os";
	ck_assert_uint_eq(point_at(c, NULL, &nl), 9);
	ck_assert(nl);
	c = "import os  # c";
	ck_assert_uint_eq(point_at(c, NULL, &nl), 14);
	ck_assert(nl);
	c = "# only a comment";
	ck_assert_uint_eq(point_at(c, NULL, &nl), 16);
	ck_assert(nl);
	c = "";
	ck_assert_uint_eq(point_at(c, NULL, &nl), 0);
	ck_assert(!nl);
	c = "import os\nx = torch.zeros";
	ck_assert_uint_eq(point_at(c, "x =", &nl), 10);
	ck_assert(!nl);
	/* CRLF: just after the line's \r\n */
	c = "\"\"\"Doc.\"\"\"\r\nimport os  # c\r\n\r\nx = 1\r\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "\r\n\r\nx") + 2);
	ck_assert(!nl);
	c = "# c\r\n\r\nx = 1\r\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "x ="));
	c = "\"\"\"Doc.\"\"\"\r\nx = 1\r\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), offset_of(c, "x ="));
	/* a byte order mark stays first */
	c = "\xEF\xBB\xBFx = 1\n";
	ck_assert_uint_eq(point_at(c, "x =", &nl), 3);
}
END_TEST

/* ---- scale ------------------------------------------------------------------- */

typedef struct {
	mpsfix_names *n;
	const char *code;
	mpsfix_buf out;
	size_t resolved;
} perf_scan;

static mpsfix_walk_action count_torch(TSNode node, void *payload)
{
	perf_scan *ps = payload;

	if (ts_node_symbol(node) == mpsfix_symbol("attribute") &&
	    mpsfix_node_text_is(node, ps->code, "th.zeros") &&
	    mpsfix_names_qualify(ps->n, node, &ps->out) == MPSFIX_NAME_RESOLVED &&
	    strcmp(ps->out.data, "torch.zeros") == 0)
		ps->resolved++;
	return MPSFIX_WALK_DESCEND;
}

START_TEST(test_names_many_functions)
{
	mpsfix_buf code = MPSFIX_BUF_INIT;
	enum { N = 20000 };
	TSTree *tree = NULL;
	perf_scan ps = {.out = MPSFIX_BUF_INIT};
	mpsfix_buf sp = MPSFIX_BUF_INIT;
	clock_t t0;

	mpsfix_buf_adds(&code, "import torch as th\n");
	for (int i = 0; i < N; i++)
		mpsfix_buf_printf(&code, "def f%d(a, b=%d):\n    x_%d = [y for y in a]\n"
				  "    return th.zeros(x_%d)\n", i, i, i, i);
	ck_assert_int_eq(mpsfix_parse(&tree, tu_parser(), code.data, (uint32_t)code.len), 0);
	ps.n = mpsfix_names_new(ts_tree_root_node(tree), code.data, (uint32_t)code.len);
	ps.code = code.data;
	t0 = clock();
	mpsfix_walk(ts_tree_root_node(tree), count_torch, &ps);
	ck_assert_uint_eq(ps.resolved, N);
	ck_assert_int_eq(mpsfix_names_spell(ps.n, ts_tree_root_node(tree), "torch.cuda", &sp),
			 MPSFIX_SPELL_OK);
	ck_assert_str_eq(sp.data, "th.cuda");
	/* linear work: well under a second even under sanitizers; a quadratic
	 * scan would take minutes (not timed under valgrind, 50 times slower:
	 * tests/valgrind.sh says so in MPSFIX_UNDER_VALGRIND) */
	if (!getenv("MPSFIX_UNDER_VALGRIND"))
		ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 20.0, "too slow");
	mpsfix_buf_release(&sp);
	mpsfix_buf_release(&ps.out);
	mpsfix_names_free(ps.n);
	ts_tree_delete(tree);
	mpsfix_buf_release(&code);
}
END_TEST

START_TEST(test_names_lazy_and_null)
{
	fixture f = open_code("import torch\n");

	/* creating and freeing without a query */
	close_code(&f);
	mpsfix_names_free(NULL);
}
END_TEST

Suite *mpsfix_suite_names(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_names_import_forms);
	tcase_add_test(tc, test_names_unbound_star_relative);
	tcase_add_test(tc, test_names_not_name);
	tcase_add_test(tc, test_names_function_imports);
	tcase_add_test(tc, test_names_try_idiom);
	tcase_add_test(tc, test_names_module_shadowing);
	tcase_add_test(tc, test_names_function_scopes);
	tcase_add_test(tc, test_names_comprehensions);
	tcase_add_test(tc, test_names_global_nonlocal_class);
	tcase_add_test(tc, test_names_spell);
	tcase_add_test(tc, test_names_import_point_basic);
	tcase_add_test(tc, test_names_import_point_edges);
	tcase_add_test(tc, test_names_many_functions);
	tcase_add_test(tc, test_names_lazy_and_null);
	suite_add_tcase(s, tc);
	return s;
}
