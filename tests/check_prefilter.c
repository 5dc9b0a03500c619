/* check_prefilter.c: the words derived for rules, the scan, and files skipped unparsed. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "prefilter.h"
#include "text.h"
#include "tests.h"
#include "testutil.h"

/* The requirement of every shipped rule, as derived from its file. */
static const struct {
	const char *id, *words;
} shipped[] = {
	{"autocast-mps-fp16", "autocast & (float16 | half)"},
	{"autocast-mps-unsupported", "autocast"},
	{"cuda-device-default", "cuda"},
	{"cuda-empty-cache", "empty_cache"},
	{"cuda-synchronize", "synchronize"},
	{"dataloader-pin-memory", "DataLoader & pin_memory"},
	{"device-selection-skips-mps", "is_available"},
	{"float64-on-mps", "(dtype & device & (float64 | double)) | (to & (float64 | double)) | (to & double)"},
	{"grad-scaler-mps", "GradScaler"},
	{"hard-coded-cuda", "cuda"},
	{"linalg-cpu-fallback", "svdvals | eig | eigh | eigvals | qr | lstsq | svd | ctc_loss"},
	{"mps-fallback-env-after-import",
	 "((environ & PYTORCH_ENABLE_MPS_FALLBACK) | (setdefault & PYTORCH_ENABLE_MPS_FALLBACK)) & torch"},
	{"pin-memory-mps-guard", "is_available"},
	{"std-mean", "std_mean"},
	{"std-var-default-correction", "std | var"},
	{"tensor-pin-memory", "pin_memory"},
	{"to-mps-non-blocking", "to & non_blocking"},
	{"var-mean", "var_mean"},
};

START_TEST(test_prefilter_shipped_rules)
{
	mpsfix_rule *r = NULL;
	char *path = mpsfix_xasprintf("%s/rules/%s.yml", mpsfix_test_top(), shipped[_i].id);
	char *words;
	mpsfix_prefilter *pf;

	ck_assert_msg(mpsfix_rule_load_file(&r, tu_parser(), path) == 0, "%s", mpsfix_error_last()->message);
	words = mpsfix_prefilter_describe(r);
	ck_assert_str_eq(words, shipped[_i].words);
	pf = mpsfix_prefilter_new(&r, 1);
	ck_assert(mpsfix_prefilter_selective(pf));
	mpsfix_prefilter_free(pf);
	free(words);
	free(path);
	mpsfix_rule_free(r);
}
END_TEST

