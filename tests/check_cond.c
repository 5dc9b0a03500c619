/*
 * check_cond.c: what a rule asks of a match beyond its pattern (cond.c) —
 * every constraint key on metavariables, signature parameters and MATCH
 * (`used:` with what uses.c reads of a function), `inside`, `not-inside`,
 * `after-import`, the cases of a fix — and the fix features that go with
 * them (add-argument, replacing a parameter, code in exclusive branches of
 * a conditional).  Rules are written in YAML, as rule
 * authors write them, and run through the engine.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "testutil.h"

#define HEAD "id: t\ncode: MPS999\nseverity: error\nmessage: m\ntorch: all\n"

/* A rule/code pair and what comes out: the findings or the fix. */
typedef struct {
	const char *body; /* the rule after HEAD */
	const char *code;
	const char *want;
} cond_case;

static mpsfix_rule *load(const char *body)
{
	char *yaml = mpsfix_xasprintf(HEAD "%s", body);
	mpsfix_rule *r = NULL;

	ck_assert_msg(mpsfix_rule_load_buffer(&r, tu_parser(), "t.yml", yaml, strlen(yaml)) == 0,
		      "%s\nin\n%s", mpsfix_error_last()->message, yaml);
	free(yaml);
	return r;
}

/* Where the rule finds something in `code`: "LINE:COL LINE:COL ..." ("" for nothing). */
static char *found(const char *body, const char *code)
{
	mpsfix_rule *r = load(body);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *out;

	free(tu_run(r, code, strlen(code), false, &res));
	for (size_t i = 0; i < res.len; i++)
		mpsfix_buf_printf(&b, "%s%u:%u", i ? " " : "", res.items[i].line, res.items[i].col);
	out = b.len ? mpsfix_buf_detach(&b, NULL) : mpsfix_xstrdup("");
	mpsfix_buf_release(&b);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
	return out;
}

/*
 * The first finding's fix, in one pass: `code` with its edits applied, or
 * "MANUAL: reason", or "NO FIX" when the rule found nothing.
 */
static char *fix1(const char *body, const char *code)
{
	mpsfix_rule *r = load(body);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	char *out;

	free(tu_run(r, code, strlen(code), false, &res));
	if (!res.len) {
		out = mpsfix_xstrdup("NO FIX");
	} else if (res.items[0].fix == MPSFIX_FIX_MANUAL) {
		out = mpsfix_xasprintf("MANUAL: %s", res.items[0].reason);
	} else {
		mpsfix_buf b = MPSFIX_BUF_INIT;
		mpsfix_edits e = MPSFIX_EDITS_INIT;

		ck_assert_msg(res.items[0].nedits > 0, "a finding without edits for\n%s", code);
		for (size_t k = 0; k < res.items[0].nedits; k++)
			mpsfix_edits_add(&e, res.items[0].edits[k].start, res.items[0].edits[k].end,
					 res.items[0].edits[k].text, res.items[0].edits[k].len, 0);
		ck_assert_int_eq(mpsfix_edits_apply(&b, &e, code, strlen(code), NULL, NULL), 0);
		out = b.len ? mpsfix_buf_detach(&b, NULL) : mpsfix_xstrdup("");
		mpsfix_buf_release(&b);
		mpsfix_edits_release(&e);
	}
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
	return out;
}

static void expect(const cond_case *c, char *(*run)(const char *, const char *), int i)
{
	char *got = run(c->body, c->code);

	ck_assert_msg(!strcmp(got, c->want), "case %d: rule\n%s\ncode\n%s\ngot\n%s\nwant\n%s", i,
		      c->body, c->code, got, c->want);
	free(got);
}

/* ---- constraints on metavariables (`where`) ----------------------------------- */

#define F_X "match: 'f($X)'\nwhere:\n  X: "

static const cond_case metavar_cases[] = {
	/* matched while binding: value, not-value, regex, not-regex, kind, not-kind */
	{F_X "{value: [1, 'a']}\n", "f(1)\nf('a')\nf(2)\nf(x)\n", "1:1 2:1"},
	{F_X "{not-value: [1, 'a']}\n", "f(1)\nf('a')\nf(2)\nf(x)\n", "3:1 4:1"},
	{F_X "{not-value: null}\n", "f(None)\nf(0)\nf(none)\n", "2:1 3:1"},
	{F_X "{regex: '^a'}\n", "f(ab)\nf(ba)\n", "1:1"},
	{F_X "{not-regex: '^a'}\n", "f(ab)\nf(ba)\n", "2:1"},
	{F_X "{kind: [integer, float]}\n", "f(1)\nf(1.5)\nf('s')\n", "1:1 2:1"},
	{F_X "{not-kind: [string, concatenated_string]}\n", "f('a')\nf('a' 'b')\nf(d)\nf(1)\n",
	 "3:1 4:1"},
	/* pattern: the code is one of these, dotted names through the imports */
	{F_X "{pattern: torch.float64}\n",
	 "import torch as th\nfrom torch import float64 as f64\n"
	 "f(th.float64)\nf(f64)\nf(np.float64)\nf(th.float32)\nf(float64)\nf(th.float64 + 1)\n",
	 "3:1 4:1"},
	{F_X "{pattern: ['torch.float64', 'torch.double']}\n",
	 "import torch\nf(torch.double)\nf(torch.float64)\nf(torch.half)\n", "2:1 3:1"},
	{F_X "{pattern: 'torch.device(\"mps\")'}\n",
	 "import torch\nf(torch.device('mps'))\nf(torch.device(\"cpu\"))\nf(device(\"mps\"))\n", "2:1"},
	{F_X "{pattern: 'torch.device($D)'}\n", "import torch\nf(torch.device(d))\nf(torch.device())\n",
	 "2:1"},
	/* a local `torch` is not the module */
	{F_X "{pattern: torch.float64}\n", "import torch\ndef g(torch):\n    f(torch.float64)\n", ""},
	/* has / not-has: some node inside the code (or the code itself) matches one */
	{F_X "{has: 'torch.cuda.is_available()'}\n",
	 "import torch\nfrom torch import cuda\nf(torch.cuda.is_available())\n"
	 "f(a and torch.cuda.is_available())\nf(a or (b and cuda.is_available()))\nf(a)\n"
	 "f(torch.cuda.device_count())\n",
	 "3:1 4:1 5:1"},
	{F_X "{not-has: 'torch.cuda.is_available()'}\n",
	 "import torch\nfrom torch import cuda\nf(torch.cuda.is_available())\n"
	 "f(a and torch.cuda.is_available())\nf(a or (b and cuda.is_available()))\nf(a)\n"
	 "f(torch.cuda.device_count())\n",
	 "6:1 7:1"},
	{F_X "{has: ['g()', 'h($Y)']}\n", "f(g())\nf(1 + h(2))\nf(k())\nf(h())\n", "1:1 2:1"},
	{F_X "{not-has: ['g()', 'h($Y)']}\n", "f(g())\nf(1 + h(2))\nf(k())\nf(h())\n", "3:1 4:1"},
	/* any-of: one of the mappings holds */
	{F_X "{any-of: [{value: mps}, {not-kind: [string, concatenated_string]}]}\n",
	 "f('mps')\nf('cpu')\nf(d)\nf('m' 'ps')\n", "1:1 3:1"},
	{F_X "{any-of: [{any-of: [{value: 1}, {value: 2}]}, {kind: identifier, regex: '^a'}]}\n",
	 "f(1)\nf(2)\nf(3)\nf(ab)\nf(b)\nf('ab')\n", "1:1 2:1 4:1"},
	{F_X "{any-of: [{pattern: torch.float64}, {has: 'g()'}]}\n",
	 "import torch\nf(torch.float64)\nf(1 + g())\nf(h())\n", "2:1 3:1"},
	/* any-of next to other keys: all of them hold */
	{F_X "{kind: integer, any-of: [{value: 1}, {value: 2.0}]}\n", "f(1)\nf(2)\nf(2.0)\nf(3)\n",
	 "1:1 2:1"},
	{F_X "{kind: call, has: 'g()', not-has: 'h()'}\n", "f(k(g()))\nf(k(g(), h()))\nf(g)\n", "1:1"},
	/* a constraint holds only where a pattern binds the name */
	{"match: ['f($X)', 'g($Y)']\nwhere:\n  X: {value: 1}\n", "f(1)\nf(2)\ng(2)\n", "1:1 3:1"},
	{"match: ['f($X)', 'g($Y)']\nwhere:\n  X: {pattern: h}\n", "f(h)\nf(k)\ng(k)\n", "1:1 3:1"},
	/* with-item on a metavariable */
	{"match: 'with $C: $$$B'\nwhere:\n  C: {with-item: true}\n", "with a:\n    pass\n", "1:1"},
	{"match: 'with $C: $$$B'\nwhere:\n  C: {with-item: false}\n", "with a:\n    pass\n", ""},
	{"match: '$F($X) or $Y'\nwhere:\n  F: {with-item: false}\n  Y: {with-item: false}\n",
	 "with f(a) or b:\n    pass\n", "1:6"},
	/* pure in `where` does not decide the match (the fix asks for it) */
	{F_X "{pure: true}\n", "f(a.b)\nf(g())\n", "1:1 2:1"},
};

