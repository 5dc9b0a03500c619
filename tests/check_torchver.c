/* check_torchver.c: torch versions and ranges at minor granularity. */
#include <stdio.h>
#include <string.h>

#include "tests.h"
#include "torchver.h"

#define V(a, b) MPSFIX_TORCH_VER(a, b)
#define ANY MPSFIX_TORCH_ANY_MINOR
#define NEWEST MPSFIX_TORCH_NEWEST

typedef struct {
	mpsfix_torch_syntax syntax;
	const char *text;
	int rc;                 /* 0, MPSFIX_ENOMATCH or MPSFIX_ERROR */
	mpsfix_torch_ver lo, hi; /* when rc == 0 */
	const char *message;    /* when rc == MPSFIX_ERROR: a part of the message */
} range_case;

#define RULE MPSFIX_TORCH_SYNTAX_RULE
#define SPEC MPSFIX_TORCH_SYNTAX_SPEC
#define PIP MPSFIX_TORCH_SYNTAX_PIP
#define POETRY MPSFIX_TORCH_SYNTAX_POETRY
#define CONDA MPSFIX_TORCH_SYNTAX_CONDA

static const range_case cases[] = {
	/* a rule's torch: */
	{RULE, "all", 0, 0, NEWEST, NULL},
	{RULE, "< 2.4", 0, 0, V(2, 3), NULL},
	{RULE, "<2.0", 0, 0, V(1, ANY), NULL},
	{RULE, ">= 2.3, < 2.8", 0, V(2, 3), V(2, 7), NULL},
	{RULE, ">= 2.5", 0, V(2, 5), NEWEST, NULL},
	{RULE, "==2.1", 0, V(2, 1), V(2, 1), NULL},
	{RULE, "==2", 0, V(2, 0), V(2, ANY), NULL},
	{RULE, "<=2.4", 0, 0, V(2, 4), NULL},
	{RULE, "<=2", 0, 0, V(2, ANY), NULL},
	{RULE, "> 1.13 , <= 2", 0, V(1, 13), V(2, ANY), NULL},
	{RULE, "<2.4.1", 0, 0, V(2, 4), NULL},
	{RULE, "<2.4.0", 0, 0, V(2, 3), NULL},
	{RULE, ">2.4.1", 0, V(2, 4), NEWEST, NULL},
	{RULE, "\t<2.4 ", 0, 0, V(2, 3), NULL},
	{RULE, "", MPSFIX_ERROR, 0, 0, "expected 'all' or constraints like '>=2.3,<2.8'"},
	{RULE, "2.1", MPSFIX_ERROR, 0, 0, "(operators < <= > >= ==)"},
	{RULE, ">=", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, ">=2.", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "=2.1", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "=>2.1", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "<2.4,", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, ">=2.3;<2.8", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "<2..4", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "!=2.1", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "~=2.1", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "<2.4rc1", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, "ALL", MPSFIX_ERROR, 0, 0, "expected 'all'"},
	{RULE, ">=2.5,<2.3", MPSFIX_ERROR, 0, 0, "no version satisfies all of these constraints"},
	{RULE, "<0.0", MPSFIX_ERROR, 0, 0, "no torch version is below 0.0"},
	{RULE, "<0", MPSFIX_ERROR, 0, 0, "no torch version is below 0"},
	{RULE, ">=10000.1", MPSFIX_ERROR, 0, 0, "numbers above 9999"},
	/* --target-torch */
	{SPEC, "2.1", 0, V(2, 1), V(2, 1), NULL},
	{SPEC, "2.1.0", 0, V(2, 1), V(2, 1), NULL},
	{SPEC, "2.1.*", 0, V(2, 1), V(2, 1), NULL},
	{SPEC, "2", 0, V(2, 0), V(2, ANY), NULL},
	{SPEC, " >=2.4 ", 0, V(2, 4), NEWEST, NULL},
	{SPEC, ">=2.1,<2.6", 0, V(2, 1), V(2, 5), NULL},
	{SPEC, ">=2.1, <2.6", 0, V(2, 1), V(2, 5), NULL},
	{SPEC, "~=2.1", 0, V(2, 1), V(2, ANY), NULL},
	{SPEC, "~=2.1.0", 0, V(2, 1), V(2, 1), NULL},
	{SPEC, "===2.2.1", 0, V(2, 2), V(2, 2), NULL},
	{SPEC, "all", 0, 0, NEWEST, NULL},
	{SPEC, "v2.3", 0, V(2, 3), V(2, 3), NULL},
	{SPEC, "2.4.0rc1", 0, V(2, 4), V(2, 4), NULL},
	{SPEC, "", MPSFIX_ERROR, 0, 0, "an empty constraint"},
	{SPEC, "2.x", MPSFIX_ERROR, 0, 0, "'2.x' is not a version"},
	{SPEC, ">=2.1;<2.6", MPSFIX_ERROR, 0, 0, "'2.1;<2.6' is not a version"},
	{SPEC, "=>2.1", MPSFIX_ERROR, 0, 0, "unknown operator '=>'"},
	{SPEC, "=2.1", MPSFIX_ERROR, 0, 0, "operator '=' is not allowed here"},
	{SPEC, "^2.1", MPSFIX_ERROR, 0, 0, "operator '^' is not allowed here"},
	{SPEC, "!=2.2", MPSFIX_ERROR, 0, 0, "'!=' cannot narrow a target"},
	{SPEC, ">=2.6,<2.1", MPSFIX_ERROR, 0, 0, "no version satisfies"},
	{SPEC, "~=2", MPSFIX_ERROR, 0, 0, "'~=' needs a version of at least two numbers"},
	{SPEC, ">=2.1,", MPSFIX_ERROR, 0, 0, "an empty constraint"},
	{SPEC, "*", MPSFIX_ERROR, 0, 0, "'*' is not a version"},
	{SPEC, ">2.*", MPSFIX_ERROR, 0, 0, "'2.*' is not a version"},
	{SPEC, "latest", MPSFIX_ERROR, 0, 0, "'latest' is not a version"},
	/* pip */
	{PIP, "==2.1.0", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "==2.1.0+cu118", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "==2.1.0a0", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "==2.1.0.post1", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "==2.1.0.dev20230801", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "==2.1.0-1", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "==2.1.0rc2.post1.dev3+local.7", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "==2.1.*", 0, V(2, 1), V(2, 1), NULL},
	{PIP, "~=2.1", 0, V(2, 1), V(2, ANY), NULL},
	{PIP, ">=2.0,!=2.2.0,<2.4", 0, V(2, 0), V(2, 3), NULL},
	{PIP, "(>=2.0)", 0, V(2, 0), NEWEST, NULL},
	{PIP, ">= 2.0 , < 2.3", 0, V(2, 0), V(2, 2), NULL},
	{PIP, ">2.1", 0, V(2, 1), NEWEST, NULL},
	{PIP, "!=2.2.0", MPSFIX_ENOMATCH, 0, 0, NULL},
	{PIP, "2.1", MPSFIX_ERROR, 0, 0, "'2.1' has no operator"},
	{PIP, "==2.1.0+", MPSFIX_ERROR, 0, 0, "is not a version"},
	{PIP, "==2.1.0foo", MPSFIX_ERROR, 0, 0, "is not a version"},
	{PIP, "==${TORCH_VERSION}", MPSFIX_ERROR, 0, 0, "'${TORCH_VERSION}' is not a version"},
	/* poetry */
	{POETRY, "^2.1", 0, V(2, 1), V(2, ANY), NULL},
	{POETRY, "^2.1.3", 0, V(2, 1), V(2, ANY), NULL},
	{POETRY, "^2", 0, V(2, 0), V(2, ANY), NULL},
	{POETRY, "^0.4", 0, V(0, 4), V(0, 4), NULL},
	{POETRY, "^0", 0, V(0, 0), V(0, ANY), NULL},
	{POETRY, "~2.1", 0, V(2, 1), V(2, 1), NULL},
	{POETRY, "~2.1.3", 0, V(2, 1), V(2, 1), NULL},
	{POETRY, "~2", 0, V(2, 0), V(2, ANY), NULL},
	{POETRY, "2.1.0", 0, V(2, 1), V(2, 1), NULL},
	{POETRY, ">=2.0 <2.3", 0, V(2, 0), V(2, 2), NULL},
	{POETRY, ">= 2.0, < 2.3", 0, V(2, 0), V(2, 2), NULL},
	{POETRY, "2.0.* || 2.2.*", 0, V(2, 0), V(2, 2), NULL},
	{POETRY, "*", MPSFIX_ENOMATCH, 0, 0, NULL},
	{POETRY, "2.1 || *", MPSFIX_ENOMATCH, 0, 0, NULL},
	{POETRY, "2.0 | 2.1", MPSFIX_ERROR, 0, 0, "joined with '||'"},
	/* conda */
	{CONDA, "=2.1", 0, V(2, 1), V(2, 1), NULL},
	{CONDA, "==2.1.0", 0, V(2, 1), V(2, 1), NULL},
	{CONDA, "2.1.*", 0, V(2, 1), V(2, 1), NULL},
	{CONDA, "2.1*", 0, V(2, 1), V(2, 1), NULL},
	{CONDA, ">=2.0,<2.3", 0, V(2, 0), V(2, 2), NULL},
	{CONDA, "2.0|2.2", 0, V(2, 0), V(2, 2), NULL},
	{CONDA, "*", MPSFIX_ENOMATCH, 0, 0, NULL},
	{CONDA, "^2.1", MPSFIX_ERROR, 0, 0, "operator '^' is not allowed here"},
};

