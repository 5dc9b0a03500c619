/*
 * check_engine.c: what the engine fixtures (fixtures/engine/<case>/, run by
 * check_fixtures.c with unsafe fixes on and every warning) cannot say: that
 * an unsafe fix needs the opt-in, that passes stop at MPSFIX_MAX_PASSES,
 * which warnings need opts->verbose, which module texts fail when a file
 * imports them from its folder, and which values are command-line switches
 * off by default (argparse.h), and what defaults.c, dynamic.c and selfattr.c
 * answer for the shapes a fixture does not isolate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argparse.h"
#include "callers.h"
#include "cuda_code.h"
#include "defaults.h"
#include "dynamic.h"
#include "parse.h"
#include "project.h"
#include "selfattr.h"
#include "sibling.h"
#include "tests.h"
#include "testutil.h"

static char *fix_with(mpsfix_rule *r, const char *code, mpsfix_result *res)
{
	return tu_run(r, code, strlen(code), true, res);
}

START_TEST(test_engine_unsafe_fix_needs_opt_in)
{
	const char *pats[] = {"f($X)", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, "g($X)", NULL, true);
	mpsfix_ctx ctx;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_index *ix = mpsfix_index_new(&r, 1);
	mpsfix_engine_opts opts = {.fix = true, .unsafe_fixes = false};
	mpsfix_result res = MPSFIX_RESULT_INIT;

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "t.py", "f(1)\n", 5), 0);
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
	ck_assert(!res.changed);
	ck_assert_int_eq(res.items[0].fix, MPSFIX_FIX_UNSAFE);
	mpsfix_result_release(&res);
	opts.unsafe_fixes = true;
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
	ck_assert_str_eq(res.text, "g(1)\n");
	mpsfix_result_release(&res);
	mpsfix_source_release(&src);
	mpsfix_index_free(ix);
	mpsfix_ctx_release(&ctx);
	mpsfix_rule_free(r);
}
END_TEST

/* enabled-by: MATCH names the match itself; a test false on MPS by its values is not reported, a name proves nothing */
START_TEST(test_engine_enabled_by_match)
{
	const char *pats[] = {"$A or $B", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, NULL, NULL, false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	const char *code = "import torch\n"
			   "a = torch.cuda.is_available() or y.is_cuda\n"
			   "b = use_cuda or args.cuda\n"
			   "c = x or y\n";

	r->enabled_by = mpsfix_xstrdup("MATCH");
	free(tu_run(r, code, strlen(code), false, &res));
	ck_assert_uint_eq(res.len, 2);
	ck_assert_uint_eq(res.items[0].line, 3);
	ck_assert_uint_eq(res.items[1].line, 4);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_engine_pass_limit)
{
	/* a fix whose output matches again: stops after MPSFIX_MAX_PASSES */
	const char *pats[] = {"f($X)", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, "f(f($X))", NULL, false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	char *out = fix_with(r, "f(1)\n", &res);

	ck_assert_uint_eq(res.passes, MPSFIX_MAX_PASSES);
	ck_assert_uint_eq(res.nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(res.warnings[0], "passes"));
	/* what is left is not shown as fixable */
	ck_assert_uint_ge(res.len, 1);
	for (size_t i = 0; i < res.len; i++)
		ck_assert_int_eq(res.items[i].fix, MPSFIX_FIX_MANUAL);
	free(out);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

/* A case with `when: {torch: SPEC}` is used only where the file's whole target lies inside SPEC. */
START_TEST(test_engine_case_torch)
{
	mpsfix_rule *r = tu_yaml_rule("id: demo\ncode: MPS900\nseverity: warning\nmessage: m\n"
				      "torch: all\nmatch: f($X)\nfix:\n  safety: safe\n  cases:\n"
				      "    - when: {torch: '>= 2.7'}\n      template: new($X)\n"
				      "    - when: {torch: '>= 2.0'}\n      template: mid($X)\n"
				      "    - manual: \"too old\"\n");
	static const struct {
		mpsfix_torch_range target;
		const char *text; /* NULL: a manual fix */
	} want[] = {
		{{MPSFIX_TORCH_VER(2, 7), MPSFIX_TORCH_NEWEST}, "new(1)\n"},
		{{MPSFIX_TORCH_VER(2, 8), MPSFIX_TORCH_VER(2, 8)}, "new(1)\n"},
		/* 2.6 to newest reaches below 2.7 */
		{{MPSFIX_TORCH_VER(2, 6), MPSFIX_TORCH_NEWEST}, "mid(1)\n"},
		{{MPSFIX_TORCH_VER(2, 0), MPSFIX_TORCH_VER(2, 6)}, "mid(1)\n"},
		{{MPSFIX_TORCH_VER(1, 13), MPSFIX_TORCH_VER(2, 8)}, NULL},
	};
	mpsfix_ctx ctx;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_index *ix = mpsfix_index_new(&r, 1);

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "t.py", "f(1)\n", 5), 0);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(want); i++) {
		mpsfix_engine_opts opts = {.fix = true, .target = &want[i].target};
		mpsfix_result res = MPSFIX_RESULT_INIT;

		ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
		if (want[i].text) {
			ck_assert_msg(res.changed, "target %zu: not fixed", i);
			ck_assert_str_eq(res.text, want[i].text);
		} else {
			ck_assert(!res.changed);
			ck_assert_uint_eq(res.len, 1);
			ck_assert_int_eq(res.items[0].fix, MPSFIX_FIX_MANUAL);
			ck_assert_str_eq(res.items[0].reason, "too old");
		}
		mpsfix_result_release(&res);
	}
	/* no target: every MPS-capable version, >= 1.12 */
	{
		mpsfix_engine_opts opts = {.fix = true};
		mpsfix_result res = MPSFIX_RESULT_INIT;

		ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
		ck_assert(!res.changed);
		ck_assert_int_eq(res.items[0].fix, MPSFIX_FIX_MANUAL);
		mpsfix_result_release(&res);
	}
	mpsfix_source_release(&src);
	mpsfix_index_free(ix);
	mpsfix_ctx_release(&ctx);
	mpsfix_rule_free(r);
}
END_TEST