START_TEST(test_cond_metavariables)
{
	expect(&metavar_cases[_i], found, _i);
}
END_TEST

/* ---- MATCH: the whole match ----------------------------------------------------- */

#define WITH_CODE \
	"with open(a):\n" \
	"    pass\n" \
	"with open(b) as f, open(c):\n" \
	"    pass\n" \
	"with (open(d)) as f:\n" \
	"    pass\n" \
	"with (open(e) as f, open(g)):\n" \
	"    pass\n" \
	"with ((open(h))):\n" \
	"    pass\n" \
	"@open(i)\n" \
	"def k(): pass\n" \
	"x = open(j)\n" \
	"with open(k).x:\n" \
	"    pass\n" \
	"with g(open(m)):\n" \
	"    pass\n" \
	"async def n():\n" \
	"    async with open(o) as f:\n" \
	"        pass\n"

#define STMT_CODE \
	"g(1)\n" \
	"y = g(2)\n" \
	"(g(3))\n" \
	"if c: g(4)\n" \
	"a = 1; g(5)\n" \
	"g(6), 1\n" \
	"g(7) + 1\n" \
	"f = lambda: g(8)\n" \
	"g(9)  # c\n" \
	"for x in g(10): pass\n" \
	"def h():\n" \
	"    return g(11)\n" \
	"    g(12);\n"

static const cond_case match_cases[] = {
	/* statement: the only expression of an expression statement, wherever it stands */
	{"match: 'g($P)'\nwhere:\n  MATCH: {statement: true}\n", STMT_CODE, "1:1 4:7 5:8 9:1 13:5"},
	{"match: 'g($P)'\nwhere:\n  MATCH: {statement: false}\n", STMT_CODE,
	 "2:5 3:2 6:1 7:1 8:13 10:10 12:12"},
	/* with-item: `with X:`, `with X as y:`, `with (X):`, async with */
	{"match: 'open($P)'\nwhere:\n  MATCH: {with-item: true}\n", WITH_CODE,
	 "1:6 3:6 3:20 5:7 7:7 7:21 9:8 19:16"},
	/* a decorator, an assignment, an attribute of a with item, an argument are not */
	{"match: 'open($P)'\nwhere:\n  MATCH: {with-item: false}\n", WITH_CODE, "11:2 13:5 14:6 16:8"},
	{"match: ['g($X)', '$X.g']\nwhere:\n  MATCH: {kind: call}\n", "g(1)\na.g\n", "1:1"},
	{"match: ['g($X)', '$X.g']\nwhere:\n  MATCH: {not-kind: call}\n", "g(1)\na.g\n", "2:1"},
	{"match: '$F($X)'\nwhere:\n  MATCH: {not-regex: '^f'}\n", "f(1)\ng(1)\n", "2:1"},
	{"match: '$F($X)'\nwhere:\n  MATCH: {regex: '^f'}\n", "f(1)\ng(1)\n", "1:1"},
	{"match: 'f($$$A)'\nwhere:\n  MATCH: {not-has: 'g()'}\n", "f(1, g())\nf(2)\nf(h(g()))\n", "2:1"},
	{"match: 'f($$$A)'\nwhere:\n  MATCH: {has: 'g()'}\n", "f(1, g())\nf(2)\nf(h(g()))\n", "1:1 3:1"},
	{"match: '$F($$$A)'\nwhere:\n  MATCH: {pattern: 'torch.zeros($$$B)'}\n",
	 "import torch as th\nth.zeros(3)\nth.ones(3)\n", "2:1"},
	{"match: '$F($$$A)'\nwhere:\n  MATCH: {any-of: [{pattern: 'torch.zeros($$$B)'}, {regex: '^z'}]}\n",
	 "import torch as th\nth.zeros(3)\nth.ones(3)\nzeros(1)\n", "2:1 4:1"},
	{"match: '$X = $V'\nwhere:\n  MATCH: {kind: assignment}\n", "a = 1\nb: int = 2\nc += 3\n", "1:1"},
};

START_TEST(test_cond_match)
{
	expect(&match_cases[_i], found, _i);
}
END_TEST

/* ---- used: a value that a function only prints or logs (uses.c) ----------------- */

#define USED "match: 'g($X)'\nwhere:\n  MATCH: {used: true}\n"
#define UNUSED "match: 'g($X)'\nwhere:\n  MATCH: {used: false}\n"