/* The whole catalog is selective, and every rule file in rules/ is in the table. */
START_TEST(test_prefilter_catalog_selective)
{
	mpsfix_ruleset set = MPSFIX_RULESET_INIT;
	char *dir = mpsfix_xasprintf("%s/rules", mpsfix_test_top());
	mpsfix_prefilter *pf;

	ck_assert_int_eq(mpsfix_ruleset_load(&set, tu_parser(), dir), 0);
	ck_assert_uint_eq(set.len, MPSFIX_ARRAY_SIZE(shipped));
	for (size_t i = 0; i < set.len; i++) {
		bool found = false;

		for (size_t k = 0; k < MPSFIX_ARRAY_SIZE(shipped) && !found; k++)
			found = !strcmp(set.items[i]->id, shipped[k].id);
		ck_assert_msg(found, "rule %s has no expected words here", set.items[i]->id);
	}
	pf = mpsfix_prefilter_new(set.items, set.len);
	ck_assert(mpsfix_prefilter_selective(pf));
	ck_assert_int_eq(mpsfix_prefilter_scan(pf, "import numpy as np\nx = np.mean(a)\n", 34, false, NULL),
			 MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(mpsfix_prefilter_scan(pf, "y = th.std_mean(a)\n", 19, false, NULL), MPSFIX_PREFILTER_WORDS);
	mpsfix_prefilter_free(pf);
	mpsfix_ruleset_release(&set);
	free(dir);
}
END_TEST

static mpsfix_rule *yaml_rule(const char *match_and_more)
{
	char *yaml = mpsfix_xasprintf("id: t\ncode: MPS900\nseverity: warning\nmessage: m\ntorch: all\n%s", match_and_more);
	mpsfix_rule *r = tu_yaml_rule(yaml);

	free(yaml);
	return r;
}

static mpsfix_prefilter_verdict scan_n(const mpsfix_prefilter *pf, const char *s, size_t n, bool sup)
{
	/* a copy of exactly n bytes, so that reading past the end is caught by ASan */
	char *copy = mpsfix_xmalloc(n ? n : 1);
	mpsfix_prefilter_verdict v;

	memcpy(copy, s, n);
	v = mpsfix_prefilter_scan(pf, copy, n, sup, NULL);
	free(copy);
	return v;
}

static mpsfix_prefilter_verdict scan(const mpsfix_prefilter *pf, const char *s)
{
	return scan_n(pf, s, strlen(s), false);
}

START_TEST(test_prefilter_word_boundaries)
{
	mpsfix_rule *r = yaml_rule("match: 'torch.std_mean($$$A)'\n");
	mpsfix_prefilter *pf = mpsfix_prefilter_new(&r, 1);

	ck_assert_int_eq(scan(pf, ""), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "x = torch.std_meanx(1)\n"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "x = rstd_mean + std_mean_ + std + mean\n"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "x = x1std_mean\n"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "std_mean"), MPSFIX_PREFILTER_WORDS);            /* the whole buffer */
	ck_assert_int_eq(scan(pf, "std_mean(x)\n"), MPSFIX_PREFILTER_WORDS);       /* at the start */
	ck_assert_int_eq(scan(pf, "x = th.std_mean"), MPSFIX_PREFILTER_WORDS);     /* at the end */
	ck_assert_int_eq(scan(pf, "from torch import std_mean as sm\n"), MPSFIX_PREFILTER_WORDS);
	ck_assert_int_eq(scan(pf, "# std_mean\n"), MPSFIX_PREFILTER_WORDS);        /* comments count */
	ck_assert_int_eq(scan(pf, "s = 'std_mean'\n"), MPSFIX_PREFILTER_WORDS);    /* strings too */
	ck_assert_int_eq(scan(pf, "x = 1\r\nstd_mean\r\n"), MPSFIX_PREFILTER_WORDS);
	/* non-ASCII bytes separate words: a superset of what the parser sees */
	ck_assert_int_eq(scan(pf, "\xc2\xb5std_mean = 1\n"), MPSFIX_PREFILTER_WORDS);
	ck_assert_int_eq(scan(pf, "std_mean\xc3\xa9 = 1\n"), MPSFIX_PREFILTER_WORDS);
	ck_assert_int_eq(scan(pf, "x\xc2\xa0std_mean\n"), MPSFIX_PREFILTER_WORDS);
	/* a number ends where a name starts */
	ck_assert_int_eq(scan(pf, "x = 1std_mean\n"), MPSFIX_PREFILTER_WORDS);
	ck_assert_int_eq(scan(pf, "x = 0x1fstd_mean\n"), MPSFIX_PREFILTER_WORDS);
	/* NUL bytes are separators, not the end */
	ck_assert_int_eq(scan_n(pf, "x\0std_mean\0", 11, false), MPSFIX_PREFILTER_WORDS);
	ck_assert_int_eq(scan_n(pf, "x\0std_meanx\0", 12, false), MPSFIX_PREFILTER_SKIP);
	/* a prefix of the buffer that cuts the word */
	ck_assert_int_eq(scan_n(pf, "std_mean", 7, false), MPSFIX_PREFILTER_SKIP);
	mpsfix_prefilter_free(pf);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_prefilter_conjunction_and_alternatives)
{
	mpsfix_rule *r[2];
	mpsfix_prefilter *pf;
	char *d;

	r[0] = yaml_rule("match: '$X.to(\"mps\", $$$A, non_blocking=$NB)'\n");
	r[1] = yaml_rule("match: '$F($$$A)'\nwhere:\n  F:\n    pattern: ['torch.std', 'np.var']\n");
	d = mpsfix_prefilter_describe(r[0]);
	ck_assert_str_eq(d, "to & mps & non_blocking");
	free(d);
	d = mpsfix_prefilter_describe(r[1]);
	ck_assert_str_eq(d, "std | var");
	free(d);
	pf = mpsfix_prefilter_new(r, 2);
	ck_assert_int_eq(scan(pf, "y = x.to('mps')\n"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "f(non_blocking=True)\n"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "f(non_blocking=True)\ny = x.to('mps')\n"), MPSFIX_PREFILTER_WORDS);
	ck_assert_int_eq(scan(pf, "y = var\n"), MPSFIX_PREFILTER_WORDS);
	mpsfix_prefilter_free(pf);
	mpsfix_rule_free(r[0]);
	mpsfix_rule_free(r[1]);
}
END_TEST