/* What could not be checked is said only with opts->verbose; fixes not applied always. */
START_TEST(test_engine_verbose_warnings)
{
	static const char star[] = "import torch\nfrom torch.amp import *\ns = GradScaler('mps')\n"
				   "t = torch.amp.GradScaler('cpu')\n";
	const char *pats[] = {"torch.amp.GradScaler($X)", NULL}, *loop_pats[] = {"f($X)", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, NULL, NULL, false);
	mpsfix_rule *loop = tu_rule("MPS998", loop_pats, NULL, "f(f($X))", NULL, false);
	mpsfix_ctx ctx;
	mpsfix_source src = MPSFIX_SOURCE_INIT, calls = MPSFIX_SOURCE_INIT;
	mpsfix_index *ix = mpsfix_index_new(&r, 1), *loop_ix = mpsfix_index_new(&loop, 1);
	mpsfix_engine_opts opts = {.fix = false};
	mpsfix_result res = MPSFIX_RESULT_INIT;

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "t.py", star, strlen(star)), 0);
	/* a star import: the same findings, its warning only when verbose */
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
	ck_assert_uint_eq(res.len, 1);
	ck_assert_uint_eq(res.nwarnings, 0);
	mpsfix_result_release(&res);
	opts.verbose = true;
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &opts), 0);
	ck_assert_uint_eq(res.len, 1);
	ck_assert_uint_eq(res.nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(res.warnings[0], "t.py:2:1: cannot resolve the names `from torch.amp import *`"));
	mpsfix_result_release(&res);
	/* fixes not applied: said either way */
	opts = (mpsfix_engine_opts){.fix = true};
	ck_assert_int_eq(mpsfix_source_from_buffer(&calls, "c.py", "f(1)\n", 5), 0);
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, loop_ix, &calls, &opts), 0);
	ck_assert_uint_eq(res.nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(res.warnings[0], "passes"));
	mpsfix_result_release(&res);
	mpsfix_source_release(&src);
	mpsfix_source_release(&calls);
	mpsfix_index_free(ix);
	mpsfix_index_free(loop_ix);
	mpsfix_ctx_release(&ctx);
	mpsfix_rule_free(r);
	mpsfix_rule_free(loop);
}
END_TEST