static const cond_case used_cases[] = {
	/* never read, printed, logged: not used */
	{USED, "def f():\n    d = g(1)\n", ""},
	{USED, "def f():\n    d = g(1)\n    print(d)\n", ""},
	{USED, "def f():\n    d = (g(1))\n    print(f'{d!r} {d=}', 'x' f'{d}')\n", ""},
	{USED, "import torch\ndef f():\n    d = torch.device(g(1))\n    log.info('%s', d)\n", ""},
	{USED, "import torch as th\ndef f():\n    d = th.device((g(1)))\n    print(d)\n", ""},
	{USED, "import logging\ndef f(self):\n    d = g(1)\n    logging.debug('{}'.format(d))\n"
	       "    self._logger.warning('%s %s' % (1, d))\n    logging.getLogger(__name__).info(d)\n"
	       "    warnings.warn(f'{d}')\n    LOGGER.error('%s' % d)\n    print('{x}'.format(x=d))\n", ""},
	{USED, "class C:\n    def m(self, xs):\n        d: str = g(1)\n        for x in xs:\n"
	       "            if x:\n                print(x, d)\n", ""},
	{USED, "async def f():\n    d = g(1)\n    print(d)\n", ""},
	/* an attribute's or a keyword's name is not a read */
	{USED, "def f(m):\n    d = g(1)\n    print(d)\n    m.d = 1\n    m.h(d=2)\n", ""},
	/* not torch.device, or not its one argument */
	{USED, "def f():\n    d = device(g(1))\n    print(d)\n", "2:16"},
	{USED, "import torch\ndef f():\n    d = torch.device(g(1), 0)\n    print(d)\n", "3:22"},
	/* other reads are uses */
	{USED, "def f(m):\n    d = g(1)\n    print(d)\n    m.to(d)\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    return d\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    print(1, sep=d)\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    print(str(d))\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    print(f'{1:{d}}')\n", "2:9"},
	{USED, "def f(x):\n    d = g(1)\n    print(x % d)\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    print(d == 'cpu')\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    del d\n", "2:9"},
	/* read in a nested function, lambda, comprehension */
	{USED, "def f():\n    d = g(1)\n    def h():\n        print(d)\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    k = lambda: print(d)\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    print([d for _ in 'ab'])\n", "2:9"},
	/* bound again: rebound, augmented, a parameter, global, nonlocal */
	{USED, "def f():\n    d = g(1)\n    print(d)\n    d = 2\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    d += 'x'\n", "2:9"},
	{USED, "def f(d):\n    d = g(1)\n    print(d)\n", "2:9"},
	{USED, "def f():\n    global d\n    d = g(1)\n", "3:9"},
	{USED, "def f():\n    d = g(1)\n    def h():\n        nonlocal d\n        d = 2\n", "2:9"},
	/* any name may be read */
	{USED, "def f():\n    d = g(1)\n    return locals()\n", "2:9"},
	{USED, "def f():\n    d = g(1)\n    eval('print(d)')\n", "2:9"},
	/* a name of the module or of a class body, an attribute, chained, part of a value */
	{USED, "d = g(1)\n", "1:5"},
	{USED, "d = g(1)\nif __name__ == '__main__':\n    e = g(2)\n", "1:5 3:9"},
	{USED, "class C:\n    d = g(1)\n", "2:9"},
	{USED, "def f(self):\n    self.d = g(1)\n", "2:14"},
	{USED, "def f():\n    a = d = g(1)\n", "2:13"},
	{USED, "def f():\n    d = g(1) + 1\n    e = [g(2)]\n    g(3)\n", "2:9 3:10 4:5"},
	/* print that is not the builtin */
	{USED, "def f(print):\n    d = g(1)\n    print(d)\n", "2:9"},
	{USED, "from rich import print\ndef f():\n    d = g(1)\n    print(d)\n", "3:9"},
	/* handed to a library whose devices are the CPU and CUDA alone */
	{USED, "from faster_whisper import WhisperModel\ndef f():\n    d = g(1)\n    m = WhisperModel('s', device=d)\n", ""},
	{USED, "import ctranslate2\ndef f():\n    d = g(1)\n    t = ctranslate2.Translator(p, d)\n", ""},
	{USED, "from faster_whisper import WhisperModel\ndef f(x):\n    d = g(1)\n    WhisperModel('s', device=d)\n"
	       "    x.to(d)\n", "3:9"},
	{USED, "def f():\n    d = g(1)\n    m = WhisperModel('s', device=d)\n", "2:9"},
	/* used: false, the other way */
	{UNUSED, "def f(m):\n    a = g(1)\n    print(a)\n    b = g(2)\n    m.to(b)\n", "2:9"},
};

START_TEST(test_cond_used)
{
	expect(&used_cases[_i], found, _i);
}
END_TEST

/* In a case's `when` (no memo: the function is read at each question). */
#define USED_CASES \
	"match: 'g($X)'\nfix:\n  safety: safe\n  cases:\n" \
	"    - when: {MATCH: {used: false}}\n      manual: \"only printed\"\n" \
	"    - template: 'h($X)'\n"

static const cond_case used_fix_cases[] = {
	{USED_CASES, "def f():\n    d = g(1)\n    print(d)\n", "MANUAL: only printed"},
	{USED_CASES, "def f():\n    d = g(1)\n    return d\n", "def f():\n    d = h(1)\n    return d\n"},
};

START_TEST(test_cond_used_fix)
{
	expect(&used_fix_cases[_i], fix1, _i);
}
END_TEST

/* ---- signature parameters: passed, and not passed -------------------------------- */

#define SIG "match: 'f($$$A)'\nsignature: 'f(x, dim=None, *, flag=True)'\nwhere:\n"
#define DIM_CODE \
	"f(a)\n" \
	"f(a, 1)\n" \
	"f(a, dim=2)\n" \
	"f(a, dim=g())\n" \
	"f(a, dim='s')\n"

