/* check_pattern.c: compiling patterns, metavariables, literal values. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "literal.h"
#include "parse.h"
#include "pattern.h"
#include "regex_check.h"
#include "tests.h"
#include "testutil.h"

static int compile(const char *text, mpsfix_pattern **out, uint32_t *off)
{
	return mpsfix_pattern_compile(out, tu_parser(), text, strlen(text), off);
}

START_TEST(test_pattern_metavars_collected)
{
	mpsfix_pattern *p = NULL;
	uint32_t off;

	ck_assert_int_eq(compile("$X.to(\"mps\", $$$ARGS, non_blocking=$NB, other=$_)", &p, &off), 0);
	ck_assert_uint_eq(p->nmetavars, 3);
	ck_assert_str_eq(p->metavars[0].name, "X");
	ck_assert(!p->metavars[0].multi);
	ck_assert_str_eq(p->metavars[1].name, "ARGS");
	ck_assert(p->metavars[1].multi);
	ck_assert_int_eq(mpsfix_pattern_metavar_index(p, "NB"), 2);
	ck_assert_int_eq(mpsfix_pattern_metavar_index(p, "_"), -1);
	ck_assert_int_eq(mpsfix_pattern_metavar_index(p, "Y"), -1);
	ck_assert_str_eq(ts_language_symbol_name(mpsfix_language(), p->root->symbol), "call");
	mpsfix_pattern_free(p);
}
END_TEST

START_TEST(test_pattern_syntax_error_offset)
{
	mpsfix_pattern *p = NULL;
	uint32_t off = 99;

	ck_assert_int_eq(compile("torch.std_mean($X,, )", &p, &off), MPSFIX_ERROR);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(off, 18); /* the second comma */
}
END_TEST

START_TEST(test_pattern_lowercase_dollar_is_error)
{
	mpsfix_pattern *p = NULL;
	uint32_t off = 0;

	ck_assert_int_eq(compile("foo($x)", &p, &off), MPSFIX_ERROR);
	ck_assert_uint_eq(off, 4);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "metavariable"));
}
END_TEST

START_TEST(test_pattern_single_and_multi_same_name)
{
	mpsfix_pattern *p = NULL;
	uint32_t off;

	ck_assert_int_eq(compile("f($X, $$$X)", &p, &off), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "both"));
}
END_TEST

START_TEST(test_pattern_must_be_one_statement)
{
	mpsfix_pattern *p = NULL;
	uint32_t off;

	ck_assert_int_eq(compile("a = 1\nb = 2\n", &p, &off), MPSFIX_ERROR);
	ck_assert_int_eq(compile("$X", &p, &off), MPSFIX_ERROR);
	ck_assert_int_eq(compile("", &p, &off), MPSFIX_ERROR);
}
END_TEST

START_TEST(test_pattern_dollar_in_string_kept)
{
	mpsfix_pattern *p = NULL;
	uint32_t off;

	/* "$HOME" inside a string is text, not a metavariable */
	ck_assert_int_eq(compile("os.getenv(\"$HOME\")", &p, &off), 0);
	ck_assert_int_eq(tu_count_matches("os.getenv(\"$HOME\")", "os.getenv('$HOME')\n"), 1);
	ck_assert_int_eq(tu_count_matches("os.getenv(\"$HOME\")", "os.getenv('HOME')\n"), 0);
	mpsfix_pattern_free(p);
}
END_TEST

static bool literal_of(const char *code, mpsfix_literal *out)
{
	TSTree *tree = NULL;
	TSNode n;
	bool ok;

	ck_assert_int_eq(mpsfix_parse(&tree, tu_parser(), code, (uint32_t)strlen(code)), 0);
	/* module > expression_statement > expression */
	n = ts_node_named_child(ts_node_named_child(ts_tree_root_node(tree), 0), 0);
	ok = mpsfix_literal_from_node(out, n, code);
	ts_tree_delete(tree);
	return ok;
}