/* Which module texts fail when imported on a Mac (sibling.h)? */
START_TEST(test_engine_sibling_module_fails)
{
	static const struct {
		const char *text;
		bool fails;
	} cases[] = {
		{"import torch\nif not torch.cuda.is_available():\n    raise RuntimeError('cuda')\nx = 1\n", true},
		{"import torch\nif not torch.cuda.is_available():\n    raise RuntimeError('cuda')\n", true},
		{"import torch\nassert torch.cuda.is_available()\n", true},
		{"d = infer_device()\nif d not in ['cuda', 'xpu']:\n    raise RuntimeError(d)\n", true},
		{"import torch\ntorch.cuda.set_device(0)\n", true},
		{"import torch\nstart = torch.cuda.Event(enable_timing=True)\n# end\n", true},
		{"import triton\n", true},
		/* the __main__ block does not run on import */
		{"import torch\nif __name__ == '__main__':\n    torch.cuda.set_device(0)\n", false},
		{"import torch\ndef f():\n    return torch.cuda.Event()\n", false},
		{"import torch\nif torch.cuda.is_available():\n    raise RuntimeError('no')\n", false},
		{"try:\n    import triton\nexcept ImportError:\n    triton = None\n", false},
		{"import torch\nmodel = build().cuda()\n", false},
		/* no CUDA device: the loop runs no turn */
		{"import torch\nfor i in range(torch.cuda.device_count()):\n    torch.cuda.set_device(i)\n", false},
		{"import torch\nwhile torch.cuda.is_available():\n    torch.cuda.set_device(0)\n    break\n", false},
		{"import torch\nfor d in devices:\n    torch.cuda.set_device(d)\n", true},
		{"if not torch.cuda.is_available(:\n    raise RuntimeError\n", false},
		{"", false},
		{"# only a comment\n", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(mpsfix_sibling_module_fails("m.py", cases[i].text, (uint32_t)strlen(cases[i].text)) ==
				      cases[i].fails,
			      "case %zu: %s", i, cases[i].text);
}
END_TEST

/* The value of the last `pin_memory=` keyword argument of a text. */
static mpsfix_walk_action last_pin(TSNode n, void *payload)
{
	TSNode *out = payload;

	if (!strcmp(ts_node_type(n), "keyword_argument"))
		*out = n; /* the texts name no other keyword after pin_memory= */
	return MPSFIX_WALK_DESCEND;
}

START_TEST(test_engine_argparse_opt_in)
{
#define HEAD "import argparse, sys, torch\nparser = argparse.ArgumentParser()\n" \
	     "parser.add_argument('--pin-memory', action='store_true')\n"
#define TAIL "loader = torch.utils.data.DataLoader(ds, pin_memory=args.pin_memory)\n"
	static const struct {
		const char *text;
		bool opt_in;
	} cases[] = {
		{HEAD "args = parser.parse_args()\n" TAIL, true},
		{HEAD "def parse():\n    a = parser.parse_args()\n    return a\n"
		      "def main():\n    args = parse()\n    " TAIL, true},
		{HEAD "def parse():\n    return parser.parse_args()\nargs = parse()\n" TAIL, true},
		{HEAD "args = parser.parse_args()\ndef main():\n    " TAIL, true},
		{"import argparse, torch\np = argparse.ArgumentParser()\n"
		 "p.add_argument('-p', '--pin_memory', action='store_true', default=None)\n"
		 "args = p.parse_args()\n" TAIL, true},
		/* not the parser's namespace, or not only */
		{HEAD "args = load_config()\n" TAIL, false},
		{HEAD "def main(args):\n    " TAIL, false},
		{HEAD "args = parser.parse_args(['--pin-memory'])\n" TAIL, false},
		{HEAD "args = parser.parse_args(namespace=ns)\n" TAIL, false},
		{HEAD "def parse():\n    if x:\n        return cfg\n    return parser.parse_args()\nargs = parse()\n" TAIL,
		 false},
		{HEAD "args = parser.parse_args()\nargs = other\n" TAIL, false},
		/* pinning may be on without the switch */
		{HEAD "sys.argv += ['--pin-memory']\nargs = parser.parse_args()\n" TAIL, false},
		{HEAD "sys.argv.append('--pin-memory')\nargs = parser.parse_args()\n" TAIL, false},
		{"import argparse, torch\nparser = argparse.ArgumentParser(argument_default=True)\n"
		 "parser.add_argument('--pin-memory', action='store_true')\nargs = parser.parse_args()\n" TAIL, false},
		{"import argparse, torch\nparser = argparse.ArgumentParser(parents=[base])\n"
		 "parser.add_argument('--pin-memory', action='store_true')\nargs = parser.parse_args()\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nvars(args).update(cfg)\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nconfig = vars(args)\nconfig['pin_memory'] = True\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nconfig = vars(args)\nconfig[key] = True\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nconfig = vars(args)\nconfig.update(extra)\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nconfig = vars(args)\nconfig |= {'pin_memory': True}\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nconfig = vars(args)\nc2 = config\nc2['pin_memory'] = True\n" TAIL,
		 false},
		{HEAD "args = parser.parse_args()\na = b = vars(args)\na['pin_memory'] = True\n" TAIL, false},
		{HEAD "for action in parser._actions:\n    action.default = cfg[action.dest]\n"
		      "args = parser.parse_args()\n" TAIL, false},
		{HEAD "parser._defaults.update(cfg)\nargs = parser.parse_args()\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nargs.__setattr__('pin_memory', True)\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nfor args.pin_memory in (True,):\n    pass\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nwith f() as args.pin_memory:\n    pass\n" TAIL, false},
		{HEAD "av = sys.argv\nav.append('--pin-memory')\nargs = parser.parse_args()\n" TAIL, false},
		{"import torch\nfrom argparse import ArgumentParser as AP\nparser = AP(argument_default=True)\n"
		 "parser.add_argument('--pin-memory', action='store_true')\nargs = parser.parse_args()\n" TAIL, false},
		{HEAD "def main(get_args):\n    args = get_args()\n    " TAIL, false},
		{HEAD "def get_args():\n    return parser.parse_args()\ndef main():\n    get_args = load_cfg\n"
		      "    args = get_args()\n    " TAIL, false},
		{HEAD "data = load(name, **kwargs)\nargs = parser.parse_args()\n" TAIL, true},
		{"import argparse, torch\nparser = argparse.ArgumentParser(**options)\n"
		 "parser.add_argument('--pin-memory', action='store_true')\nargs = parser.parse_args()\n" TAIL, false},
		{HEAD "if len(sys.argv) > 1 and '--x' in sys.argv:\n    print(sys.argv[1:])\n"
		      "args = parser.parse_args()\n" TAIL, true},
		{HEAD "args = parser.parse_args()\nconfig = vars(args)\nconfig['lr'] = config['lr'] * 2\n"
		      "log(config.items())\ntrack(config=config)\n" TAIL, true},
		{HEAD "args = parser.parse_args()\nargs.__dict__.update(cfg)\n" TAIL, false},
		{HEAD "defaults = argparse.Namespace(pin_memory=True)\nargs = parser.parse_args()\n" TAIL, false},
		{HEAD "parser.set_defaults(pin_memory=True)\nargs = parser.parse_args()\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nargs.pin_memory = torch.cuda.is_available()\n" TAIL, false},
		{HEAD "args = parser.parse_args()\nsetattr(args, key, True)\n" TAIL, false},
		{"import argparse, torch\nparser = argparse.ArgumentParser()\n"
		 "parser.add_argument('pin_memory', action='store_true')\nargs = parser.parse_args()\n" TAIL, false},
		{"import argparse, torch\nparser = argparse.ArgumentParser()\n"
		 "parser.add_argument('--pin', dest='pin-memory', action='store_true')\nargs = parser.parse_args()\n"
		 TAIL, false},
		{HEAD "parser.add_argument('--no-pin', dest='pin_memory', action='store_false')\n"
		      "args = parser.parse_args()\n" TAIL, false},
		{HEAD "parser.add_argument(*more)\nargs = parser.parse_args()\n" TAIL, false},
		/* read only: vars(args) passed on, another attribute set */
		{HEAD "args = parser.parse_args()\nprint(dict(vars(args)))\nargs.lr = 0.1\n" TAIL, true},
		{"import torch\nloader = torch.utils.data.DataLoader(ds, pin_memory=args.pin_memory)\n", false},
		{HEAD "args = parser.parse_args()\nloader = DataLoader(ds, pin_memory=True)\n", false},
	};
#undef HEAD
#undef TAIL
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		TSNode kw = {0};
		mpsfix_argparse a = MPSFIX_ARGPARSE_INIT;

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse_named(&tree, parser, "t.py", text, (uint32_t)strlen(text)), 0);
		mpsfix_walk(ts_tree_root_node(tree), last_pin, &kw);
		ck_assert_msg(!ts_node_is_null(kw), "case %zu: no keyword argument", i);
		kw = ts_node_child_by_field_name(kw, "value", 5);
		/* asked twice: the second answer comes from what the first read */
		for (int ask = 0; ask < 2; ask++)
			ck_assert_msg(mpsfix_argparse_opt_in(&a, text, ts_tree_root_node(tree), kw) == cases[i].opt_in,
				      "case %zu (asked %d times): %s", i, ask + 1, text);
		mpsfix_argparse_release(&a);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
}
END_TEST

/* callers.c's hooks for a test: code inside `with cuda_only():` is unreachable */
typedef struct {
	const char *src;
	char found[256];
} callers_probe;

static bool probe_unreachable(void *payload, TSNode at)
{
	callers_probe *p = payload;
	const char *type;

	for (TSNode n = ts_node_parent(at); !ts_node_is_null(n); n = ts_node_parent(n)) {
		type = ts_node_type(n);
		if (!strcmp(type, "with_statement") &&
		    !strncmp(p->src + ts_node_start_byte(n), "with cuda_only():", 17))
			return true;
		if (!strcmp(type, "function_definition")) {
			/* a function found before: its span is unreachable */
			TSNode name = ts_node_child_by_field_name(n, "name", 4);
			char *id = mpsfix_node_text(name, p->src);
			char key[64];
			bool in;

			snprintf(key, sizeof(key), " %s ", id);
			in = strstr(p->found, key) != NULL;
			free(id);
			if (in)
				return true;
		}
	}
	return false;
}

static void probe_found(void *payload, TSNode def)
{
	callers_probe *p = payload;
	char *id = mpsfix_node_text(ts_node_child_by_field_name(def, "name", 4), p->src);
	size_t n = strlen(p->found);

	snprintf(p->found + n, sizeof(p->found) - n, "%s%s ", n ? "" : " ", id);
	free(id);
}

START_TEST(test_engine_callers)
{
#define MAIN "if __name__ == '__main__':\n    pass\n" /* a script: its private functions are its own */
	static const struct {
		const char *text;
		const char *found; /* the functions found, in the order found */
	} cases[] = {
		{"def _a():\n    pass\nwith cuda_only():\n    _a()\n" MAIN, " _a "},
		/* a library module's private function may be imported elsewhere */
		{"def _a():\n    pass\nwith cuda_only():\n    _a()\n", ""},
		/* a chain: _b is called only by _a */
		{"def _b():\n    pass\ndef _a():\n    _b()\nwith cuda_only():\n    _a()\n" MAIN, " _a _b "},
		/* public names, dunders, a name in a string, none called */
		{"def a():\n    pass\nwith cuda_only():\n    a()\n" MAIN, ""},
		{"class C:\n    def __call__(self):\n        pass\nwith cuda_only():\n    C().__call__()\n", ""},
		{"def _a():\n    pass\nwith cuda_only():\n    _a()\nname = '_a'\n" MAIN, ""},
		{"def _a():\n    pass\n" MAIN, ""},
		/* one reference outside, or the name as a value outside */
		{"def _a():\n    pass\nwith cuda_only():\n    _a()\n_a()\n" MAIN, ""},
		{"def _a():\n    pass\nwith cuda_only():\n    _a()\nf = _a\n" MAIN, ""},
		/* defined twice, or inside an if */
		{"def _a():\n    pass\ndef _a():\n    pass\nwith cuda_only():\n    _a()\n" MAIN, ""},
		{"if x:\n    def _a():\n        pass\nwith cuda_only():\n    _a()\n" MAIN, ""},
		/* methods: a class with no base (or object), not one with a base */
		{"class C(object):\n    def _m(self):\n        pass\n    def run(self):\n"
		 "        with cuda_only():\n            self._m()\n", " _m "},
		{"class C(Base):\n    def _m(self):\n        pass\n    def run(self):\n"
		 "        with cuda_only():\n            self._m()\n", ""},
		/* a nested function, any name; its own recursive call does not count */
		{"def f():\n    def step():\n        step()\n    with cuda_only():\n        step()\n", " step "},
		{"", ""},
		{"def (:\n", ""},
	};
#undef MAIN

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		callers_probe p = {.src = text};
		mpsfix_callers_hooks hooks = {probe_unreachable, probe_found, NULL, &p};

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		mpsfix_callers_unreached(ts_tree_root_node(tree), text, &hooks);
		ck_assert_msg(!strcmp(p.found, cases[i].found), "case %zu: found \"%s\", not \"%s\": %s", i, p.found,
			      cases[i].found, text);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
}
END_TEST

/* Does a script replace an option's "cuda" default where CUDA is missing (argparse.h)? */
START_TEST(test_engine_argparse_falls_back)
{
#define HEAD "import argparse, torch\np = argparse.ArgumentParser()\n"
	static const struct {
		const char *text;
		bool falls_back;
	} cases[] = {
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if a.device == 'cuda' and not torch.cuda.is_available():\n    a.device = 'cpu'\n", true},
		{HEAD "p.add_argument('-d', '--vae-device', default='cuda')\ndef main():\n    a = p.parse_args()\n"
		      "    d = torch.device(a.vae_device if torch.cuda.is_available() else 'cpu')\n", true},
		{HEAD "p.add_argument('--dev', dest='where', default='cuda')\na = p.parse_args()\n"
		      "d = a.where if torch.cuda.is_available() else 'cpu'\n", true},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if not torch.cuda.is_available():\n    a.device = 'cpu'\n", true},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "d = (a.device  # the option\n     if torch.cuda.is_available() or a.device == 'cpu' else 'cpu')\n", true},
		/* replaced only with CUDA, or only for another value: a Mac user with the default still fails */
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if a.device == 'cuda' and torch.cuda.is_available():\n    a.device = 'cuda:1'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if a.device == 'cpu' and not torch.cuda.is_available():\n    a.device = 'cpu'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if not torch.cuda.is_available() and a.force:\n    a.device = 'cpu'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if not torch.cuda.is_available():\n    if a.force:\n        a.device = 'cpu'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "d = a.device if not torch.cuda.is_available() else 'cuda:0'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "d = a.device if torch.cuda.is_available() or a.device == 'cuda' else 'cpu'\n", false},
		/* not the parsed options: another object's attribute of that name */
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "def pick(ref):\n    return ref.device if torch.cuda.is_available() else 'cpu'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\nclass M:\n    def f(self):\n"
		      "        if self.device == 'cuda' and not torch.cuda.is_available():\n            self.device = 'cpu'\n",
		 false},
		/* raises: a Mac user still fails */
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if a.device == 'cuda' and not torch.cuda.is_available():\n    raise SystemExit(1)\n", false},
		/* another option replaced, or no CUDA test */
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if not torch.cuda.is_available():\n    a.vae_device = 'cpu'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "if a.device == 'cuda':\n    a.device = 'cuda:0'\n", false},
		{HEAD "p.add_argument('--device', default='cuda')\na = p.parse_args()\n"
		      "d = 'cpu' if torch.cuda.is_available() else a.device\n", false},
		/* the option's name is not a literal: its dest is unknown */
		{HEAD "p.add_argument(*names, default='cuda')\na = p.parse_args()\n"
		      "d = a.device if torch.cuda.is_available() else 'cpu'\n", false},
		/* a device chosen at run time is what it is */
		{HEAD "p.add_argument('--device', default=pick())\na = p.parse_args()\n"
		      "d = a.device if torch.cuda.is_available() else 'cpu'\n", false},
	};
#undef HEAD
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		uint32_t at = (uint32_t)(strstr(text, "default=") - text) + 8;
		TSNode v;

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		v = ts_node_named_descendant_for_byte_range(ts_tree_root_node(tree), at, at);
		while (strcmp(ts_node_type(ts_node_parent(v)), "keyword_argument"))
			v = ts_node_parent(v);
		ck_assert_msg(mpsfix_argparse_falls_back(NULL, text, v) == cases[i].falls_back, "case %zu: %s", i, text);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
}
END_TEST