static const cond_case param_cases[] = {
	/* a parameter that was not passed (line 1) satisfies only absent: true and
	 * the negations */
	{SIG "  dim: {absent: true}\n", DIM_CODE, "1:1"},
	{SIG "  dim: {absent: false}\n", DIM_CODE, "2:1 3:1 4:1 5:1"},
	{SIG "  dim: {value: 1}\n", DIM_CODE, "2:1"},
	{SIG "  dim: {not-value: 1}\n", DIM_CODE, "1:1 3:1 4:1 5:1"},
	{SIG "  dim: {kind: integer}\n", DIM_CODE, "2:1 3:1"},
	{SIG "  dim: {not-kind: integer}\n", DIM_CODE, "1:1 4:1 5:1"},
	{SIG "  dim: {regex: '^[0-9]'}\n", DIM_CODE, "2:1 3:1"},
	{SIG "  dim: {not-regex: '^[0-9]'}\n", DIM_CODE, "1:1 4:1 5:1"},
	{SIG "  dim: {pattern: 'g()'}\n", DIM_CODE, "4:1"},
	{SIG "  dim: {has: 'g()'}\n", DIM_CODE, "4:1"},
	{SIG "  dim: {not-has: 'g()'}\n", DIM_CODE, "1:1 2:1 3:1 5:1"},
	{SIG "  dim: {with-item: true}\n", DIM_CODE, ""},
	{SIG "  dim: {with-item: false}\n", DIM_CODE, "1:1 2:1 3:1 4:1 5:1"},
	{SIG "  dim: {statement: true}\n", DIM_CODE, ""},
	{SIG "  dim: {statement: false}\n", DIM_CODE, "1:1 2:1 3:1 4:1 5:1"},
	{SIG "  dim: {pure: true}\n", DIM_CODE, "1:1 2:1 3:1 4:1 5:1"},
	/* absent wins over the other keys of its mapping when not passed */
	{SIG "  dim: {absent: true, value: 1}\n", DIM_CODE, "1:1"},
	{SIG "  dim: {absent: false, not-value: 1}\n", DIM_CODE, "3:1 4:1 5:1"},
	/* any-of, nested, with and without a branch that holds for "not passed" */
	{SIG "  dim: {any-of: [{absent: true}, {value: 2}]}\n", DIM_CODE, "1:1 3:1"},
	{SIG "  dim: {any-of: [{value: 1}, {any-of: [{kind: string}, {absent: true}]}]}\n", DIM_CODE,
	 "1:1 2:1 5:1"},
	{SIG "  dim: {any-of: [{value: 1}, {kind: call}]}\n", DIM_CODE, "2:1 4:1"},
	{SIG "  dim: {any-of: [{not-value: 1}]}\n", DIM_CODE, "1:1 3:1 4:1 5:1"},
	/* a keyword-only parameter; two parameters; a parameter and a metavariable */
	{SIG "  flag: {value: false}\n", "f(a, flag=False)\nf(a, flag=True)\nf(a)\n", "1:1"},
	{SIG "  flag: {absent: true}\n  dim: {absent: false}\n",
	 "f(a, flag=False)\nf(a, 1)\nf(a)\nf(a, 1, flag=True)\n", "2:1"},
	{"match: '$F($$$A)'\nsignature: 'f(x, dim=None)'\nwhere:\n  F: {pattern: torch.sum}\n"
	 "  x: {kind: identifier}\n",
	 "import torch\ntorch.sum(a)\ntorch.sum(a.b)\ntorch.mean(a)\n", "2:1"},
	/* a parameter whose name starts with an underscore; one of digits and underscores is a
	 * metavariable */
	{"match: 'f($$$A)'\nsignature: 'f(x, _dim=None)'\nwhere:\n  _dim: {absent: true}\n",
	 "f(a)\nf(a, 1)\n", "1:1"},
	{"match: 'f($_1)'\nwhere:\n  _1: {value: 1}\n", "f(1)\nf(2)\n", "1:1"},
	/* constrained on both: the call must bind */
	{SIG "  x: {kind: identifier}\n", "f(a)\nf(1)\nf(*a)\n", "1:1"},
};

START_TEST(test_cond_params)
{
	expect(&param_cases[_i], found, _i);
}
END_TEST

/* ---- calls that cannot be bound to the signature --------------------------------- */

#define UNBOUND_CODE "f(a)\nf(*a)\nf(a, **k)\nf(a, 1, 2)\n"

static const cond_case unbound_cases[] = {
	/* constraining a parameter: such calls are not reported */
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nwhere:\n  dim: {not-value: 1}\n",
	 UNBOUND_CODE, "1:1"},
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nwhere:\n  dim: {absent: true}\n",
	 UNBOUND_CODE, "1:1"},
	/* otherwise they are findings, with a manual fix */
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\n", UNBOUND_CODE, "1:1 2:1 3:1 4:1"},
	{"match: '$F($$$A)'\nsignature: 'f(x, dim=None)'\nwhere:\n  F: {pattern: f}\n", UNBOUND_CODE,
	 "1:1 2:1 3:1 4:1"},
	/* a parameter named only in a case's `when` does not hide them */
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {dim: {absent: true}}\n      template: g($x)\n    - manual: \"other\"\n",
	 UNBOUND_CODE, "1:1 2:1 3:1 4:1"},
};

START_TEST(test_cond_unbound_calls)
{
	expect(&unbound_cases[_i], found, _i);
}
END_TEST

#define UNBOUND_FIX "match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n  template: 'g($x)'\n"

static const cond_case unbound_fix_cases[] = {
	{UNBOUND_FIX, "f(a)\n", "g(a)\n"},
	{UNBOUND_FIX, "f(*a)\n", "MANUAL: *args in the call makes its arguments unknown"},
	{UNBOUND_FIX, "f(a, **k)\n", "MANUAL: **kwargs in the call makes its arguments unknown"},
	{UNBOUND_FIX, "f(a, 1, 2)\n",
	 "MANUAL: ambiguous call: no signature of f declared by the rule fits these arguments"},
};

START_TEST(test_cond_unbound_fixes)
{
	expect(&unbound_fix_cases[_i], fix1, _i);
}
END_TEST

/* ---- inside, not-inside -------------------------------------------------------------- */

