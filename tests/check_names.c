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

/*
 * The text after the import edits for the comma-separated `modules`, placed
 * for the statement holding the first `marker` (NULL: the end of the text).
 * Each edit that replaces bytes keeps them (the line ending before its
 * lines, or the first character after them) or replaces blank lines.
 */
static char *added(const char *code, const char *marker, const char *modules)
{
	fixture f = open_code(code);
	const char *m = marker ? strstr(code, marker) : NULL;
	const char *mods[8];
	char *list = mpsfix_xstrdup(modules), *save = NULL;
	mpsfix_import_edit ie[8];
	mpsfix_buf out = MPSFIX_BUF_INIT;
	size_t nm = 0, ne, pos = 0;

	ck_assert(!marker || m);
	for (char *t = strtok_r(list, ",", &save); t && nm < 8; t = strtok_r(NULL, ",", &save))
		mods[nm++] = t;
	ne = mpsfix_fix_import_edits(f.n, m ? (uint32_t)(m - code) : (uint32_t)strlen(code), mods, nm,
				     strstr(code, "\r\n") ? "\r\n" : "\n", strchr(code, '\x1f') != NULL, ie);
	ck_assert_uint_ge(ne, 1);
	ck_assert_uint_le(ne, nm);
	mpsfix_buf_adds(&out, "");
	for (size_t i = 0; i < ne; i++) {
		size_t tl = strlen(ie[i].text), rl = ie[i].end - ie[i].start;

		ck_assert_uint_ge(ie[i].start, pos);
		ck_assert_uint_ge(tl, rl);
		ck_assert(!memcmp(ie[i].text, code + ie[i].start, rl) ||
			  !memcmp(ie[i].text + tl - rl, code + ie[i].start, rl) ||
			  strspn(code + ie[i].start, " \t\f\r\n") >= rl);
		mpsfix_buf_add(&out, code + pos, ie[i].start - pos);
		mpsfix_buf_adds(&out, ie[i].text);
		pos = ie[i].end;
		free(ie[i].text);
	}
	mpsfix_buf_adds(&out, code + pos);
	free(list);
	close_code(&f);
	return mpsfix_buf_detach(&out, NULL);
}