START_TEST(test_torchver_parse)
{
	const range_case *c = &cases[_i];
	mpsfix_torch_range r = {12345, 12345};
	int rc;

	mpsfix_error_clear();
	rc = mpsfix_torch_range_parse(&r, c->text, strlen(c->text), c->syntax);
	ck_assert_msg(rc == c->rc, "syntax %d '%s': rc %d, expected %d (%s)", (int)c->syntax, c->text,
		      rc, c->rc, mpsfix_error_last()->message);
	if (rc == 0) {
		ck_assert_msg(r.lo == c->lo && r.hi == c->hi,
			      "syntax %d '%s': [%u.%u, %u.%u], expected [%u.%u, %u.%u]", (int)c->syntax,
			      c->text, MPSFIX_TORCH_MAJOR(r.lo), MPSFIX_TORCH_MINOR(r.lo),
			      MPSFIX_TORCH_MAJOR(r.hi), MPSFIX_TORCH_MINOR(r.hi), MPSFIX_TORCH_MAJOR(c->lo),
			      MPSFIX_TORCH_MINOR(c->lo), MPSFIX_TORCH_MAJOR(c->hi), MPSFIX_TORCH_MINOR(c->hi));
	} else if (rc == MPSFIX_ERROR) {
		ck_assert_msg(strstr(mpsfix_error_last()->message, c->message) != NULL,
			      "syntax %d '%s': message '%s' lacks '%s'", (int)c->syntax, c->text,
			      mpsfix_error_last()->message, c->message);
		ck_assert_msg(r.lo == 12345 && r.hi == 12345, "'%s': *out written on error", c->text);
	}
}
END_TEST