START_TEST(test_pattern_literal_values)
{
	mpsfix_literal l;

	ck_assert(literal_of("True", &l) && l.type == MPSFIX_LIT_BOOL && l.b);
	ck_assert(literal_of("None", &l) && l.type == MPSFIX_LIT_NONE);
	ck_assert(literal_of("0x1_0", &l) && l.type == MPSFIX_LIT_NUMBER && l.num == 16);
	ck_assert(literal_of("-2.5", &l) && l.num == -2.5);
	ck_assert(literal_of("'a\\tb\\x41\\u00e9'", &l));
	ck_assert_uint_eq(l.slen, 6);
	ck_assert_mem_eq(l.s, "a\tbA\xc3\xa9", 6);
	mpsfix_literal_release(&l);
	ck_assert(literal_of("r'a\\n'", &l));
	ck_assert_str_eq(l.s, "a\\n");
	mpsfix_literal_release(&l);
	ck_assert(literal_of("\"\"\"mps\"\"\"", &l));
	ck_assert_str_eq(l.s, "mps");
	mpsfix_literal_release(&l);
	ck_assert(!literal_of("f'mps'", &l));
	ck_assert(!literal_of("b'mps'", &l));
	ck_assert(!literal_of("'m' 'ps'", &l));
	ck_assert(!literal_of("1j", &l));
	ck_assert(!literal_of("x", &l));
}
END_TEST

/* `re` passes the bounds, or fails at byte `at` with a message containing `why`. */
static void regex_ok(const char *re)
{
	size_t at;

	ck_assert_msg(mpsfix_regex_check(re, &at) == 0, "'%s' refused: %s", re,
		      mpsfix_error_last()->message);
}

static void regex_refused(const char *re, size_t want_at, const char *why)
{
	size_t at = 99999;

	ck_assert_msg(mpsfix_regex_check(re, &at) == MPSFIX_ERROR, "'%s' accepted", re);
	ck_assert_msg(strstr(mpsfix_error_last()->message, why) != NULL, "'%s': %s", re,
		      mpsfix_error_last()->message);
	ck_assert_uint_eq(at, want_at);
}

START_TEST(test_pattern_regex_bounds)
{
	char *long_re = mpsfix_xmalloc(MPSFIX_REGEX_MAX_LEN + 2);

	regex_ok("^[A-Za-z_][A-Za-z0-9_]*$");
	regex_ok("(cuda|mps)(:[0-9]+)?");
	regex_ok("[]\\1]");                 /* in brackets, \1 is two characters */
	regex_ok("[[:digit:]\\]{3}x");
	regex_ok("\\.to\\(");
	regex_ok("a{255}");
	regex_ok("(a{100}){100}");          /* 10,000: the limit */
	regex_ok("x{");                     /* a literal brace: regcomp decides */
	regex_ok("(a|aa)*c");               /* polynomial; the text bound keeps it short */
	regex_ok("((((((((((((((((a))))))))))))))))"); /* deeper than the first stack */
	regex_refused("((((((((((((((((a{100}){101}))))))))))))))", 23, "too large");

	regex_refused("(a*)*\\1b", 5, "backreferences (\\1) are not allowed");
	regex_refused("(.)\\9", 3, "backreferences (\\9)");
	regex_refused("a{256}", 1, "repetition count 256 is over the limit of 255");
	regex_refused("a{1,1000}", 1, "repetition count 1000");
	regex_refused("(a{101}){100}", 8, "too large to match in bounded time");
	regex_refused("((a{100}){100}){100}", 15, "too large");
	regex_refused("(a{200}){200}", 8, "too large");
	regex_refused("(((a{20}){20}){20})+", 19, "too large");

	memset(long_re, 'a', MPSFIX_REGEX_MAX_LEN);
	long_re[MPSFIX_REGEX_MAX_LEN] = '\0';
	regex_ok(long_re);
	long_re[MPSFIX_REGEX_MAX_LEN] = 'a';
	long_re[MPSFIX_REGEX_MAX_LEN + 1] = '\0';
	regex_refused(long_re, MPSFIX_REGEX_MAX_LEN, "the regex is 1025 bytes long; the limit is 1024");
	free(long_re);
}
END_TEST