/* Conditions that add words only when they must hold. */
START_TEST(test_prefilter_conditions)
{
	static const struct {
		const char *rule, *words;
	} cases[] = {
		/* a metavariable the pattern does not bind: no clause */
		{"match: ['$X.double()', 'f($Y)']\nwhere:\n  Y:\n    pattern: 'torch.float64'\n",
		 "double | (f & float64)"},
		/* a parameter that may be left out adds nothing, a needed one adds its words */
		{"match: 'torch.autocast($$$A)'\nsignature: 'autocast(device_type: str, dtype: any = None)'\n"
		 "where:\n  dtype:\n    pattern: ['torch.float16']\n",
		 "autocast & float16"},
		{"match: 'torch.autocast($$$A)'\nsignature: 'autocast(device_type: str, dtype: any = None)'\n"
		 "where:\n  dtype:\n    any-of:\n      - absent: true\n      - pattern: 'torch.float16'\n",
		 "autocast"},
		/* not-*, regex, value and kind add nothing */
		{"match: 'g($X)'\nwhere:\n  X:\n    not-has: 'h()'\n    regex: 'abc'\n    value: 'word'\n",
		 "g"},
		{"match: 'g($X)'\nwhere:\n  X:\n    has: ['h()', 'k.m()']\n", "g & (h | m)"},
		{"match: '$A or $B'\ninside:\n  - 'f(pin=$MATCH)'\n  - 'gg(x=$MATCH)'\n",
		 "(f & pin) | (gg & x)"},
		{"match: '$A or $B'\ninside:\n  - 'f(pin=$MATCH)'\n  - '$N = $MATCH'\n", "*"},
		{"match: 'os.environ[\"K\"]'\nafter-import: torch\n", "environ & K & torch"},
		/* no word: every file parses */
		{"match: '$X($$$A)'\n", "*"},
		{"match: ['f($X)', '$X + 1']\n", "*"},
		/* a $$$ before other items may give up (and warn) whatever the words */
		{"match: 'f($$$A, x)'\n", "*"},
		{"match: 'f($$$A, k=$V)'\n", "f & k"},
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
		mpsfix_rule *r = yaml_rule(cases[i].rule);
		char *d = mpsfix_prefilter_describe(r);

		ck_assert_msg(!strcmp(d, cases[i].words), "case %zu: %s, expected %s", i, d, cases[i].words);
		free(d);
		mpsfix_rule_free(r);
	}
}
END_TEST