/* Only the given bytes are read: the text need not end there. */
START_TEST(test_torchver_parse_length)
{
	mpsfix_torch_range r;

	ck_assert_int_eq(mpsfix_torch_range_parse(&r, ">=2.4; garbage", 5, MPSFIX_TORCH_SYNTAX_SPEC), 0);
	ck_assert_uint_eq(r.lo, V(2, 4));
	ck_assert_int_eq(mpsfix_torch_range_parse(&r, "2.1\0x", 5, MPSFIX_TORCH_SYNTAX_SPEC),
			 MPSFIX_ERROR);
	ck_assert_str_eq(mpsfix_error_last()->message, "a NUL byte");
}
END_TEST

START_TEST(test_torchver_format)
{
	static const struct {
		mpsfix_torch_range r;
		const char *text;
	} f[] = {
		{{0, NEWEST}, "all"},
		{{V(2, 1), V(2, 1)}, "2.1"},
		{{V(2, 4), NEWEST}, ">=2.4"},
		{{V(1, 12), NEWEST}, ">=1.12"},
		{{0, V(2, 3)}, "<2.4"},
		{{0, V(1, ANY)}, "<2.0"},
		{{V(2, 1), V(2, 5)}, ">=2.1,<2.6"},
		{{V(2, 0), V(2, ANY)}, ">=2.0,<3.0"},
		{{V(1, 13), V(2, 0)}, ">=1.13,<2.1"},
	};
	char buf[MPSFIX_TORCH_RANGE_STRMAX];

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(f); i++) {
		mpsfix_torch_range back;

		ck_assert_str_eq(mpsfix_torch_range_format(buf, f[i].r), f[i].text);
		/* what is shown parses back to the same range */
		ck_assert_int_eq(mpsfix_torch_range_parse(&back, buf, strlen(buf), MPSFIX_TORCH_SYNTAX_SPEC), 0);
		ck_assert_msg(back.lo == f[i].r.lo && back.hi == f[i].r.hi, "%s does not parse back", buf);
	}
}
END_TEST