static const cond_case inside_cases[] = {
	/* an enclosing node matches, at any depth; the match itself does not count */
	{"match: 'f($X)'\ninside: 'g($$$A)'\n", "g(f(1))\ng(h(f(2)))\nf(3)\nh(f(4))\ng(1)[f(5)]\n",
	 "1:3 2:5"},
	{"match: 'g($X)'\ninside: 'g($$$A)'\n", "g(g(1))\ng(1)\n", "1:3"},
	/* $MATCH: the enclosing node holds the match right there, maybe in parentheses */
	{"match: 'f($X)'\ninside: 'g($MATCH)'\n",
	 "g(f(1))\ng(h(f(2)))\ng((f(3)))\ng(((f(4))))\ng(f(5), 1)\n", "1:3 3:4 4:5"},
	{"match: 'f($X)'\ninside: 'g($MATCH)'\n", "g((  # why\n  f(1)))\n", "2:3"},
	{"match: 'f($X)'\ninside: 'g($$$A, k=$MATCH)'\n", "g(1, k=f(1))\ng(f(2), k=2)\ng(k=(f(3)))\n",
	 "1:8 3:6"},
	/* a list: any of them */
	{"match: 'f($X)'\ninside: ['g($MATCH)', '$N = $MATCH']\n",
	 "g(f(1))\nx = f(2)\nx = (f(3))\nx = h(f(4))\n", "1:3 2:5 3:6"},
	/* a statement that encloses the match */
	{"match: 'f($X)'\ninside: 'with $C: $$$B'\n", "with a:\n    f(1)\nf(2)\n", "2:5"},
	/* metavariables of inside patterns may be constrained in `where` */
	{"match: 'f($X)'\ninside: '$N = $MATCH'\nwhere:\n  N: {regex: pin}\n",
	 "pin_memory = f(1)\nother = f(2)\n", "1:14"},
	{"match: 'f($X)'\ninside: ['g($MATCH)', '$N = $MATCH']\nwhere:\n  N: {regex: pin}\n  X: {value: 1}\n",
	 "g(f(1))\ng(f(2))\npin = f(1)\nno = f(1)\n", "1:3 3:7"},
	/* ... with the constraints that need the matcher or the tree too */
	{"match: 'f($X)'\ninside: 'g($$$A, h=$N)'\nwhere:\n  N: {pattern: foo}\n",
	 "g(f(1), h=bar)\ng(f(2), h=foo)\n", "2:3"},
	{"match: 'f($X)'\ninside: 'g($$$A, h=$N)'\nwhere:\n  N: {any-of: [{has: foo}, {value: 1}]}\n",
	 "g(f(1), h=bar)\ng(f(2), h=foo.x)\ng(f(3), h=1)\n", "2:3 3:3"},
	{"match: 'f($X)'\ninside: 'with $C: $$$B'\nwhere:\n  C: {not-has: nullcontext()}\n",
	 "with a:\n    f(1)\nwith b or nullcontext():\n    f(2)\n", "2:5"},
	/* an enclosing node that matches without meeting them does not count, another may */
	{"match: 'f($X)'\ninside: 'g($$$A, h=$N)'\nwhere:\n  N: {pattern: foo}\n",
	 "g(g(f(1), h=bar), h=foo)\n", "1:5"},
	/* a name the match binds binds the same code in an inside pattern */
	{"match: 'f($X)'\ninside: 'g($X, $MATCH)'\n", "g(1, f(1))\ng(2, f(1))\ng(a.b, f(a . b))\n",
	 "1:6 3:8"},
	{"match: 'f($$$A)'\ninside: 'g($$$A, $MATCH)'\n", "g(1, 2, f(1, 2))\ng(1, f(1, 2))\ng(f())\n",
	 "1:9 3:3"},
	{"match: 'f($$$A)'\ninside: 'g($A, $MATCH)'\n", "g(1, f(1))\ng(1, f(1, 2))\ng(1, f())\n", "1:6"},
	{"match: 'f($X)'\nnot-inside: 'g($X, $MATCH)'\n", "g(1, f(1))\ng(2, f(1))\n", "2:6"},
	/* not-inside: no enclosing node matches any */
	{"match: 'f($X)'\nnot-inside: 'g($$$A)'\n", "g(f(1))\nf(2)\nh(f(3))\n", "2:1 3:3"},
	{"match: 'f($X)'\nnot-inside: ['g($MATCH)', 'h($MATCH)']\n",
	 "g(f(1))\ng(k(f(2)))\nf(3)\nh((f(4)))\n", "2:5 3:1"},
	{"match: 'f($X)'\ninside: 'g($$$A)'\nnot-inside: 'h($$$A)'\n", "g(f(1))\nh(g(f(2)))\ng(h(f(3)))\n",
	 "1:3"},
	/* MPS005's guard: not inside a conditional that already picks a null context */
	{"match: 'torch.autocast($$$ARGS)'\n"
	 "not-inside: '$A if $D != \"mps\" else contextlib.nullcontext()'\n",
	 "import torch\nwith torch.autocast(d):\n    pass\n"
	 "with (torch.autocast(d) if d != 'mps' else contextlib.nullcontext()):\n    pass\n",
	 "2:6"},
};

START_TEST(test_cond_inside)
{
	expect(&inside_cases[_i], found, _i);
}
END_TEST

/* ---- after-import ------------------------------------------------------------------- */

#define AFTER "match: 'setup($X)'\nafter-import: torch\n"

static const cond_case after_import_cases[] = {
	{AFTER, "import torch\nsetup(1)\n", "2:1"},
	{AFTER, "setup(1)\nimport torch\n", ""},
	{AFTER, "setup(1)\nimport torch\nsetup(2)\n", "3:1"},
	{AFTER, "import torch\ndef g():\n    setup(1)\n", ""},
	{AFTER, "import torch\nif c:\n    setup(1)\n", ""},
	{AFTER, "import torch\nclass C:\n    setup(1)\n", ""},
	{AFTER, "from torch import nn\nsetup(1)\n", "2:1"},
	{AFTER, "from torch.utils.data import DataLoader\nsetup(1)\n", "2:1"},
	{AFTER, "import torch.nn as nn\nsetup(1)\n", "2:1"},
	{AFTER, "import torch as th\nsetup(1)\n", "2:1"},
	{AFTER, "import os, torch\nsetup(1)\n", "2:1"},
	{AFTER, "import torch; setup(1)\n", "1:15"},
	/* not torch's import */
	{AFTER, "import torchvision\nsetup(1)\n", ""},
	{AFTER, "from . import torch\nsetup(1)\n", ""},
	{AFTER, "from .torch import x\nsetup(1)\n", ""},
	{AFTER, "setup(1)\n", ""},
	/* only imports directly in the module count */
	{AFTER, "def g():\n    import torch\nsetup(1)\n", ""},
	{AFTER, "try:\n    import torch\nexcept ImportError:\n    pass\nsetup(1)\n", ""},
	/* the match must be the statement (or its only expression) */
	{AFTER, "import torch\nx = setup(1)\n", ""},
	{AFTER, "import torch\nsetup(1) or 2\n", ""},
	{"match: 'os.environ[$K] = $V'\nafter-import: torch\n",
	 "import os\nimport torch\nos.environ['A'] = '1'\nif c:\n    os.environ['B'] = '1'\n", "3:1"},
};

START_TEST(test_cond_after_import)
{
	expect(&after_import_cases[_i], found, _i);
}
END_TEST

/* ---- cases of a fix ----------------------------------------------------------------- */

#define CASES \
	"match: 'f($X)'\n" \
	"fix:\n" \
	"  safety: safe\n" \
	"  cases:\n" \
	"    - when: {X: {value: 1}}\n" \
	"      template: 'one()'\n" \
	"    - when: {X: {kind: integer}}\n" \
	"      template: 'integer()'\n" \
	"    - when: {X: {kind: string}}\n" \
	"      manual: \"a string\"\n" \
	"    - when: {X: {pure: true}, MATCH: {with-item: false}}\n" \
	"      template: 'g($X, $X)'\n" \
	"    - when: {MATCH: {with-item: true}}\n" \
	"      template: 'ctx($X)'\n"