START_TEST(test_prefilter_rule_without_words_disables)
{
	mpsfix_rule *r[2] = {yaml_rule("match: 'torch.std_mean($$$A)'\n"), yaml_rule("match: '$X + $Y'\n")};
	mpsfix_prefilter *pf = mpsfix_prefilter_new(r, 2);

	ck_assert(!mpsfix_prefilter_selective(pf));
	ck_assert_int_eq(scan(pf, "x = 1\n"), MPSFIX_PREFILTER_ALL);
	mpsfix_prefilter_free(pf);
	pf = mpsfix_prefilter_new(r, 1);
	ck_assert(mpsfix_prefilter_selective(pf));
	mpsfix_prefilter_free(pf);
	/* no rule at all: nothing can match */
	pf = mpsfix_prefilter_new(r, 0);
	ck_assert(mpsfix_prefilter_selective(pf));
	ck_assert_int_eq(scan(pf, "std_mean\n"), MPSFIX_PREFILTER_SKIP);
	mpsfix_prefilter_free(pf);
	mpsfix_rule_free(r[0]);
	mpsfix_rule_free(r[1]);
}
END_TEST

START_TEST(test_prefilter_star_and_suppressions)
{
	mpsfix_rule *r = yaml_rule("match: 'torch.std_mean($$$A)'\n");
	mpsfix_prefilter *pf = mpsfix_prefilter_new(&r, 1);

	ck_assert_int_eq(scan(pf, "from os import *\n"), MPSFIX_PREFILTER_STAR);
	ck_assert_int_eq(scan(pf, "from os import \\\n  *\n"), MPSFIX_PREFILTER_STAR);
	ck_assert_int_eq(scan(pf, "from os import  # c\n*\n"), MPSFIX_PREFILTER_STAR);
	ck_assert_int_eq(scan(pf, "from os import"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "from os import path\nx = a * b\n"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan(pf, "x = reimport * 2\n"), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan_n(pf, "x = 1  # noqa\n", 14, false), MPSFIX_PREFILTER_SKIP);
	ck_assert_int_eq(scan_n(pf, "x = 1  # noqa\n", 14, true), MPSFIX_PREFILTER_SUPPRESSION);
	ck_assert_int_eq(scan_n(pf, "x = 1  #NoQA: MPS001", 20, true), MPSFIX_PREFILTER_SUPPRESSION);
	ck_assert_int_eq(scan_n(pf, "# mpsfix: ignore-file\n", 22, true), MPSFIX_PREFILTER_SUPPRESSION);
	ck_assert_int_eq(scan_n(pf, "# noqa_x mpsfixes\n", 18, true), MPSFIX_PREFILTER_SKIP);
	mpsfix_prefilter_free(pf);
	mpsfix_rule_free(r);
}
END_TEST

/*
 * A skipped file is not parsed: with no language, any parse fails, so a
 * run that succeeds did not parse.
 */
START_TEST(test_prefilter_engine_skips_parsing)
{
	mpsfix_rule *r = yaml_rule("match: 'torch.std_mean($$$A)'\n");
	mpsfix_index *ix = mpsfix_index_new(&r, 1);
	mpsfix_ctx ctx;
	mpsfix_source quiet = MPSFIX_SOURCE_INIT, loud = MPSFIX_SOURCE_INIT;
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts check = {.suppress = true}, fix = {.fix = true, .suppress = true};
	mpsfix_engine_opts off = {.suppress = true, .no_prefilter = true};
	const char *a = "import numpy as np\nx = np.std(a)  # noqa\n", *b = "import torch\nx = torch.std_mean(a)\n";

	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ts_parser_set_language(ctx.parser, NULL);
	ck_assert_int_eq(mpsfix_source_from_buffer(&quiet, "a.py", a, strlen(a)), 0);
	ck_assert_int_eq(mpsfix_source_from_buffer(&loud, "b.py", b, strlen(b)), 0);

	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &quiet, &check), 0);
	ck_assert_uint_eq(res.len, 0);
	ck_assert_ptr_null(res.text);
	mpsfix_result_release(&res);
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &quiet, &fix), 0);
	ck_assert_uint_eq(res.text_len, strlen(a));
	ck_assert_mem_eq(res.text, a, strlen(a));
	ck_assert(!res.changed);
	ck_assert_uint_eq(res.fixed, 0);
	mpsfix_result_release(&res);
	/* these parse, and so fail */
	ck_assert_int_lt(mpsfix_engine_run(&res, &ctx, ix, &loud, &check), 0);
	ck_assert_int_lt(mpsfix_engine_run(&res, &ctx, ix, &quiet, &off), 0);
	check.unused_suppressions = true; /* the noqa comment must be read */
	ck_assert_int_lt(mpsfix_engine_run(&res, &ctx, ix, &quiet, &check), 0);

	mpsfix_source_release(&quiet);
	mpsfix_source_release(&loud);
	mpsfix_ctx_release(&ctx);
	mpsfix_index_free(ix);
	mpsfix_rule_free(r);
}
END_TEST