/* Every range a case parses to formats to text that parses back to it. */
START_TEST(test_torchver_format_round_trip)
{
	char buf[MPSFIX_TORCH_RANGE_STRMAX];

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
		mpsfix_torch_range r, back;

		if (mpsfix_torch_range_parse(&r, cases[i].text, strlen(cases[i].text), cases[i].syntax) != 0)
			continue;
		mpsfix_torch_range_format(buf, r);
		ck_assert_msg(mpsfix_torch_range_parse(&back, buf, strlen(buf), MPSFIX_TORCH_SYNTAX_SPEC) == 0,
			      "%s (from %s): %s", buf, cases[i].text, mpsfix_error_last()->message);
		ck_assert_msg(back.lo == r.lo && back.hi == r.hi, "%s (from %s)", buf, cases[i].text);
	}
}
END_TEST

START_TEST(test_torchver_meets_hull)
{
	mpsfix_torch_range below_24 = {0, V(2, 3)}, t21 = {V(2, 1), V(2, 1)}, t25 = {V(2, 5), NEWEST},
			   mid = {V(2, 3), V(2, 7)}, t24 = {V(2, 4), V(2, 4)};

	ck_assert(mpsfix_torch_range_meets(below_24, t21));
	ck_assert(!mpsfix_torch_range_meets(below_24, t25));
	ck_assert(!mpsfix_torch_range_meets(t25, below_24));
	ck_assert(!mpsfix_torch_range_meets(below_24, t24)); /* < 2.4 leaves 2.4 out */
	ck_assert(mpsfix_torch_range_meets(mid, t25));
	ck_assert(mpsfix_torch_range_meets(mid, t24));
	ck_assert(mpsfix_torch_range_meets(MPSFIX_TORCH_RANGE_ALL, t21));
	ck_assert(mpsfix_torch_range_meets(MPSFIX_TORCH_RANGE_MPS, below_24));
	ck_assert(!mpsfix_torch_range_meets((mpsfix_torch_range){0, V(1, 11)}, MPSFIX_TORCH_RANGE_MPS));
	ck_assert_uint_eq(mpsfix_torch_range_hull(t21, t25).lo, V(2, 1));
	ck_assert_uint_eq(mpsfix_torch_range_hull(t21, t25).hi, NEWEST);
	ck_assert_uint_eq(mpsfix_torch_range_hull(t25, t21).lo, V(2, 1));
	/* < 2.0 holds every 1.x, and no 2.x */
	ck_assert(mpsfix_torch_range_meets((mpsfix_torch_range){0, V(1, ANY)}, (mpsfix_torch_range){V(1, 13), V(1, 13)}));
	ck_assert(!mpsfix_torch_range_meets((mpsfix_torch_range){0, V(1, ANY)}, (mpsfix_torch_range){V(2, 0), NEWEST}));
}
END_TEST

Suite *mpsfix_suite_torchver(void)
{
	Suite *s = suite_create("torchver");
	TCase *tc = tcase_create("torchver");

	tcase_add_loop_test(tc, test_torchver_parse, 0, (int)MPSFIX_ARRAY_SIZE(cases));
	tcase_add_test(tc, test_torchver_parse_length);
	tcase_add_test(tc, test_torchver_format);
	tcase_add_test(tc, test_torchver_format_round_trip);
	tcase_add_test(tc, test_torchver_meets_hull);
	suite_add_tcase(s, tc);
	return s;
}