/* Which module texts may bind a global where the text does not say which name (dynamic.h). */
START_TEST(test_engine_dynamic_calls)
{
	static const struct {
		const char *text;
		bool dynamic;
	} cases[] = {
		{"exec(code)\n", false}, /* the top level's own: bindings.h's `dynamic` */
		{"def f():\n    exec(code)\n", true},
		{"def f():\n    globals()['device'] = 'mps'\n", true},
		{"g = lambda: vars ()\n", true},
		{"class C:\n    eval('1')\n", true},
		{"def f():\n    model.eval()\n", false},
		{"def f():\n    my_exec(code)\n    execute(code)\n", false},
		{"import builtins\nbuiltins.exec(code)\n", true},
		{"import builtins\nmybuiltins.exec(code)\n", false},
		{"sys._getframe().f_globals['device'] = 'mps'\n", true},
		{"frame.f_locals.update(d)\n", true},
		{"setup.__globals__['device'] = 'mps'\n", true},
		{"x.f_globals_count = 1\n", false},
		{"__builtins__.exec(code)\n", true},
		{"from builtins import exec as run\n", true},
		{"import builtins\nrun = getattr(builtins, name)\n", true},
		{"import builtins\nbuiltins.print = log\n", false},
		{"# f_globals\n", true}, /* a comment counts: the text is not parsed */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		ck_assert_msg(mpsfix_dynamic_calls(text, ts_tree_root_node(tree)) == cases[i].dynamic, "case %zu: %s", i,
			      text);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
}
END_TEST

/* The first default_parameter or typed_default_parameter of the tree, in order. */
static TSNode first_default(TSNode n)
{
	const char *t = ts_node_type(n);

	if (!strcmp(t, "default_parameter") || !strcmp(t, "typed_default_parameter"))
		return n;
	for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
		TSNode d = first_default(ts_node_named_child(n, i));

		if (!ts_node_is_null(d))
			return d;
	}
	return (TSNode){0};
}

/*
 * mpsfix_defaults_overridden() on its own, with and without a memo.  The
 * fixture cuda-device-default/default-always-passed shows it through a rule;
 * these are the shapes a fixture does not isolate: a text whose calls pass
 * no keyword at all (the keyword table is then never allocated: a fuzzing
 * find, an offset applied to NULL), and the first question of a memo.
 */