#define ADDED(code, marker, modules, want)                        \
	do {                                                      \
		char *got_ = added(code, marker, modules);        \
		ck_assert_str_eq(got_, want);                     \
		free(got_);                                       \
	} while (0)

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
	/* no import block: before the first statement, with the blank lines ruff asks for */
	ADDED("x = 1\n", "x", "torch", "import torch\n\nx = 1\n");
	ADDED("def f():\n    x\n", "x", "torch", "import torch\n\n\ndef f():\n    x\n");
	ADDED("\"\"\"Doc.\"\"\"\nx = 1\n", "x =", "torch", "\"\"\"Doc.\"\"\"\nimport torch\n\nx = 1\n");
	ADDED("'''Doc\nstring.'''\n\nx = 1\n", "x =", "torch", "'''Doc\nstring.'''\n\nimport torch\n\nx = 1\n");
	ADDED("\"Doc \" 'part two'  # c\nx = 1\n", "x =", "torch",
	      "\"Doc \" 'part two'  # c\nimport torch\n\nx = 1\n");
	/* one blank line above it stays, the others make way for the ones it needs */
	ADDED("\"\"\"Doc.\"\"\"\n\n\ndef f():\n    x\n", "x", "torch",
	      "\"\"\"Doc.\"\"\"\n\nimport torch\n\n\ndef f():\n    x\n");
	ADDED("\"\"\"Doc.\"\"\"\n\n\n\nx = 1\n", "x", "torch", "\"\"\"Doc.\"\"\"\n\nimport torch\n\nx = 1\n");
	ADDED("# Licence\r\n\r\n\r\n@d\r\nclass C:\r\n    x\r\n", "    x", "torch",
	      "# Licence\r\n\r\nimport torch\r\n\r\n\r\n@d\r\nclass C:\r\n    x\r\n");
	/* comments a blank line sets apart go with the code below them */
	ADDED("# Licence\n\n# about x\nx = 1\n", "x =", "torch", "# Licence\n\nimport torch\n\n# about x\nx = 1\n");
	ADDED("# Licence\n# about x\nx = 1\n", "x =", "torch", "# Licence\n# about x\nimport torch\n\nx = 1\n");
	/* the standard library's group, sorted; a new one before the others, after __future__ */
	ADDED("import os\nimport sys  # why\n\ndef f():\n    x\n", "    x", "contextlib",
	      "import contextlib\nimport os\nimport sys  # why\n\ndef f():\n    x\n");
	ADDED("import os\nimport sys\n\nx\n", "x", "shutil", "import os\nimport shutil\nimport sys\n\nx\n");
	ADDED("import os\n\nimport numpy\n\nx\n", "x", "zipfile", "import os\nimport zipfile\n\nimport numpy\n\nx\n");
	ADDED("import numpy\n\nx\n", "x", "contextlib", "import contextlib\n\nimport numpy\n\nx\n");
	ADDED("\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nimport numpy\n\nx\n", "x", "os",
	      "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nimport os\n\nimport numpy\n\nx\n");
	/* torch: the third-party group, sorted; a new one after the standard library's */
	ADDED("import os\n\nimport numpy as np\nimport yaml\n\nfrom . import u\n\nx\n", "x", "torch",
	      "import os\n\nimport numpy as np\nimport torch\nimport yaml\n\nfrom . import u\n\nx\n");
	ADDED("import os\n\nfrom . import u\n\nx\n", "x", "torch", "import os\n\nimport torch\n\nfrom . import u\n\nx\n");
	ADDED("from . import u\n\nx\n", "x", "torch", "import torch\n\nfrom . import u\n\nx\n");
	ADDED("\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nx = 1\n", "x =", "torch",
	      "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nimport torch\nx = 1\n");
	/* later imports, and code between imports, are not passed */
	ADDED("import os\n\ndef f():\n    x\n\nimport sys\n", "    x", "torch",
	      "import os\n\nimport torch\n\ndef f():\n    x\n\nimport sys\n");
	ADDED("import os\n\nsetup()\n\nimport yaml\n\nx\n", "x", "torch",
	      "import os\n\nimport torch\n\nsetup()\n\nimport yaml\n\nx\n");
	/* a group of several sections (unsorted already): among its own section */
	ADDED("import os\nfrom a import (b,\n    c)\ny = 2\n", "y", "torch",
	      "import os\nimport torch\nfrom a import (b,\n    c)\ny = 2\n");
	/* try blocks of imports and `if TYPE_CHECKING:` are passed over, other ones are code */
	ADDED("import os\ntry:\n    import numpy\nexcept ImportError:\n    pass\nx = 1\n", "x =", "torch",
	      "import os\n\nimport torch\ntry:\n    import numpy\nexcept ImportError:\n    pass\nx = 1\n");
	ADDED("import os\n\ntry:\n    import apex\nexcept ImportError:\n    apex = None\n\nimport yaml\n\nx\n", "\nx\n",
	      "torch", "import os\n\ntry:\n    import apex\nexcept ImportError:\n    apex = None\n\n"
	      "import torch\nimport yaml\n\nx\n");
	ADDED("import os\n\nif typing.TYPE_CHECKING:\n    import numpy\n\nimport yaml\n\nx\n", "x", "torch",
	      "import os\n\nif typing.TYPE_CHECKING:\n    import numpy\n\nimport torch\nimport yaml\n\nx\n");
	ADDED("import os\n\nif DEBUG:\n    import numpy\n\nimport yaml\n\nx\n", "x", "torch",
	      "import os\n\nimport torch\n\nif DEBUG:\n    import numpy\n\nimport yaml\n\nx\n");
	/* the import on the target's own line: before that line */
	ADDED("import os; x = 1\n", "x =", "torch", "import torch\n\nimport os; x = 1\n");
	ADDED("import os\nimport sys; x = 1\n", "x =", "torch", "import os\n\nimport torch\nimport sys; x = 1\n");
}
END_TEST