static bool rules_of(const mpsfix_prefilter *pf, const char *s, bool *possible)
{
	/* false: a star import, every rule possible */
	return mpsfix_prefilter_scan(pf, s, strlen(s), false, possible) != MPSFIX_PREFILTER_STAR;
}

/* Which rules a text can match: the engine tries only those. */
START_TEST(test_prefilter_rules_mask)
{
	mpsfix_rule *r[3];
	mpsfix_prefilter *pf;
	bool possible[3];

	r[0] = yaml_rule("match: 'torch.std_mean($$$A)'\n");
	r[1] = yaml_rule("match: '$F($$$A)'\nwhere:\n  F:\n    pattern: ['torch.std', 'torch.var']\n");
	r[2] = yaml_rule("match: 'torch.utils.data.DataLoader($$$A, pin_memory=$V)'\n");
	pf = mpsfix_prefilter_new(r, 3);
	ck_assert(rules_of(pf, "x = torch.std_mean(a)\n", possible));
	ck_assert(possible[0] && !possible[1] && !possible[2]);
	ck_assert(rules_of(pf, "a = var\nDataLoader(d)\n", possible));
	ck_assert(!possible[0] && possible[1] && !possible[2]);
	/* the whole text is read, not only up to the first rule's words */
	ck_assert(rules_of(pf, "std_mean\nDataLoader(d, pin_memory=1)\n# std", possible));
	ck_assert(possible[0] && possible[1] && possible[2]);
	ck_assert(rules_of(pf, "", possible));
	ck_assert(!possible[0] && !possible[1] && !possible[2]);
	/* a star import: every rule is tried (its warning needs their attempts) */
	ck_assert(!rules_of(pf, "from torch import *\nx = 1\n", possible));
	ck_assert(possible[0] && possible[1] && possible[2]);
	mpsfix_prefilter_free(pf);
	for (int i = 0; i < 3; i++)
		mpsfix_rule_free(r[i]);
}
END_TEST

/* A fix may bring another rule's words in: each pass reads its own text. */
START_TEST(test_prefilter_rules_mask_per_pass)
{
	mpsfix_rule *r[2];
	mpsfix_index *ix;
	mpsfix_ctx ctx;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_result res = MPSFIX_RESULT_INIT;
	mpsfix_engine_opts fix = {.fix = true, .suppress = true};
	const char *a = "import torch\nx = torch.one(a)\n";

	r[0] = yaml_rule("match: 'torch.one($X)'\nfix:\n  safety: safe\n  template: 'torch.two($X)'\n");
	r[1] = yaml_rule("match: 'torch.two($X)'\nfix:\n  safety: safe\n  template: 'torch.three($X)'\n");
	ix = mpsfix_index_new(r, 2);
	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "a.py", a, strlen(a)), 0);
	ck_assert_int_eq(mpsfix_engine_run(&res, &ctx, ix, &src, &fix), 0);
	ck_assert_uint_eq(res.fixed, 2);
	ck_assert_str_eq(res.text, "import torch\nx = torch.three(a)\n");
	mpsfix_result_release(&res);
	mpsfix_source_release(&src);
	mpsfix_ctx_release(&ctx);
	mpsfix_index_free(ix);
	mpsfix_rule_free(r[0]);
	mpsfix_rule_free(r[1]);
}
END_TEST