START_TEST(test_engine_defaults)
{
#define DEF "def f(x, device='cuda'):\n    return x\n"
#define MAIN "if __name__ == '__main__':\n    pass\n"
#define GR "import gradio as gr\n"
#define PDEF "def _f(x, device='cuda'):\n    return x\n"
	/* the text, then: does every call pass the parameter, does none (kept) */
	static const struct {
		const char *text;
		bool overridden, kept;
	} cases[] = {
		{DEF "f(1, 'cpu')\n", true, false},    /* no keyword anywhere in the text */
		{DEF "f(1, 'cpu')\nf(2, device='mps')\n", true, false},
		{DEF "f(1)\n", false, false},         /* not a script: an importer may pass it */
		{DEF "f(1)\nf(2, device='mps')\n", false, false},
		{DEF, false, false},                   /* never called */
		{DEF "f(*xs)\n", false, false},
		{DEF "f(1, **kw)\n", false, false},
		{DEF "g = f\nf(1, 'cpu')\n", false, false},
		{"def f(x, *, device='cuda'):\n    return x\nf(1, 'cpu')\n", false, false},
		{"def f(device='cuda', /):\n    return 1\nf(device='cpu')\n", false, false},
		{"def f(device: str = 'cuda', /):\n    return 1\nf('cpu')\n", true, false},
		{"class C:\n    def m(self, device='cuda'):\n        pass\n    def run(self):\n"
		 "        self.m('cpu')\n", true, false},
		{"class C:\n    def m(self, device='cuda'):\n        pass\n    def run(self, x):\n"
		 "        x.m('cpu')\n", false, false},
		{"def f(x, device='cuda'):\n    return x\ndef f(x):\n    return x\nf(1, 'cpu')\n", false, false},
		/* torch's own function of the same name is no mention of f */
		{"import torch\n" DEF "f(1, 'cpu')\ny = torch.f('cuda')\nz = torch.x.f\n", true, false},
		{"import torch as t\n" DEF "f(1, 'cpu')\ny = t.f('cuda')\n", false, false},
		{DEF "f(1, 'cpu')\ny = torch.f('cuda')\n", false, false}, /* torch is not imported */
		{"import torch\n" DEF "f(1, 'cpu')\ny = mod.f('cuda')\n", false, false},
		/* a script's private functions: no call passes it */
		{PDEF "_f(1)\n" MAIN, false, true},
		{DEF "f(1)\n" MAIN, false, false},      /* public: an importer may pass it */
		{PDEF "_f(1)\n_f(2, device='mps')\n" MAIN, false, false},
		{PDEF MAIN, false, false},               /* never called: Fire may call it */
		{PDEF "_f(*xs)\n" MAIN, false, false},  /* xs may reach it */
		{PDEF "_f(1, *xs)\n" MAIN, false, false},
		{PDEF "_f(*xs, 1)\n" MAIN, false, false},
		{PDEF "_f(1, **kw)\n" MAIN, false, false},
		{"def _f(x, *, device='cuda'):\n    return x\n_f(1, 2)\n" MAIN, false, true},
		{"def __f__(x, device='cuda'):\n    return x\n__f__(1)\n" MAIN, false, false},
		{"class C:\n    def m(self, device='cuda'):\n        pass\n    def run(self):\n"
		 "        self.m()\n" MAIN, false, false},  /* a method: another class may call it */
		{"def g():\n    def f(x, device='cuda'):\n        return x\n    return f(1)\n", false, true},
		/* gradio calls f with one positional argument per input */
		{GR DEF "gr.Button().click(fn=f, inputs=[a])\n" MAIN, false, true},
		{GR DEF "b.click(f, [a], [o])\n" MAIN, false, true},
		{GR DEF "b.click(fn=f)\n" MAIN, false, true},
		{GR DEF "b.click(fn=f, inputs=None)\n" MAIN, false, true},
		{"from gradio import Interface\n" DEF "Interface(f, ['image'], 'image')\n" MAIN, false, true},
		{GR DEF "b.click(f, [a, b], [o])\n" MAIN, true, false},
		{GR DEF "b.click(fn=f, inputs=xs)\n" MAIN, false, false},
		{GR DEF "b.click(fn=f, inputs=[*xs])\n" MAIN, false, false},
		{GR DEF "b.click(*args, fn=f)\n" MAIN, false, false},
		{GR DEF "b.click(fn=f, inputs=[a])\nf(1, 'cpu')\n" MAIN, false, false},
		{DEF "b.click(fn=f, inputs=[a])\n" MAIN, false, false}, /* no gradio: not known */
		{GR DEF "b.then(fn=f, inputs=[a])\n" MAIN, false, true},
		{GR DEF "b.frobnicate(fn=f, inputs=[a])\n" MAIN, false, false},
		{GR DEF "gr.Interface(f, [a], 'text', additional_inputs=[d])\n" MAIN, true, false},
		{GR DEF "gr.Interface(f, [], 'text', additional_inputs=[d])\n" MAIN, false, true}, /* d is x */
		{GR DEF "gr.Interface(f, [a], 'text', additional_inputs=ds)\n" MAIN, false, false},
		{GR DEF "b.click(fn=f, inputs=[a])\n", false, false}, /* not a script: importers */
		/* **NAME of a dictionary a function writes out and never changes: its keys (kwdict.h) */
#define G "def g(d):\n"
		{DEF G "    kw = dict(device=d)\n    return f(1, **kw)\n", true, false},
		{DEF G "    kw = {'device': d, \"n\": 1}\n    return f(1, **kw)\n", true, false},
		{DEF G "    kw = dict(\n        device=d,  # here\n    )\n    return f(1, **kw)\n", true, false},
		{DEF G "    kw = dict(device=d)\n    both = {**kw}\n    return f(1, **kw)\n", true, false},
		{DEF G "    kw = dict(device=d)\n    h = lambda: f(1, **kw)\n    return [f(2, **kw) for _ in d]\n", true,
		 false},
		{DEF G "    kw = dict(batch=2)\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    f(2)\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    kw.pop('device')\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    del kw['device']\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    kw |= {}\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    kw = {}\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    alias = kw\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = x = dict(device=d)\n    return f(1, **kw)\n", false, false},
		{DEF G "    for kw in [dict(device=d)]:\n        f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    def h(kw):\n        return f(1, **kw)\n", false, false},
		{"dict = lambda **k: {}\n" DEF G "    kw = dict(device=d)\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    exec('kw.clear()')\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    eval('kw.clear()')\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    sys._getframe().f_locals['kw'].clear()\n    return f(1, **kw)\n",
		 false, false},
		{"from helpers import *\n" DEF G "    kw = dict(device=d)\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = {f'device': d}\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = {'dev' 'ice': d}\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = {b'device': d}\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = {'device': d, 'device': None}\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d, **more)\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(zip(a, b))\n    return f(1, **kw)\n", false, false},
		{DEF G "    kw = {k: v for k, v in items}\n    return f(1, **kw)\n", false, false},
		/* a module's dictionary: another module may change it (from train import kw; kw.pop(...)) */
		{DEF "kw = dict(device='cpu')\nf(1, **kw)\n", false, false},
		{DEF "def g(d):\n    kw = dict(device=d)\nf(1, **kw)\n", false, false},
		/* a class body mangles __kw: _C__kw is C's __kw */
		{DEF G "    __kw = dict(device=d)\n    return f(1, **__kw)\n", false, false},
		{DEF G "    _C__kw = dict(device=d)\n    class C:\n        def m(self):\n            __kw.clear()\n"
		 "    return f(1, **_C__kw)\n", false, false},
		/* a default runs outside the function's body */
		{DEF "def g(r=f(1, **kw)):\n    kw = dict(device='cpu')\n", false, false},
		/* names that reach a function's locals or the builtins unseen */
		{DEF G "    kw = dict(device=d)\n    inspect.getargvalues(inspect.currentframe()).locals['kw'].clear()\n"
		 "    return f(1, **kw)\n", false, false},
		{DEF G "    kw = dict(device=d)\n    getattr(sys._getframe(), 'f_' + 'locals')['kw'].clear()\n"
		 "    return f(1, **kw)\n", false, false},
		{"import builtins\nbuiltins.dict = lambda **k: {}\n" DEF "f(1, **dict(device='cpu'))\n", false, false},
		{DEF "sys._getframe().f_globals['dict'] = lambda **k: {}\nf(1, **dict(device='cpu'))\n", false, false},
		{DEF G "    kw = dict(device=d)\n    \xef\xbd\x8bw.clear()\n    return f(1, **kw)\n", false, false},
		/* code the grammar does not read (a Python 3.14 t-string) */
		{DEF G "    kw = dict(device=d)\n    x = t\"{kw.clear()}\"\n    return f(1, **kw)\n", false, false},
		{DEF "f(1, **{'device': 'cpu'})\nf(2, **dict(device='mps'))\n", true, false},
		{DEF "f(1, **{'n': 1})\n", false, false},
		{DEF "f(1, **{**kw})\n", false, false},
		{"dict = lambda **k: {}\n" DEF "f(2, **dict(device='mps'))\n", false, false},
		{PDEF "_f(1, **{'n': 1})\n" MAIN, false, true},
		{PDEF "def g(d):\n    kw = dict(batch=1)\n    return _f(1, **kw)\ng(1)\n" MAIN, false, true},
		{PDEF "def g(d):\n    kw = dict(device=d)\n    return _f(1, **kw)\ng(1)\n" MAIN, true, false},
#undef G
	};
#undef DEF
#undef MAIN
#undef GR
#undef PDEF

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		mpsfix_defaults_memo memo = {0};
		TSNode param;

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		param = first_default(ts_tree_root_node(tree));
		ck_assert_msg(!ts_node_is_null(param), "case %zu: no default", i);
		ck_assert_msg(mpsfix_defaults_overridden(NULL, text, param) == cases[i].overridden,
			      "case %zu (no memo): not %d: %s", i, cases[i].overridden, text);
		ck_assert_msg(mpsfix_defaults_kept(NULL, text, param) == cases[i].kept,
			      "case %zu (no memo): kept not %d: %s", i, cases[i].kept, text);
		/* asked twice through one memo, both questions: the later answers are the memo's */
		for (int k = 0; k < 2; k++) {
			ck_assert_msg(mpsfix_defaults_overridden(&memo, text, param) == cases[i].overridden,
				      "case %zu (memo, question %d): not %d: %s", i, k + 1, cases[i].overridden,
				      text);
			ck_assert_msg(mpsfix_defaults_kept(&memo, text, param) == cases[i].kept,
				      "case %zu (memo, question %d): kept not %d: %s", i, k + 1, cases[i].kept,
				      text);
		}
		mpsfix_defaults_memo_release(&memo);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
}
END_TEST