static const cond_case case_cases[] = {
	/* the first case whose `when` holds */
	{CASES, "f(1)\n", "one()\n"},
	{CASES, "f(2)\n", "integer()\n"},
	{CASES, "f('s')\n", "MANUAL: a string"},
	/* `pure: true` in `when` asks the code to be pure now */
	{CASES, "f(a.b)\n", "g(a.b, a.b)\n"},
	{CASES, "with f(a.b):\n    pass\n", "with ctx(a.b):\n    pass\n"},
	{CASES, "with f(k()):\n    pass\n", "with ctx(k()):\n    pass\n"},
	/* none holds */
	{CASES, "x = f(k())\n", "MANUAL: no form of the fix applies to this code"},
	/* a pattern that does not bind X: conditions on X hold */
	{"match: ['f($X)', 'g()']\nfix:\n  safety: safe\n  cases:\n    - when: {X: {value: 1}}\n"
	 "      template: 'one()'\n    - template: 'two()'\n",
	 "g()\n", "one()\n"},
	{"match: ['f($X)', 'g()']\nfix:\n  safety: safe\n  cases:\n    - when: {X: {value: 1}}\n"
	 "      template: 'one()'\n    - template: 'two()'\n",
	 "f(2)\n", "two()\n"},
	/* the last case may leave out `when` */
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n    - when: {X: {value: 1}}\n"
	 "      remove: $X\n    - template: 'g($X)'\n",
	 "f(1)\n", "f()\n"},
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n    - when: {X: {value: 1}}\n"
	 "      remove: $X\n    - template: 'g($X)'\n",
	 "f(2)\n", "g(2)\n"},
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n    - when: {X: {value: 1}}\n"
	 "      remove: $X\n    - manual: \"anything else\"\n",
	 "f(2)\n", "MANUAL: anything else"},
	/* a case with edits */
	{"match: 'f($X, $Y)'\nfix:\n  safety: safe\n  cases:\n    - when: {Y: {value: 0}}\n"
	 "      edits:\n        - remove: $Y\n        - replace: $X\n          template: 'k($X)'\n",
	 "f(a, 0)\n", "f(k(a))\n"},
	/* when: any-of, several keys (all hold), not-has */
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {X: {any-of: [{value: 1}, {has: 'g()'}], not-has: 'h()'}}\n"
	 "      template: 'yes($X)'\n    - template: 'no($X)'\n",
	 "f(g() + h())\n", "no(g() + h())\n"},
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {X: {any-of: [{value: 1}, {has: 'g()'}], not-has: 'h()'}}\n"
	 "      template: 'yes($X)'\n    - template: 'no($X)'\n",
	 "f(g() + 1)\n", "yes(g() + 1)\n"},
	/* when on parameters: passed or not, pure now */
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {dim: {absent: true}}\n      template: 'g($x, dim=None)'\n"
	 "    - when: {dim: {pure: true}}\n      template: 'g($x, dim=$dim)'\n"
	 "    - manual: \"an expression\"\n",
	 "f(a)\n", "g(a, dim=None)\n"},
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {dim: {absent: true}}\n      template: 'g($x, dim=None)'\n"
	 "    - when: {dim: {pure: true}}\n      template: 'g($x, dim=$dim)'\n"
	 "    - manual: \"an expression\"\n",
	 "f(a, d)\n", "g(a, dim=d)\n"},
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {dim: {absent: true}}\n      template: 'g($x, dim=None)'\n"
	 "    - when: {dim: {pure: true}}\n      template: 'g($x, dim=$dim)'\n"
	 "    - manual: \"an expression\"\n",
	 "f(a, h())\n", "MANUAL: an expression"},
	/* a parameter not passed is pure */
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {dim: {pure: true}}\n      template: 'g($x)'\n",
	 "f(a)\n", "g(a)\n"},
	/* pure in an any-of of `when`: now too */
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {X: {any-of: [{pure: true}, {kind: call}]}}\n      template: 'g($X)'\n",
	 "f(a)\n", "g(a)\n"},
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {X: {any-of: [{pure: true}, {kind: call}]}}\n      template: 'g($X)'\n",
	 "f(h())\n", "g(h())\n"},
	{"match: 'f($X)'\nfix:\n  safety: safe\n  cases:\n"
	 "    - when: {X: {any-of: [{pure: true}, {kind: call}]}}\n      template: 'g($X)'\n",
	 "f(a + 1)\n", "MANUAL: no form of the fix applies to this code"},
	/* the unsafe flag of the fix holds for every case */
	{"match: 'f($X)'\nfix:\n  safety: unsafe\n  cases:\n    - when: {X: {value: 1}}\n"
	 "      template: 'g()'\n",
	 "f(1)\n", "g()\n"},
};

START_TEST(test_cond_cases)
{
	expect(&case_cases[_i], fix1, _i);
}
END_TEST

/* A rule's fix cases through every pass of a run. */
START_TEST(test_cond_cases_whole_run)
{
	static const char rule[] =
		HEAD
		"match: 'f($X)'\n"
		"fix:\n"
		"  safety: safe\n"
		"  cases:\n"
		"    - when: {X: {kind: integer}}\n"
		"      template: 'g($X)'\n"
		"    - manual: \"not an integer\"\n";
	char *got = tu_fix_yaml(rule, "a = f(1)\nb = f(2)\n");

	ck_assert_str_eq(got, "a = g(1)\nb = g(2)\n");
	free(got);
	got = tu_fix_yaml(rule, "a = f(1)\nb = f(x)\n");
	ck_assert_str_eq(got, "MANUAL: not an integer");
	free(got);
}
END_TEST

/* ---- add-argument ----------------------------------------------------------------- */

#define ADD "match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'e=0'\n"