/* A pattern's string needs its words: the matcher takes only literals that spell them. */
START_TEST(test_prefilter_string_words)
{
	static const struct {
		const char *code;
		bool matches;
	} cases[] = {
		{"os.environ['ENV_NAME_1'] = v\n", true},
		{"os.environ[\"ENV_NAME_1\"] = v\n", true},
		{"os.environ[r'ENV_NAME_1'] = v\n", true},
		{"os.environ['''ENV_NAME_1'''] = v\n", true},
		{"os.environ['ENV_' 'NAME_1'] = v\n", false},   /* split inside a word */
		{"os.environ['ENV_NAME\\x5f1'] = v\n", false}, /* an escape inside a word */
		{"os.environ['ENV_NAME_2'] = v\n", false},
	};
	mpsfix_rule *r = yaml_rule("match: 'os.environ[\"ENV_NAME_1\"] = $V'\n");
	mpsfix_index *ix = mpsfix_index_new(&r, 1);
	mpsfix_engine_opts on = {.suppress = true}, off = {.suppress = true, .no_prefilter = true};
	mpsfix_ctx ctx;
	char *d = mpsfix_prefilter_describe(r);

	ck_assert_str_eq(d, "environ & ENV_NAME_1");
	free(d);
	ck_assert(mpsfix_text_spelled("a-b c", 5, "'a-b' ' c'", 10));
	ck_assert(mpsfix_text_spelled("cuda:0", 6, "'cuda:0'", 8));
	ck_assert(mpsfix_text_spelled("9lives", 6, "'\\x39lives'", 11)); /* a word is letter-led */
	ck_assert(!mpsfix_text_spelled("ab", 2, "'abc'", 5));
	ck_assert(!mpsfix_text_spelled("ab", 2, "'a' 'b'", 7));
	ck_assert_int_eq(mpsfix_ctx_init(&ctx), 0);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
		char *code = mpsfix_xasprintf("import os\n%s", cases[i].code);
		mpsfix_source src = MPSFIX_SOURCE_INIT;
		mpsfix_result a = MPSFIX_RESULT_INIT, b = MPSFIX_RESULT_INIT;

		ck_assert_int_eq(mpsfix_source_from_buffer(&src, "a.py", code, strlen(code)), 0);
		ck_assert_int_eq(mpsfix_engine_run(&a, &ctx, ix, &src, &on), 0);
		ck_assert_int_eq(mpsfix_engine_run(&b, &ctx, ix, &src, &off), 0);
		ck_assert_msg(a.len == (cases[i].matches ? 1u : 0u), "%s", cases[i].code);
		ck_assert_uint_eq(a.len, b.len);
		mpsfix_result_release(&a);
		mpsfix_result_release(&b);
		mpsfix_source_release(&src);
		free(code);
	}
	mpsfix_ctx_release(&ctx);
	mpsfix_index_free(ix);
	mpsfix_rule_free(r);
}
END_TEST

Suite *mpsfix_suite_prefilter(void)
{
	Suite *s = suite_create("prefilter");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_prefilter_shipped_rules, 0, (int)MPSFIX_ARRAY_SIZE(shipped));
	tcase_add_test(tc, test_prefilter_catalog_selective);
	tcase_add_test(tc, test_prefilter_word_boundaries);
	tcase_add_test(tc, test_prefilter_conjunction_and_alternatives);
	tcase_add_test(tc, test_prefilter_conditions);
	tcase_add_test(tc, test_prefilter_rule_without_words_disables);
	tcase_add_test(tc, test_prefilter_star_and_suppressions);
	tcase_add_test(tc, test_prefilter_engine_skips_parsing);
	tcase_add_test(tc, test_prefilter_rules_mask);
	tcase_add_test(tc, test_prefilter_rules_mask_per_pass);
	tcase_add_test(tc, test_prefilter_string_words);
	suite_add_tcase(s, tc);
	return s;
}