/*
 * A class method's `cls(...)` is a call of the class's `__init__`: read in
 * a project whose other modules never name the class (a class's own calls
 * settle nothing outside a project, where a configuration may build it).
 */
START_TEST(test_engine_defaults_cls)
{
#define K "class C:\n    def __init__(self, x, device='cuda'):\n        self.x = x\n"
#define CM "    @classmethod\n    def make(cls, d):\n"
	static const struct {
		const char *text;
		bool overridden;
	} cases[] = {
		{K "C(1, 'cpu')\n", true},
		{K CM "        return cls(1, device=d)\nC(1, 'cpu')\n", true},
		{K CM "        return cls(1, d)\nC(1, device='cpu')\n", true},
		{K CM "        return cls(1, device=d)\n", true}, /* built by cls(...) alone */
		{K CM "        return cls(1)\nC(1, 'cpu')\n", false},
		{K CM "        return [cls(1, d), cls(2)]\nC(1, 'cpu')\n", false},
		{K CM "        return cls(1, **kw)\nC(1, 'cpu')\n", false},
		{K CM "        return cls(*args)\nC(1, 'cpu')\n", false},
		{K CM "        cls = D\n        return cls(1, d)\nC(1, 'cpu')\n", false}, /* cls rebound */
		{K CM "        return lambda: cls(1, d)\nC(1, 'cpu')\n", false},
		{K CM "        exec(s)\n        return cls(1, d)\nC(1, 'cpu')\n", false},
		{K "    @classmethod\n    @cache\n    def make(cls, d):\n        return cls(1, d)\nC(1, 'cpu')\n", false},
		{K "    def make(self, cls):\n        return cls(1, 'cpu')\nC(1, 'cpu')\n", false},
		{K "    @staticmethod\n    def make(cls):\n        return cls(1, 'cpu')\nC(1, 'cpu')\n", false},
		{K "    @classmethod\n    def make(klass, d):\n        return klass(1, d)\nC(1, 'cpu')\n", false},
		{K CM "        class D(C):\n            @classmethod\n            def other(cls):\n"
		      "                return cls(1)\n        return cls(1, d)\nC(1, 'cpu')\n", false},
		/* the instance made again, the class reached through a dunder */
		{K CM "        return cls(1, d)\n    def reset(self):\n        self.__init__(1)\nC(1, 'cpu')\n", false},
		{K CM "        return cls(1, d)\n    @classmethod\n    def bare(cls):\n        return cls.__mro__[0](1)\n"
		      "C(1, 'cpu')\n", false},
		{K CM "        return cls(1, d)\n    @classmethod\n    def named(cls):\n        return cls.__name__\n"
		      "C(1, 'cpu')\n", true},
		{K CM "        return cls(1, d)\n    @classmethod\n    def fields(cls):\n        return list(cls.__dict__)\n"
		      "C(1, 'cpu')\n", true},
		{K CM "        return cls(1, d)\n    @classmethod\n    def kids(cls):\n"
		      "        return [k(1) for k in cls.__subclasses__()]\nC(1, 'cpu')\n", false},
		{"import torch\nclass C(torch.nn.Module):\n    def __init__(self, x, device='cuda'):\n"
		 "        torch.nn.Module.__init__(self)\n        super().__init__()\nC(1, 'cpu')\n", true},
	};
#undef K
#undef CM
	char tmpl[] = "/tmp/mpsfix-defaults-XXXXXX";
	char *dir = mkdtemp(tmpl), *path;

	ck_assert_ptr_nonnull(dir);
	tu_put(dir, "pyproject.toml", "[project]\nname = \"p\"\n");
	path = mpsfix_xasprintf("%s/m.py", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		mpsfix_defaults_memo memo = {0};
		TSNode param;

		tu_put(dir, "m.py", text);
		memo.project = mpsfix_project_cache_new();
		memo.path = path;
		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		param = first_default(ts_tree_root_node(tree));
		ck_assert_msg(mpsfix_defaults_overridden(&memo, text, param) == cases[i].overridden,
			      "case %zu: not %d: %s", i, cases[i].overridden, text);
		mpsfix_project_cache_free(memo.project);
		mpsfix_defaults_memo_release(&memo);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
	free(path);
	tu_rm_rf(dir);
}
END_TEST

/* The last `self.X` read in `text` (the attribute node of `return self.X`, `return this.X`). */
static TSNode last_read(TSNode root, const char *text)
{
	const char *at = NULL, *p = text;

	while ((p = strstr(p, "return ")))
		if (!strncmp(p++, "return self.", 12) || !strncmp(p - 1, "return this.", 12))
			at = p - 1;
	if (!at)
		return (TSNode){0};
	at += strlen("return ");
	return ts_node_parent(ts_node_descendant_for_byte_range(root, (uint32_t)(at - text),
								  (uint32_t)(at - text + 4)));
}

/*
 * mpsfix_selfattr_owner() and mpsfix_selfattr_values_of(): which reads of
 * `self.X` have a class, and how many values the class gives X (-1: not
 * known).  The fixture to-mps-non-blocking/self-attribute shows the answer
 * through a rule; these are the shapes it does not hold.
 */
START_TEST(test_engine_selfattr)
{
#define C "class C:\n    def __init__(self):\n        self.d = 'cpu'\n"
#define R "    def get(self):\n        return self.d\n"
	static const struct {
		const char *text;
		bool owned;
		int values;
	} cases[] = {
		{C R, true, 1},
		{C "    def set(self, x):\n        a = self.d = x\n" R, true, 2},
		/* a chain: every target gets its value, each target once */
		{C "    def set(self, x):\n        self.d = a = x\n" R, true, 2},
		{C "    def set(self, x):\n        self.e = self.d = b = x\n" R, true, 2},
		{C "    def set(self, o):\n        self.d = o.d = 'mps'\n" R, true, -1},
		/* the grammar reads these as type aliases */
		{C "    def set(self):\n        type(self).d = 'mps'\n" R, true, -1},
		{C "    def set(self):\n        type(self).e = 'mps'\n" R, true, 1},
		{C "    def set(self):\n        type(self).d = 'mps'\n" R
		   "class D:\n    def __init__(self):\n        self.d = 'cpu'\n    def get(self):\n        return self.d\n",
		 true, 1},
		{C "    def set(self):\n        self.__class__.d = 'mps'\n" R, true, 2},
		{C R "class D:\n    def set(self):\n        self.__class__.d = 'mps'\n", true, 1},
		/* an object given another class has attributes no method of it set */
		{C R "class D:\n    def turn(self):\n        self.__class__ = C\n", true, -1},
		{C R "def turn(o):\n    setattr(o, '__class__', C)\n", true, -1},
		{C R "type Alias = int\n", true, 1},
		{C "    def set(self):\n        self.d: str\n" R, true, 1},  /* declares only */
		{C "    def set(self):\n        self.d: str = 'cuda'\n" R, true, 2},
		{C "    def set(self, xs):\n        for self.d in xs:\n            pass\n" R, true, -1},
		{C "    def set(self, f):\n        with f() as self.d:\n            pass\n" R, true, -1},
		{C "    def set(self):\n        self.d += 'x'\n" R, true, -1},
		{C "    def set(self, kw):\n        self.__dict__.update(kw)\n" R, true, -1},
		{C "    def set(self):\n        setattr(self, 'e', 1)\n" R, true, 1},
		{C "    def set(self):\n        setattr(self, 'd', 1)\n" R, true, -1},
		{C "    def set(self):\n        [x for self.d in y]\n" R, true, -1},
		{C "    def set(self):\n        def inner():\n            self.d = 'mps'\n" R, true, 2},
		{C "    def set(self):\n        def inner(self):\n            self.d = 'mps'\n" R, true, -1},
		{C "    def set(self):\n        f = lambda self: setattr(self, 'd', 1)\n" R, true, -1},
		{C "    def set(self, other):\n        self = other\n        self.d = 1\n" R, true, -1},
		{C "    @classmethod\n    def set(cls):\n        cls.d = 'mps'\n" R, true, 2},
		{C "    d = 'cuda'\n" R, true, -1},       /* a default in the class body */
		{C "    a, d = 1, 2\n" R, true, -1},
		{C "    @property\n    def d(self):\n        return 1\n" R, true, -1},
		{"@dataclass\n" C R, true, -1}, /* without the imports, not known to be the standard library's */
		{"class C(Base):\n    def __init__(self):\n        self.d = 'cpu'\n" R, true, -1},
		/* without the imports, torch.nn.Module is not known to be torch's; M may set anything */
		{"class C(torch.nn.Module):\n    def __init__(self):\n        self.d = 'cpu'\n" R, true, -1},
		{"class C(object, metaclass=M):\n    def __init__(self):\n        self.d = 'cpu'\n" R, true, -1},
		{"class C(object):\n    def __init__(self):\n        self.d = 'cpu'\n" R, true, 1},
		{"class C(object, x=1):\n    def __init__(self):\n        self.d = 'cpu'\n" R, true, -1},
		/* the class used as a value may be derived from elsewhere */
		{C R "Base = C\n", true, -1},
		{C R "register(C)\n", true, -1},
		{C R "T = type('T', (C,), {'d': 'mps'})\n", true, -1},
		{C R "class D(C[int]):\n    pass\n", true, -1},
		{C R "c = C()\nC.helper()\nisinstance(c, C)\ndef f(c: C) -> 'C':\n    return c\n", true, 1},
		/* a method handed on, or called with another object as its instance */
		{C R "class D:\n    get = C.get\n", true, -1},
		{C R "def f(o):\n    return C.get(o)\n", true, -1},
		{C "    if x:\n        def alt(self):\n            pass\n" R "f = C.alt\n", true, -1},
		{C "    @staticmethod\n    def make():\n        return 1\n" R "x = C.make()\n", true, 1},
		{C "    @classmethod\n    def make(cls):\n        return cls()\n" R "x = C.make()\n", true, 1},
		{C R "x = C.CONST\n", true, 1},
		{C R "class D:\n    def get(self):\n        pass\nf = D.get\n", true, 1},
		/* methods given another object as self: what they set, they may set on any instance */
		{C R "class H:\n    def use(self):\n        self.d = 'mps'\nH.use(c)\n", true, -1},
		{C R "class H:\n    def use(self):\n        self.d = 'mps'\n    def other(self):\n        pass\nH.other(c)\n",
		 true, 1},
		{C R "class H:\n    def use(self):\n        self.d = 'mps'\nAlias = H\n", true, -1},
		{C R "class H:\n    def use(self):\n        setattr(self, 'd', 'mps')\nH.use(c)\n", true, -1},
		{C "    def move(self):\n        pass\n    move = staticmethod(move)\n" R, true, -1},
		{C R "f = c.get.__func__\n", true, -1},
		{C R "f = type(c).get\n", true, -1},
		{C R "n = type(c).__name__\n", true, 1},
		/* bases that are expressions may be this class */
		{C R "class M(type(c)):\n    pass\n", true, -1},
		{C R "class M(c.__class__):\n    pass\n", true, -1},
		{C R "class M(REG[0]):\n    pass\n", true, -1},
		{"@register\n" C R, true, -1},
		{C R "def f(k: (Base := C)):\n    pass\n", true, -1},
		/* code that may set anything */
		{C R "exec(code)\n", true, -1},
		{C R "x = model.eval()\n", true, 1},
		{C R "f = getattr(builtins, name)\n", true, -1},
		{C "    sys._getframe().f_locals['e'] = 1\n" R, true, -1},
		/* nn.Module's own attributes */
		{C "    def reg(self, t):\n        self.register_buffer('d', t)\n" R, true, -1},
		{C "    def reg(self, t):\n        self.register_buffer('e', t)\n" R, true, 1},
		{C "    def reg(self, t):\n        self._buffers['d'] = t\n" R, true, -1},
		/* the file's own `property` */
		{"def property(f):\n    return f\nclass C:\n    def __init__(self):\n        self.d = 'cpu'\n    @property\n"
		 "    def get(self):\n        return self.d\n", false, 0},
		/* what may set any attribute */
		{C R "sa = setattr\n", true, -1},
		{C R "def f(o, kw):\n    vars(o).update(kw)\n", true, -1},
		{C R "def f(o):\n    object.__setattr__(o, 'd', 'mps')\n", true, -1},
		{C R "def f(o):\n    getattr(o, '__dict__')['d'] = 'mps'\n", true, -1},
		{C R "class D:\n    def f(self, kw):\n        vars(self).update(kw)\n", true, 1},
		/* how the class finds its attributes */
		{C R "    def __getattr__(self, k):\n        return 'mps'\n", true, -1},
		{C R "    __slots__ = ('d',)\n", true, -1},
		{C R "    a = d = 'mps'\n", true, -1},
		{C R "    if x:\n        d = 'mps'\n", true, -1},
		{C R "    from cfg import d\n", true, -1},
		{C R "    locals()['d'] = 'mps'\n", true, -1},
		{C R "    x = 1\n    'doc'\n    pass\n", true, 1},
		/* a first parameter called otherwise, a decorator of the project's */
		{C R "class H:\n    def f(t):\n        t.d = 'mps'\n", true, -1},
		{"class C:\n    @deco\n    def get(self):\n        return self.d\n", false, 0},
		{"class C:\n    def get(this):\n        return this.d\n", false, 0},
		{C R "class D(mod.C):\n    pass\n", true, -1},
		{C R "class D:\n    def __init__(self):\n        self.d = 'mps'\n", true, 1},
		{C R "def f(o):\n    o.d = 'mps'\n", true, -1},
		{C R "x.y.d = 'mps'\n", true, -1},
		{"class C:\n" R, true, -1},              /* never set */
		{"class C:\n    @staticmethod\n    def get(self):\n        return self.d\n", false, 0},
		{"class C:\n    def get(s, self):\n        return self.d\n", false, 0},
		{"class C:\n    def get(self):\n        f = lambda self: 1\n        return self.d\n", true, -1},
		{"def get(self):\n    return self.d\n", false, 0},
	};
#undef C
#undef R

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		TSParser *parser = NULL;
		TSTree *tree = NULL;
		mpsfix_selfattr_index *ix;
		mpsfix_selfattr_values vals = {0};
		TSNode read, cls;
		bool owned;

		ck_assert_int_eq(mpsfix_parser_new(&parser), 0);
		ck_assert_int_eq(mpsfix_parse(&tree, parser, text, (uint32_t)strlen(text)), 0);
		read = last_read(ts_tree_root_node(tree), text);
		ck_assert_msg(!ts_node_is_null(read) && !strcmp(ts_node_type(read), "attribute"), "case %zu: no read",
			      i);
		ix = mpsfix_selfattr_index_new(ts_tree_root_node(tree), text, NULL);
		owned = mpsfix_selfattr_owner(ix, read, &cls);
		ck_assert_msg(owned == cases[i].owned, "case %zu: owned not %d: %s", i, cases[i].owned, text);
		if (owned) {
			/* twice: a question leaves the index as it was */
			for (int k = 0; k < 2; k++) {
				bool known = mpsfix_selfattr_values_of(
					ix, cls, ts_node_child_by_field_name(read, "attribute", 9), &vals);

				ck_assert_msg(known ? cases[i].values == (int)vals.len : cases[i].values == -1,
					      "case %zu (question %d): %s %zu values, not %d: %s", i, k + 1,
					      known ? "known," : "not known,", vals.len, cases[i].values, text);
			}
		}
		free(vals.items);
		mpsfix_selfattr_index_free(ix);
		ts_tree_delete(tree);
		ts_parser_delete(parser);
	}
}
END_TEST