static const cond_case add_cases[] = {
	{ADD, "f()\n", "f(e=0)\n"},
	{ADD, "f(a)\n", "f(a, e=0)\n"},
	{ADD, "f(a, b=1)\n", "f(a, b=1, e=0)\n"},
	/* after the last argument, before a trailing comma or comment */
	{ADD, "f(a,)\n", "f(a, e=0,)\n"},
	{ADD, "f(a,  # c\n)\n", "f(a, e=0,  # c\n)\n"},
	{ADD, "f(a  # c\n)\n", "f(a, e=0  # c\n)\n"},
	{ADD, "f(  # c\n)\n", "f(e=0  # c\n)\n"},
	{ADD, "f(\n    a,\n    b\n)\n", "f(\n    a,\n    b, e=0\n)\n"},
	{ADD, "f(\n    a,\n    b,\n)\n", "f(\n    a,\n    b, e=0,\n)\n"},
	{ADD, "f(\n    a,  # one\n    b,  # two\n)\n", "f(\n    a,  # one\n    b, e=0,  # two\n)\n"},
	/* after splats: still valid Python */
	{ADD, "f(a, **kw)\n", "f(a, **kw, e=0)\n"},
	{ADD, "f(*a)\n", "f(*a, e=0)\n"},
	/* Python refuses a keyword argument given twice */
	{ADD, "f(a, e=1)\n", "MANUAL: the call passes `e=` already"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: ' e = 0'\n", "f(e=1)\n",
	 "MANUAL: the call passes `e=` already"},
	{ADD, "f(a, ee=1, e2=3)\n", "f(a, ee=1, e2=3, e=0)\n"},
	/* or a positional argument after keywords or `**`, or `*` after `**` */
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'e == 0'\n", "f(e=1)\n",
	 "MANUAL: the new argument is positional, and the call has keyword arguments"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'e == 0'\n", "f(a, *b)\n",
	 "f(a, *b, e == 0)\n"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'e'\n", "f(**k)\n",
	 "MANUAL: the new argument would follow `**` unpacking"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: '*e'\n", "f(a=1, **k)\n",
	 "MANUAL: the new argument would follow `**` unpacking"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: '*e'\n", "f(a=1)\n", "f(a=1, *e)\n"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: '*e'\n", "f(a)\n", "f(a, *e)\n"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: '*e'\n", "f()\n", "f(*e)\n"},
	/* (a starred argument replacing another one too) */
	{"match: 'f($X, $Y)'\nfix:\n  safety: safe\n  replace: $Y\n  template: '*$X'\n",
	 "f(a, b)\n", "f(a, *a)\n"},
	/* an argument needs no parentheses, whatever the call is part of */
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'x if y else z'\n", "f(a).g()\n",
	 "f(a, x if y else z).g()\n"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'lambda: 0'\n", "-f()\n",
	 "-f(lambda: 0)\n"},
	/* a generator argument is not an argument list */
	{"match: 'f($E for $V in $I)'\nfix:\n  safety: safe\n  add-argument: 'e=0'\n",
	 "f(x for x in y)\n", "MANUAL: 'add-argument' needs a call with an argument list"},
	/* a template with the match's code, names through the imports */
	{"match: 'f($X)'\nfix:\n  safety: safe\n  add-argument: 'n=len($X)'\n", "f(x)\n",
	 "f(x, n=len(x))\n"},
	{"match: 'f($X)'\nfix:\n  safety: safe\n  add-argument: 'n=len($X)'\n", "f(g())\n",
	 "MANUAL: `g()` would be evaluated twice"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'device=torch.device(\"cpu\")'\n",
	 "import torch as th\nf(a)\n", "import torch as th\nf(a, device=th.device(\"cpu\"))\n"},
	{"match: 'f($$$A)'\nfix:\n  safety: safe\n  add-argument: 'device=torch.device(\"cpu\")'\n",
	 "f(a)\n", "import torch\n\nf(a, device=torch.device(\"cpu\"))\n"},
	/* the match is not a call */
	{"match: 'a.b'\nfix:\n  safety: safe\n  add-argument: 'e=0'\n", "x = a.b\n",
	 "MANUAL: 'add-argument' needs a call with an argument list"},
	/* with other edits: a replaced last argument, the new one after it */
	{"match: 'f($$$A, $X)'\nfix:\n  safety: safe\n  edits:\n    - replace: $X\n"
	 "      template: 'k'\n    - add-argument: 'e=0'\n",
	 "f(a, b)\n", "f(a, k, e=0)\n"},
	{"match: 'f($X, $$$A)'\nfix:\n  safety: safe\n  edits:\n    - replace: $X\n"
	 "      template: '0'\n    - add-argument: 'e=$X'\n",
	 "f(a, b)\n", "f(0, b, e=a)\n"},
};

START_TEST(test_cond_add_argument)
{
	expect(&add_cases[_i], fix1, _i);
}
END_TEST

/* ---- replacing a parameter -------------------------------------------------------- */

#define REPLACE_DIM "match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n" \
	"  replace: dim\n  template: '0'\n"

static const cond_case replace_param_cases[] = {
	{REPLACE_DIM, "f(a, dim=d)\n", "f(a, dim=0)\n"},
	{REPLACE_DIM, "f(a, d)\n", "f(a, 0)\n"},
	{REPLACE_DIM, "f(dim=d, x=a)\n", "f(dim=0, x=a)\n"},
	{REPLACE_DIM, "f(a)\n", "MANUAL: dim was not passed"},
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nfix:\n  safety: safe\n"
	 "  replace: $dim\n  template: '($dim, $x)'\n",
	 "f(a, d)\n", "f(a, (d, a))\n"},
};

START_TEST(test_cond_replace_param)
{
	expect(&replace_param_cases[_i], fix1, _i);
}
END_TEST

/* ---- code in exclusive branches of a conditional ------------------------------------ */

#define TWICE(tmpl) "match: 'f($X)'\nfix:\n  safety: safe\n  template: '" tmpl "'\n"

static const cond_case exclusive_cases[] = {
	/* only one branch runs: h() once */
	{TWICE("($X.g() if c else $X)"), "f(h())\n", "(h().g() if c else h())\n"},
	{TWICE("(($X if a else $X) if c else $X)"), "f(h())\n", "((h() if a else h()) if c else h())\n"},
	{TWICE("(($X if a else 0) if c else $X)"), "f(h())\n", "((h() if a else 0) if c else h())\n"},
	{TWICE("(0 if c else ($X if a else $X))"), "f(h())\n", "(0 if c else (h() if a else h()))\n"},
	/* the condition runs with either branch */
	{TWICE("($X if $X.ok() else 0)"), "f(h())\n", "MANUAL: `h()` would be evaluated twice"},
	{TWICE("(0 if $X else $X.g())"), "f(h())\n", "MANUAL: `h()` would be evaluated twice"},
	/* not one conditional */
	{TWICE("($X.g(), $X)"), "f(h())\n", "MANUAL: `h()` would be evaluated twice"},
	{TWICE("[$X if a else 0, $X if b else 0]"), "f(h())\n", "MANUAL: `h()` would be evaluated twice"},
	{TWICE("(($X if a else 0) if c else 0) + $X"), "f(h())\n", "MANUAL: `h()` would be evaluated twice"},
	/* pure code may be copied anyway */
	{TWICE("($X.g(), $X)"), "f(a.b)\n", "(a.b.g(), a.b)\n"},
	/* the original stays in the file: it runs as well as the template */
	{"match: 'f($X, $Y)'\nfix:\n  safety: safe\n  replace: $Y\n  template: '($X if c else $X)'\n",
	 "f(h(), y)\n", "MANUAL: `h()` would be evaluated twice"},
	{"match: 'f($X, $Y)'\nfix:\n  safety: safe\n  replace: $Y\n  template: '($X if c else $X)'\n",
	 "f(a, y)\n", "f(a, a if c else a)\n"},
	/* $$$ARGS in one branch, one of its arguments (by parameter) in the other */
	{"match: 'f($$$A)'\nsignature: 'f(x)'\nfix:\n  safety: safe\n  template: '(g($$$A) if c else $x)'\n",
	 "f(h())\n", "(g(h()) if c else h())\n"},
	{"match: 'f($$$A)'\nsignature: 'f(x)'\nfix:\n  safety: safe\n"
	 "  template: '(g($$$A) if $x != 1 else 0)'\n",
	 "f(h())\n", "MANUAL: `h()` would be evaluated twice"},
	/* two edits are two places */
	{"match: 'f($X, $Y, $Z)'\nfix:\n  safety: safe\n  edits:\n    - replace: $Y\n"
	 "      template: '$X if c else 0'\n    - replace: $Z\n      template: '0 if c else $X'\n",
	 "f(h(), y, z)\n", "MANUAL: `h()` would be evaluated twice"},
};