/* A compile error comes back with regerror()'s message and holds nothing. */
START_TEST(test_pattern_regex_compile_error)
{
	mpsfix_regex r;
	char msg[256] = "";

	ck_assert_int_eq(mpsfix_regex_compile(&r, "a(b", msg, sizeof(msg)), MPSFIX_ERROR);
	ck_assert_msg(msg[0] != '\0', "no message");
	ck_assert_ptr_null(r.lock);
	mpsfix_regex_release(&r); /* nothing to free: no crash, no leak */
	ck_assert_int_eq(mpsfix_regex_compile(&r, "^(cuda|mps)$", msg, sizeof(msg)), 0);
	ck_assert(mpsfix_regex_search(&r, "mps"));
	ck_assert(!mpsfix_regex_search(&r, "mpsx"));
	mpsfix_regex_release(&r);
	ck_assert_ptr_null(r.lock);
}
END_TEST

/*
 * Worker threads share one compiled expression, as they share a rule's.  A
 * fresh one, so that glibc builds its automaton states while the threads
 * race: "^[ab]*a[ab]{9}$" needs about 2^10 states (the last ten letters),
 * hashed into 16 buckets (the expression's length, rounded up) that grow as
 * they fill, and each thread searches words of its own, so that every thread
 * finds states first.  Under ThreadSanitizer (`make tsan` runs this case) a
 * search that is not serialized is reported.
 */
#define REGEX_THREADS 8
#define REGEX_WORDS 4000
#define REGEX_WORD_MAX 40

typedef struct {
	const mpsfix_regex *r;
	pthread_barrier_t *start;
	unsigned seed;
	size_t wrong;
} regex_job;

static void *regex_worker(void *arg)
{
	regex_job *job = arg;
	char word[REGEX_WORD_MAX + 1];

	pthread_barrier_wait(job->start);
	for (size_t i = 0; i < REGEX_WORDS; i++) {
		size_t n = 1 + i % REGEX_WORD_MAX;

		for (size_t k = 0; k < n; k++) {
			job->seed = job->seed * 1103515245u + 12345u;
			word[k] = (job->seed >> 16) & 1 ? 'a' : 'b';
		}
		word[n] = '\0';
		/* a match has an a ten letters from the end */
		if (mpsfix_regex_search(job->r, word) != (n >= 10 && word[n - 10] == 'a'))
			job->wrong++;
	}
	return NULL;
}

START_TEST(test_pattern_regex_threads)
{
	mpsfix_regex r;
	char msg[256];
	pthread_t t[REGEX_THREADS];
	pthread_barrier_t start;
	regex_job jobs[REGEX_THREADS];

	ck_assert_int_eq(mpsfix_regex_compile(&r, "^[ab]*a[ab]{9}$", msg, sizeof(msg)), 0);
	ck_assert_int_eq(pthread_barrier_init(&start, NULL, REGEX_THREADS), 0);
	for (size_t i = 0; i < REGEX_THREADS; i++) {
		jobs[i] = (regex_job){&r, &start, (unsigned)i + 1, 0};
		ck_assert_int_eq(pthread_create(&t[i], NULL, regex_worker, &jobs[i]), 0);
	}
	for (size_t i = 0; i < REGEX_THREADS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_uint_eq(jobs[i].wrong, 0);
	}
	pthread_barrier_destroy(&start);
	mpsfix_regex_release(&r);
}
END_TEST

Suite *mpsfix_suite_pattern(void)
{
	Suite *s = suite_create("pattern");
	TCase *tc = tcase_create("compile");

	tcase_add_test(tc, test_pattern_metavars_collected);
	tcase_add_test(tc, test_pattern_syntax_error_offset);
	tcase_add_test(tc, test_pattern_lowercase_dollar_is_error);
	tcase_add_test(tc, test_pattern_single_and_multi_same_name);
	tcase_add_test(tc, test_pattern_must_be_one_statement);
	tcase_add_test(tc, test_pattern_dollar_in_string_kept);
	tcase_add_test(tc, test_pattern_literal_values);
	tcase_add_test(tc, test_pattern_regex_bounds);
	tcase_add_test(tc, test_pattern_regex_compile_error);
	suite_add_tcase(s, tc);
	tc = tcase_create("threads");
	tcase_add_test(tc, test_pattern_regex_threads);
	suite_add_tcase(s, tc);
	return s;
}