START_TEST(test_names_import_point_order)
{
	/* `import x` before `from x import y`; names case-insensitively, digits by value */
	ADDED("import numpy\nfrom numpy import x\nfrom yaml import y\n\nz\n", "z", "torch",
	      "import numpy\nimport torch\nfrom numpy import x\nfrom yaml import y\n\nz\n");
	ADDED("import numpy as np\nimport torch.nn as nn\nimport torchvision\n\nz\n", "z", "torch",
	      "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torchvision\n\nz\n");
	ADDED("import PIL\nimport yaml\n\nz\n", "z", "torch", "import PIL\nimport torch\nimport yaml\n\nz\n");
	ADDED("import h5py\nimport h10py\n\nz\n", "z", "h7", "import h5py\nimport h7\nimport h10py\n\nz\n");
	ADDED("import torch_xla\nimport torchvision\n\nz\n", "z", "torch",
	      "import torch\nimport torch_xla\nimport torchvision\n\nz\n");
	/* an unsorted group: the first place between two that sort around it */
	ADDED("import yaml\nimport numpy\n\nz\n", "z", "torch", "import torch\nimport yaml\nimport numpy\n\nz\n");
	ADDED("import yaml\nimport numpy\n\nz\n", "z", "zz", "import yaml\nimport numpy\nimport zz\n\nz\n");
	ADDED("import b\nimport d\nimport a\nimport c\n\nz\n", "z", "e", "import b\nimport d\nimport a\nimport c\nimport e\n\nz\n");
	ADDED("import b\nimport d\nimport a\nimport c\n\nz\n", "z", "bb", "import b\nimport bb\nimport d\nimport a\nimport c\n\nz\n");
	/* the group of an existing import of the module, even past code: torch is still
	 * imported after the environment is set */
	ADDED("import os\nos.environ[\"A\"] = \"1\"\nfrom torch.utils.data import D\n\nz\n", "z", "torch",
	      "import os\nos.environ[\"A\"] = \"1\"\nimport torch\nfrom torch.utils.data import D\n\nz\n");
	ADDED("import os\n\nfrom contextlib import nullcontext\n\nz\n", "z", "contextlib",
	      "import os\n\nimport contextlib\nfrom contextlib import nullcontext\n\nz\n");
	/* a comment a blank line sets apart stays with its group's first member */
	ADDED("import os\n\n# deep learning\nimport torchvision\n\nz\n", "z", "torch",
	      "import os\n\nimport torch\n# deep learning\nimport torchvision\n\nz\n");
	ADDED("import os\n\n# deep learning\nimport torchvision\n\nz\n", "z", "contextlib",
	      "import contextlib\nimport os\n\n# deep learning\nimport torchvision\n\nz\n");
	/* two modules at one place share one edit, in their order */
	ADDED("x = 1\n", "x", "torch,contextlib", "import contextlib\n\nimport torch\n\nx = 1\n");
	ADDED("from torch import autocast\n\nz\n", "z", "torch,contextlib",
	      "import contextlib\n\nimport torch\nfrom torch import autocast\n\nz\n");
	ADDED("from __future__ import annotations\n\nz\n", "z", "torch,os",
	      "from __future__ import annotations\n\nimport os\n\nimport torch\n\nz\n");
	ADDED("import sys\n\nimport yaml\n\nz\n", "z", "torch,contextlib",
	      "import contextlib\nimport sys\n\nimport torch\nimport yaml\n\nz\n");
	/* `import M` before `import M as x`, as isort sorts them */
	ADDED("import torch as th\nfrom torch.utils.data import DataLoader\n\nz\n", "z", "torch",
	      "import torch\nimport torch as th\nfrom torch.utils.data import DataLoader\n\nz\n");
	ADDED("import numpy as np\nimport torch as th\n\nz\n", "z", "torch",
	      "import numpy as np\nimport torch\nimport torch as th\n\nz\n");
}
END_TEST

/* a notebook's text (notebook.h): each cell is sorted by itself */
START_TEST(test_names_import_point_cells)
{
	/* into the group of the cell that imports from torch, not across the cell line */
	ADDED("import os\n#\x1f" "2\nfrom torch.utils.data import DataLoader\n#\x1f" "3\nDataLoader(d)\n",
	      "DataLoader(d)", "torch",
	      "import os\n#\x1f" "2\nimport torch\nfrom torch.utils.data import DataLoader\n#\x1f" "3\n"
	      "DataLoader(d)\n");
	/* a cell's own comments stay below its cell line */
	ADDED("x = 1\n\n#\x1f" "2\n# data\nfrom torch.utils.data import DataLoader\n#\x1f" "3\nDataLoader(d)\n",
	      "DataLoader(d)", "torch",
	      "x = 1\n\n#\x1f" "2\n# data\nimport torch\nfrom torch.utils.data import DataLoader\n#\x1f" "3\n"
	      "DataLoader(d)\n");
	/* no cell imports a standard-library module: the first cell's import block */
	ADDED("import numpy\n#\x1f" "2\nimport torch\n#\x1f" "3\nz\n", "z", "contextlib",
	      "import contextlib\n\nimport numpy\n#\x1f" "2\nimport torch\n#\x1f" "3\nz\n");
	/* no import block: a new line at the top of the first code cell */
	ADDED("x = 1\n#\x1f" "2\nz\n", "z", "torch", "import torch\n\nx = 1\n#\x1f" "2\nz\n");
	/* after the IPython lines there (a cell magic must stay its cell's first line) */
	ADDED("pass  #\x1fm0\n#\x1f" "2\nz\n", "z", "torch", "pass  #\x1fm0\n#\x1f" "2\nimport torch\n\nz\n");
	ADDED("pass  #\x1fm0\nx = 1\n#\x1f" "2\nz\n", "z", "torch", "pass  #\x1fm0\nimport torch\n\nx = 1\n#\x1f" "2\nz\n");
	/* the same text outside a notebook is one group */
	{
		fixture f = open_code("import os\n#\x1f" "2\nfrom torch import nn\nz\n");
		const char *mods[] = {"torch"};
		mpsfix_import_edit ie;

		ck_assert_uint_eq(mpsfix_fix_import_edits(f.n, 40, mods, 1, "\n", false, &ie), 1);
		ck_assert_uint_lt(ie.start, 10);
		free(ie.text);
		close_code(&f);
	}
}
END_TEST