/* mpsfix_cuda_class_name(): a word of the name, split where the case changes */
START_TEST(test_engine_accelerator_class_names)
{
	static const struct {
		const char *name;
		bool named;
	} cases[] = {
		{"CUDA_Accelerator", true}, {"CUDAAccelerator", true}, {"HPUFusedAdam", true},
		{"CudaRNGStatesTracker", true}, {"FusedAdamHPU", true}, {"MyXPU", true},
		{"NPU_Accelerator", true}, {"Sdaa", true}, {"TorchXLAStrategy", true},
		{"HabanaProfiler", true}, {"_CUDA", true}, {"XPU2Accelerator", false},
		{"MPS_Accelerator", false}, {"CPU_Accelerator", false}, {"Cudagraphs", false},
		{"Accumulator", false}, {"CUDAS", false}, {"cuda_helper", false}, {"Mpu", false},
		{"XLNetModel", false}, {"Trainer", false}, {"", false}, {"_", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(mpsfix_cuda_class_name(cases[i].name, strlen(cases[i].name)) == cases[i].named,
			      "%s: not %d", cases[i].name, cases[i].named);
}
END_TEST

Suite *mpsfix_suite_engine(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_engine_unsafe_fix_needs_opt_in);
	tcase_add_test(tc, test_engine_pass_limit);
	tcase_add_test(tc, test_engine_enabled_by_match);
	tcase_add_test(tc, test_engine_case_torch);
	tcase_add_test(tc, test_engine_verbose_warnings);
	tcase_add_test(tc, test_engine_sibling_module_fails);
	tcase_add_test(tc, test_engine_argparse_opt_in);
	tcase_add_test(tc, test_engine_argparse_falls_back);
	tcase_add_test(tc, test_engine_callers);
	tcase_add_test(tc, test_engine_dynamic_calls);
	tcase_add_test(tc, test_engine_defaults);
	tcase_add_test(tc, test_engine_defaults_cls);
	tcase_add_test(tc, test_engine_selfattr);
	tcase_add_test(tc, test_engine_accelerator_class_names);
	suite_add_tcase(s, tc);
	return s;
}