START_TEST(test_cond_exclusive_branches)
{
	expect(&exclusive_cases[_i], fix1, _i);
}
END_TEST

/* ---- pure in `where`: the fix's business ---------------------------------------------- */

static const cond_case pure_cases[] = {
	{"match: 'f($X)'\nwhere:\n  X: {pure: true}\nfix:\n  safety: safe\n  template: 'g($X)'\n",
	 "f(a.b)\n", "g(a.b)\n"},
	{"match: 'f($X)'\nwhere:\n  X: {pure: true}\nfix:\n  safety: safe\n  template: 'g($X)'\n",
	 "f(h())\n", "MANUAL: `h()` would be evaluated twice"},
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nwhere:\n  dim: {pure: true}\n"
	 "fix:\n  safety: safe\n  template: 'g($x)'\n",
	 "f(a, d)\n", "g(a)\n"},
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nwhere:\n  dim: {pure: true}\n"
	 "fix:\n  safety: safe\n  template: 'g($x)'\n",
	 "f(a, h())\n", "MANUAL: `h()` would be evaluated twice"},
	/* a parameter that was not passed is pure (this crashed) */
	{"match: 'f($$$A)'\nsignature: 'f(x, dim=None)'\nwhere:\n  dim: {pure: true}\n"
	 "fix:\n  safety: safe\n  template: 'g($x)'\n",
	 "f(a)\n", "g(a)\n"},
	/* MATCH: the whole match */
	{"match: '$X.y'\nwhere:\n  MATCH: {pure: true}\nfix:\n  safety: safe\n  template: '$X.z'\n",
	 "a.b.y\n", "a.b.z\n"},
	{"match: '$X.y'\nwhere:\n  MATCH: {pure: true}\nfix:\n  safety: safe\n  template: '$X.z'\n",
	 "g().y\n", "MANUAL: `g().y` would be evaluated twice"},
};

START_TEST(test_cond_pure_in_where)
{
	expect(&pure_cases[_i], fix1, _i);
}
END_TEST

/* ---- a dotted name alone matches a bare imported name -------------------------------- */

static const cond_case qname_cases[] = {
	{"match: torch.float64\n", "import torch as th\nx = th.float64\n", "2:5"},
	{"match: torch.float64\n", "from numpy import float64\nx = float64\n", ""},
	{"match: torch.float64\n", "x = float64\n", ""},
	/* only where the code reads the name: not in the import, an attribute, a keyword */
	{"match: torch.float64\n", "from torch import float64 as f64\nx = f64\n", "2:5"},
	{"match: torch.float64\n",
	 "from torch import float64\nimport torch\nx = float64\ny = a.float64\nz = torch.float64\n"
	 "f(float64=1)\n",
	 "3:5 5:5"},
	{"match: torch.float64\n", "from torch import float64\ndef g(float64):\n    return float64\n", ""},
	{"match: 'f($X)'\nwhere:\n  X: {not-has: torch.float64}\n",
	 "from torch import float64\nf(a.float64)\nf(float64)\nf(b(dtype=float64))\n", "2:1"},
	/* MPS003's shape: the callee through a metavariable */
	{"match: '$F($$$A)'\nwhere:\n  F: {pattern: ['torch.std', 'torch.var']}\n",
	 "from torch import var as tvar\nimport torch\ntvar(x)\ntorch.std(x)\ntorch.mean(x)\nnp.std(x)\n",
	 "3:1 4:1"},
};

START_TEST(test_cond_qualified_root)
{
	expect(&qname_cases[_i], found, _i);
}
END_TEST

Suite *mpsfix_suite_cond(void)
{
	Suite *s = suite_create("cond");
	TCase *where = tcase_create("where");
	TCase *rule = tcase_create("rule");
	TCase *fix = tcase_create("fix");

	tcase_add_loop_test(where, test_cond_metavariables, 0, (int)MPSFIX_ARRAY_SIZE(metavar_cases));
	tcase_add_loop_test(where, test_cond_match, 0, (int)MPSFIX_ARRAY_SIZE(match_cases));
	tcase_add_loop_test(where, test_cond_used, 0, (int)MPSFIX_ARRAY_SIZE(used_cases));
	tcase_add_loop_test(where, test_cond_used_fix, 0, (int)MPSFIX_ARRAY_SIZE(used_fix_cases));
	tcase_add_loop_test(where, test_cond_params, 0, (int)MPSFIX_ARRAY_SIZE(param_cases));
	tcase_add_loop_test(where, test_cond_unbound_calls, 0, (int)MPSFIX_ARRAY_SIZE(unbound_cases));
	tcase_add_loop_test(where, test_cond_qualified_root, 0, (int)MPSFIX_ARRAY_SIZE(qname_cases));
	suite_add_tcase(s, where);

	tcase_add_loop_test(rule, test_cond_inside, 0, (int)MPSFIX_ARRAY_SIZE(inside_cases));
	tcase_add_loop_test(rule, test_cond_after_import, 0, (int)MPSFIX_ARRAY_SIZE(after_import_cases));
	suite_add_tcase(s, rule);

	tcase_add_loop_test(fix, test_cond_unbound_fixes, 0, (int)MPSFIX_ARRAY_SIZE(unbound_fix_cases));
	tcase_add_loop_test(fix, test_cond_cases, 0, (int)MPSFIX_ARRAY_SIZE(case_cases));
	tcase_add_test(fix, test_cond_cases_whole_run);
	tcase_add_loop_test(fix, test_cond_add_argument, 0, (int)MPSFIX_ARRAY_SIZE(add_cases));
	tcase_add_loop_test(fix, test_cond_replace_param, 0, (int)MPSFIX_ARRAY_SIZE(replace_param_cases));
	tcase_add_loop_test(fix, test_cond_exclusive_branches, 0, (int)MPSFIX_ARRAY_SIZE(exclusive_cases));
	tcase_add_loop_test(fix, test_cond_pure_in_where, 0, (int)MPSFIX_ARRAY_SIZE(pure_cases));
	suite_add_tcase(s, fix);
	return s;
}