START_TEST(test_names_import_point_edges)
{
	fixture f;
	const char *mods[] = {"contextlib"};
	mpsfix_import_edit ie;

	ADDED("#!/usr/bin/env python\n# -*- coding: latin-1 -*-\n# Licence: MIT\n\nx = 1\n", "x =", "torch",
	      "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\n# Licence: MIT\n\nimport torch\n\nx = 1\n");
	ADDED("#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nimport os\nx = 1\n", "x =", "contextlib",
	      "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nimport contextlib\nimport os\nx = 1\n");
	/* the last line without a line ending gets one */
	ADDED("import os", NULL, "torch", "import os\n\nimport torch\n");
	ADDED("import os  # c", NULL, "sys", "import os  # c\nimport sys\n");
	ADDED("# only a comment", NULL, "torch", "# only a comment\nimport torch\n");
	ADDED("", NULL, "torch", "import torch\n");
	ADDED("import os\nx = torch.zeros", "x =", "torch", "import os\n\nimport torch\nx = torch.zeros");
	/* CRLF */
	ADDED("\"\"\"Doc.\"\"\"\r\nimport os  # c\r\n\r\nx = 1\r\n", "x =", "torch",
	      "\"\"\"Doc.\"\"\"\r\nimport os  # c\r\n\r\nimport torch\r\n\r\nx = 1\r\n");
	ADDED("# c\r\n\r\nx = 1\r\n", "x =", "torch", "# c\r\n\r\nimport torch\r\n\r\nx = 1\r\n");
	ADDED("\"\"\"Doc.\"\"\"\r\nx = 1\r\n", "x =", "torch", "\"\"\"Doc.\"\"\"\r\nimport torch\r\n\r\nx = 1\r\n");
	ADDED("import os\r\n\r\nimport yaml\r\n\r\nz\r\n", "z", "torch,contextlib",
	      "import contextlib\r\nimport os\r\n\r\nimport torch\r\nimport yaml\r\n\r\nz\r\n");
	/* a byte order mark stays first */
	ADDED("\xEF\xBB\xBFx = 1\n", "x =", "torch", "\xEF\xBB\xBFimport torch\n\nx = 1\n");
	ADDED("\xEF\xBB\xBFimport os\n\nx = 1\n", "x =", "contextlib",
	      "\xEF\xBB\xBFimport contextlib\nimport os\n\nx = 1\n");

	/* the edit takes the line ending before its lines, else the first character after
	 * them, so that two fixes that add different imports at one place overlap */
	f = open_code("import os\nimport sys\n\nx\n");
	ck_assert_uint_eq(mpsfix_fix_import_edits(f.n, 22, mods, 1, "\n", false, &ie), 1);
	ck_assert_uint_eq(ie.start, 0);
	ck_assert_uint_eq(ie.end, 1);
	ck_assert_str_eq(ie.text, "import contextlib\ni");
	free(ie.text);
	mods[0] = "torch";
	ck_assert_uint_eq(mpsfix_fix_import_edits(f.n, 22, mods, 1, "\n", false, &ie), 1);
	ck_assert_uint_eq(ie.start, 20);
	ck_assert_uint_eq(ie.end, 21);
	ck_assert_str_eq(ie.text, "\n\nimport torch\n");
	free(ie.text);
	ck_assert_uint_eq(mpsfix_fix_import_edits(f.n, 22, mods, 0, "\n", false, &ie), 0);
	close_code(&f);
	/* but never the first character of other code (which a fix may edit) */
	f = open_code("x = 1\ny = 2\n");
	ck_assert_uint_eq(mpsfix_fix_import_edits(f.n, 6, mods, 1, "\n", false, &ie), 1);
	ck_assert_uint_eq(ie.start, 0);
	ck_assert_uint_eq(ie.end, 0);
	ck_assert_str_eq(ie.text, "import torch\n\n");
	free(ie.text);
	close_code(&f);
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
	tcase_add_test(tc, test_names_import_point_order);
	tcase_add_test(tc, test_names_import_point_edges);
	tcase_add_test(tc, test_names_import_point_cells);
	tcase_add_test(tc, test_names_many_functions);
	tcase_add_test(tc, test_names_lazy_and_null);
	suite_add_tcase(s, tc);
	return s;
}
