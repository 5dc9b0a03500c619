/* check_report.c: every output format, byte for byte, and json/sarif read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "tests.h"
#include "testutil.h"

/*
 * The test file: a safe fix (line 2), an unsafe one on a line with a
 * non-ASCII character (3), no fix on a tab-indented line (4), a manual fix
 * spanning lines 5-7.
 */
static const char test_code[] =
	"import torch\n"
	"y = x.to('mps', non_blocking=True)\n"
	"\xc3\xa9 = 1; z = torch.std_mean(a)\n"
	"\tw = torch.std_mean(b)\n"
	"q = f(\n"
	"    1,\n"
	")\n";

typedef struct {
	mpsfix_source src;
	mpsfix_rule rules[3];
	mpsfix_rule *ruleptrs[3];
	mpsfix_finding items[4];
	mpsfix_edit edits[2];
	mpsfix_result res;
} fixture;

static mpsfix_finding make_finding(const mpsfix_source *src, const mpsfix_rule *rule,
				   const char *needle, mpsfix_fix_status fix)
{
	const char *p = strstr(src->data, needle);
	mpsfix_finding f = {.rule = rule, .fix = fix};

	ck_assert_ptr_nonnull(p);
	f.start = (uint32_t)(p - src->data);
	f.end = f.start + (uint32_t)strlen(needle);
	mpsfix_source_position(src, f.start, &f.line, &f.col);
	mpsfix_source_position(src, f.end, &f.end_line, &f.end_col);
	return f;
}

static mpsfix_edit make_edit(const mpsfix_source *src, const char *needle, const char *text)
{
	const char *p = strstr(src->data, needle);
	mpsfix_edit e = {.text = (char *)text, .len = strlen(text)};

	ck_assert_ptr_nonnull(p);
	e.start = (uint32_t)(p - src->data);
	e.end = e.start + (uint32_t)strlen(needle);
	return e;
}

static void fixture_init(fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	ck_assert_int_eq(mpsfix_source_from_buffer(&fx->src, "t.py", test_code, sizeof(test_code) - 1), 0);
	fx->rules[0] = (mpsfix_rule){.code = "MPS006", .id = "non-blocking",
				     .message = "non_blocking=True is unsafe on MPS",
				     .note = "Copies may finish after their use.",
				     .url = "https://example.org/mps006", .severity = MPSFIX_SEV_ERROR};
	fx->rules[1] = (mpsfix_rule){.code = "MPS001", .id = "std-mean",
				     .message = "torch.std_mean is slow: use std and mean",
				     .severity = MPSFIX_SEV_WARNING};
	fx->rules[2] = (mpsfix_rule){.code = "MPS003", .id = "odd-call", .message = "call of f: 100%, odd",
				     .severity = MPSFIX_SEV_INFO};
	for (int i = 0; i < 3; i++)
		fx->ruleptrs[i] = &fx->rules[i];
	fx->edits[0] = make_edit(&fx->src, ", non_blocking=True", "");
	fx->edits[1] = make_edit(&fx->src, "torch.std_mean(a)", "(torch.std(a), torch.mean(a))");
	fx->items[0] = make_finding(&fx->src, &fx->rules[0], "x.to('mps', non_blocking=True)",
				    MPSFIX_FIX_AVAILABLE);
	fx->items[0].edits = &fx->edits[0];
	fx->items[0].nedits = 1;
	fx->items[1] = make_finding(&fx->src, &fx->rules[1], "torch.std_mean(a)", MPSFIX_FIX_UNSAFE);
	fx->items[1].edits = &fx->edits[1];
	fx->items[1].nedits = 1;
	fx->items[2] = make_finding(&fx->src, &fx->rules[1], "torch.std_mean(b)", MPSFIX_FIX_NONE);
	fx->items[3] = make_finding(&fx->src, &fx->rules[2], "f(\n    1,\n)", MPSFIX_FIX_MANUAL);
	fx->items[3].reason = "the fix would drop a comment";
	fx->res.items = fx->items;
	fx->res.len = 4;
}

static mpsfix_report_opts fixture_opts(fixture *fx, mpsfix_format format)
{
	return (mpsfix_report_opts){.format = format, .tool_version = "0.1.0",
				    .rules = fx->ruleptrs, .nrules = 3};
}

/* Report `res` (may be NULL: an empty run) on `path` and return what was written. */
static char *report(const mpsfix_report_opts *opts, const char *path, const mpsfix_source *src,
		    const mpsfix_result *res, const mpsfix_report_summary *sum)
{
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	mpsfix_reporter *r;

	ck_assert_ptr_nonnull(f);
	r = mpsfix_reporter_new(f, opts);
	if (res)
		ck_assert_int_eq(mpsfix_report_file(r, path, src, res, NULL, 0), 0);
	ck_assert_int_eq(mpsfix_report_finish(r, sum), 0);
	mpsfix_reporter_free(r);
	fclose(f);
	return data;
}

static char *report_fixture(mpsfix_format format, bool color)
{
	fixture fx;
	mpsfix_report_opts opts;
	char *out;

	fixture_init(&fx);
	opts = fixture_opts(&fx, format);
	opts.color = color;
	out = report(&opts, "t.py", &fx.src, &fx.res, NULL);
	mpsfix_source_release(&fx.src);
	return out;
}

static json_t *parse_json(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	if (!j)
		ck_abort_msg("invalid JSON at %d:%d: %s\n%s", err.line, err.column, err.text, text);
	return j;
}

/* Compare byte for byte; on a difference, say where (Check's messages are short). */
static void expect_text(const char *got, const char *want)
{
	size_t i = 0;

	while (got[i] && got[i] == want[i])
		i++;
	if (got[i] || want[i])
		ck_abort_msg("output differs at byte %zu:\n got: \"%.60s\"\nwant: \"%.60s\"",
			     i, got + (i > 20 ? i - 20 : 0), want + (i > 20 ? i - 20 : 0));
}

START_TEST(test_report_format_names)
{
	mpsfix_format f;

	ck_assert_int_eq(mpsfix_format_parse(&f, "sarif"), 0);
	ck_assert_int_eq(f, MPSFIX_FORMAT_SARIF);
	ck_assert_int_eq(mpsfix_format_parse(&f, "jsonl"), 0);
	ck_assert_int_eq(f, MPSFIX_FORMAT_JSONL);
	ck_assert_int_eq(mpsfix_format_parse(&f, "xml"), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "'xml'"));
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "github"));
	for (int i = MPSFIX_FORMAT_FULL; i <= MPSFIX_FORMAT_DIFF; i++) {
		ck_assert_int_eq(mpsfix_format_parse(&f, mpsfix_format_name((mpsfix_format)i)), 0);
		ck_assert_int_eq(f, i);
	}
}
END_TEST

START_TEST(test_report_concise)
{
	char *out = report_fixture(MPSFIX_FORMAT_CONCISE, false);

	expect_text(out,
		"t.py:2:5: MPS006 [*] non_blocking=True is unsafe on MPS\n"
		"t.py:3:12: MPS001 [~] torch.std_mean is slow: use std and mean\n"
		"t.py:4:6: MPS001 torch.std_mean is slow: use std and mean\n"
		"t.py:5:5: MPS003 call of f: 100%, odd (needs a manual fix: the fix would drop a comment)\n");
	free(out);
}
END_TEST

START_TEST(test_report_concise_color)
{
	char *out = report_fixture(MPSFIX_FORMAT_CONCISE, true);
	const char *first_line =
		"\033[1mt.py\033[0m:2:5: \033[1;31mMPS006\033[0m \033[1;32m[*]\033[0m "
		"non_blocking=True is unsafe on MPS\n";

	ck_assert_int_eq(strncmp(out, first_line, strlen(first_line)), 0);
	ck_assert_ptr_nonnull(strstr(out, "\033[1;33mMPS001\033[0m \033[1;32m[~]\033[0m"));
	ck_assert_ptr_nonnull(strstr(out, "\033[1;34mMPS003\033[0m call of f"));
	free(out);
	/* and none without */
	out = report_fixture(MPSFIX_FORMAT_FULL, false);
	ck_assert_ptr_null(strchr(out, '\033'));
	free(out);
}
END_TEST

START_TEST(test_report_full)
{
	char *out = report_fixture(MPSFIX_FORMAT_FULL, false);

	expect_text(out,
		"t.py:2:5: MPS006 [*] non_blocking=True is unsafe on MPS\n"
		"  |\n"
		"2 | y = x.to('mps', non_blocking=True)\n"
		"  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
		"  |\n"
		"  = help: safe fix available (mpsfix fix)\n"
		"\n"
		"t.py:3:12: MPS001 [~] torch.std_mean is slow: use std and mean\n"
		"  |\n"
		"3 | \xc3\xa9 = 1; z = torch.std_mean(a)\n"
		"  |            ^^^^^^^^^^^^^^^^^\n"
		"  |\n"
		"  = help: unsafe fix available (mpsfix fix --unsafe-fixes)\n"
		"\n"
		"t.py:4:6: MPS001 torch.std_mean is slow: use std and mean\n"
		"  |\n"
		"4 |     w = torch.std_mean(b)\n"
		"  |         ^^^^^^^^^^^^^^^^^\n"
		"  |\n"
		"\n"
		"t.py:5:5: MPS003 call of f: 100%, odd\n"
		"  |\n"
		"5 | q = f(\n"
		"  |     ^^\n"
		"6 |     1,\n"
		"  |     ^^\n"
		"7 | )\n"
		"  | ^\n"
		"  |\n"
		"  = help: needs a manual fix: the fix would drop a comment\n");
	free(out);
}
END_TEST

START_TEST(test_report_full_long_and_wide)
{
	/* wide characters take two columns; more than 4 lines: 2, "...", the last */
	const char code[] = "a = 1\nb = 2\nc = 3\nd = 4\nee = 5\nf = 6\ng = 7\nh = 8\n"
			    "\xe4\xb8\xad\xe6\x96\x87 = g(\n    1,\n    2,\n    3,\n)\n";
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_rule rule = {.code = "MPS002", .id = "x", .message = "m", .severity = MPSFIX_SEV_WARNING};
	mpsfix_rule *rules[] = {&rule};
	mpsfix_finding f;
	mpsfix_result res = {0};
	mpsfix_report_opts opts = {.format = MPSFIX_FORMAT_FULL, .rules = rules, .nrules = 1};
	char *out;

	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "w.py", code, sizeof(code) - 1), 0);
	f = make_finding(&src, &rule, "g(\n    1,\n    2,\n    3,\n)\n", MPSFIX_FIX_NONE);
	ck_assert_uint_eq(f.end_line, 14);
	ck_assert_uint_eq(f.end_col, 1);
	res.items = &f;
	res.len = 1;
	out = report(&opts, "w.py", &src, &res, NULL);
	expect_text(out,
		"w.py:9:6: MPS002 m\n"
		"   |\n"
		" 9 | \xe4\xb8\xad\xe6\x96\x87 = g(\n"
		"   |        ^^\n"
		"10 |     1,\n"
		"   |     ^^\n"
		"   ...\n"
		"13 | )\n"
		"   | ^\n"
		"   |\n");
	free(out);
	mpsfix_source_release(&src);
}
END_TEST

START_TEST(test_report_json)
{
	fixture fx;
	mpsfix_report_opts opts;
	static const mpsfix_report_target targets[] = {{"2.1", "b/requirements.txt:3", 3},
						      {">=1.12", NULL, 1}};
	mpsfix_report_summary sum = {.files = 4, .findings = 4, .fixable = 1, .unsafe_fixable = 1,
				     .manual = 1, .command = "check",
				     .target = "targets: torch 2.1 (b/requirements.txt:3) for 3 files, "
					       "every MPS-capable version for 1 file",
				     .targets = targets, .ntargets = 2};
	const char *want;
	char *out;
	json_t *doc, *f, *edit, *t;

	fixture_init(&fx);
	opts = fixture_opts(&fx, MPSFIX_FORMAT_JSON);
	out = report(&opts, "t.py", &fx.src, &fx.res, &sum);
	/* the beginning, byte for byte: order of keys, indent, UTF-8 kept */
	want =
		"{\n"
		"  \"version\": \"0.1.0\",\n"
		"  \"findings\": [\n"
		"    {\n"
		"      \"code\": \"MPS006\",\n"
		"      \"rule\": \"non-blocking\",\n"
		"      \"severity\": \"error\",\n"
		"      \"message\": \"non_blocking=True is unsafe on MPS\",\n"
		"      \"path\": \"t.py\",\n"
		"      \"start\": {\n"
		"        \"line\": 2,\n"
		"        \"column\": 5,\n"
		"        \"byte\": 17\n"
		"      },\n";
	ck_assert_int_eq(strncmp(out, want, strlen(want)), 0);
	ck_assert_uint_eq(out[strlen(out) - 1], '\n');
	doc = parse_json(out);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "version")), "0.1.0");
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "findings")), 4);

	f = json_array_get(json_object_get(doc, "findings"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(f, "url")), "https://example.org/mps006");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "end"), "byte")), 47);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "end"), "column")), 35);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "fix"), "applicability")), "safe");
	edit = json_array_get(json_object_get(json_object_get(f, "fix"), "edits"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(edit, "start"), "byte")), 27);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(edit, "start"), "column")), 15);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(edit, "end"), "column")), 34);
	ck_assert_str_eq(json_string_value(json_object_get(edit, "content")), "");

	f = json_array_get(json_object_get(doc, "findings"), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "start"), "column")), 12);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "start"), "byte")), 60);
	ck_assert(json_is_null(json_object_get(f, "url")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "fix"), "applicability")), "unsafe");
	edit = json_array_get(json_object_get(json_object_get(f, "fix"), "edits"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(edit, "content")), "(torch.std(a), torch.mean(a))");

	f = json_array_get(json_object_get(doc, "findings"), 2);
	ck_assert(json_is_null(json_object_get(f, "fix")));
	ck_assert_str_eq(json_string_value(json_object_get(f, "severity")), "warning");

	f = json_array_get(json_object_get(doc, "findings"), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "fix"), "applicability")), "manual");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "fix"), "reason")),
			 "the fix would drop a comment");
	ck_assert_ptr_null(json_object_get(json_object_get(f, "fix"), "edits"));
	ck_assert_str_eq(json_string_value(json_object_get(f, "severity")), "info");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "end"), "line")), 7);

	f = json_object_get(doc, "summary");
	ck_assert_str_eq(json_string_value(json_object_get(f, "command")), "check");
	ck_assert_str_eq(json_string_value(json_object_get(f, "target")),
			 "targets: torch 2.1 (b/requirements.txt:3) for 3 files, every MPS-capable version for 1 file");
	ck_assert_int_eq(json_array_size(json_object_get(f, "targets")), 2);
	t = json_array_get(json_object_get(f, "targets"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(t, "range")), "2.1");
	ck_assert_str_eq(json_string_value(json_object_get(t, "origin")), "b/requirements.txt:3");
	ck_assert_int_eq(json_integer_value(json_object_get(t, "files")), 3);
	t = json_array_get(json_object_get(f, "targets"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(t, "range")), ">=1.12");
	ck_assert(json_is_null(json_object_get(t, "origin")));
	ck_assert_int_eq(json_integer_value(json_object_get(t, "files")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(f, "findings")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(f, "unsafe_fixable")), 1);
	json_decref(doc);
	free(out);
	mpsfix_source_release(&fx.src);
}
END_TEST

START_TEST(test_report_json_empty_run)
{
	mpsfix_report_opts opts = {.format = MPSFIX_FORMAT_JSON, .tool_version = "0.1.0"};
	mpsfix_report_summary sum = {.files = 2, .command = "check"};
	char *out = report(&opts, NULL, NULL, NULL, &sum);

	expect_text(out,
		"{\n"
		"  \"version\": \"0.1.0\",\n"
		"  \"findings\": [],\n"
		"  \"summary\": {\n"
		"    \"command\": \"check\",\n"
		"    \"target\": null,\n"
		"    \"targets\": [],\n"
		"    \"files\": 2,\n"
		"    \"skipped\": 0,\n"
		"    \"findings\": 0,\n"
		"    \"fixable\": 0,\n"
		"    \"unsafe_fixable\": 0,\n"
		"    \"manual\": 0,\n"
		"    \"fixed\": 0,\n"
		"    \"errors\": 0\n"
		"  }\n"
		"}\n");
	free(out);
}
END_TEST

START_TEST(test_report_jsonl)
{
	char *out = report_fixture(MPSFIX_FORMAT_JSONL, false);

	expect_text(out,
		"{\"code\":\"MPS006\",\"rule\":\"non-blocking\",\"severity\":\"error\","
		"\"message\":\"non_blocking=True is unsafe on MPS\",\"path\":\"t.py\","
		"\"start\":{\"line\":2,\"column\":5,\"byte\":17},\"end\":{\"line\":2,\"column\":35,\"byte\":47},"
		"\"url\":\"https://example.org/mps006\",\"fix\":{\"applicability\":\"safe\",\"edits\":["
		"{\"start\":{\"line\":2,\"column\":15,\"byte\":27},\"end\":{\"line\":2,\"column\":34,\"byte\":46},"
		"\"content\":\"\"}]}}\n"
		"{\"code\":\"MPS001\",\"rule\":\"std-mean\",\"severity\":\"warning\","
		"\"message\":\"torch.std_mean is slow: use std and mean\",\"path\":\"t.py\","
		"\"start\":{\"line\":3,\"column\":12,\"byte\":60},\"end\":{\"line\":3,\"column\":29,\"byte\":77},"
		"\"url\":null,\"fix\":{\"applicability\":\"unsafe\",\"edits\":["
		"{\"start\":{\"line\":3,\"column\":12,\"byte\":60},\"end\":{\"line\":3,\"column\":29,\"byte\":77},"
		"\"content\":\"(torch.std(a), torch.mean(a))\"}]}}\n"
		"{\"code\":\"MPS001\",\"rule\":\"std-mean\",\"severity\":\"warning\","
		"\"message\":\"torch.std_mean is slow: use std and mean\",\"path\":\"t.py\","
		"\"start\":{\"line\":4,\"column\":6,\"byte\":83},\"end\":{\"line\":4,\"column\":23,\"byte\":100},"
		"\"url\":null,\"fix\":null}\n"
		"{\"code\":\"MPS003\",\"rule\":\"odd-call\",\"severity\":\"info\","
		"\"message\":\"call of f: 100%, odd\",\"path\":\"t.py\","
		"\"start\":{\"line\":5,\"column\":5,\"byte\":105},\"end\":{\"line\":7,\"column\":2,\"byte\":116},"
		"\"url\":null,\"fix\":{\"applicability\":\"manual\",\"reason\":\"the fix would drop a comment\"}}\n");
	free(out);
}
END_TEST

START_TEST(test_report_github)
{
	char *out = report_fixture(MPSFIX_FORMAT_GITHUB, false);

	expect_text(out,
		"::error file=t.py,line=2,col=5,endLine=2,endColumn=35,title=MPS006::"
		"non_blocking=True is unsafe on MPS\n"
		"::warning file=t.py,line=3,col=12,endLine=3,endColumn=29,title=MPS001::"
		"torch.std_mean is slow: use std and mean\n"
		"::warning file=t.py,line=4,col=6,endLine=4,endColumn=23,title=MPS001::"
		"torch.std_mean is slow: use std and mean\n"
		"::notice file=t.py,line=5,col=5,endLine=7,endColumn=2,title=MPS003::"
		"call of f: 100%25, odd (needs a manual fix: the fix would drop a comment)\n");
	free(out);
}
END_TEST

START_TEST(test_report_github_escaping)
{
	fixture fx;
	mpsfix_report_opts opts;
	char *out;

	fixture_init(&fx);
	fx.rules[2].message = "50%: a, b\r\nnext";
	fx.rules[2].code = "MPS:3,";
	fx.items[3].reason = "x%\ny";
	fx.res.items = &fx.items[3];
	fx.res.len = 1;
	opts = fixture_opts(&fx, MPSFIX_FORMAT_GITHUB);
	out = report(&opts, "d,1/a:b%.py", &fx.src, &fx.res, NULL);
	expect_text(out,
		"::notice file=d%2C1/a%3Ab%25.py,line=5,col=5,endLine=7,endColumn=2,title=MPS%3A3%2C::"
		"50%25: a, b%0D%0Anext (needs a manual fix: x%25%0Ay)\n");
	free(out);
	mpsfix_source_release(&fx.src);
}
END_TEST

static json_t *path_get(json_t *j, const char *path)
{
	char *copy = mpsfix_xstrdup(path), *save = NULL;

	for (char *key = strtok_r(copy, ".", &save); key && j; key = strtok_r(NULL, ".", &save)) {
		if (json_is_array(j))
			j = json_array_get(j, strtoul(key, NULL, 10));
		else
			j = json_object_get(j, key);
	}
	free(copy);
	return j;
}

static void expect_int(json_t *root, const char *path, json_int_t want)
{
	json_t *j = path_get(root, path);

	ck_assert_msg(json_is_integer(j), "%s: not an integer", path);
	ck_assert_int_eq(json_integer_value(j), want);
}

static void expect_str(json_t *root, const char *path, const char *want)
{
	json_t *j = path_get(root, path);

	ck_assert_msg(json_is_string(j), "%s: not a string", path);
	ck_assert_str_eq(json_string_value(j), want);
}

START_TEST(test_report_sarif)
{
	fixture fx;
	mpsfix_report_opts opts;
	mpsfix_report_summary sum = {.files = 1, .findings = 4, .command = "check"};
	char *out;
	json_t *log, *rules, *results;

	fixture_init(&fx);
	opts = fixture_opts(&fx, MPSFIX_FORMAT_SARIF);
	out = report(&opts, "./src dir/caf\xc3\xa9.py", &fx.src, &fx.res, &sum);
	log = parse_json(out);
	expect_str(log, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	expect_str(log, "version", "2.1.0");
	ck_assert_uint_eq(json_array_size(json_object_get(log, "runs")), 1);
	expect_str(log, "runs.0.tool.driver.name", "mpsfix");
	expect_str(log, "runs.0.tool.driver.version", "0.1.0");
	expect_str(log, "runs.0.columnKind", "unicodeCodePoints");
	ck_assert(json_is_true(path_get(log, "runs.0.invocations.0.executionSuccessful")));

	rules = path_get(log, "runs.0.tool.driver.rules");
	ck_assert_uint_eq(json_array_size(rules), 3);
	expect_str(rules, "0.id", "MPS006");
	expect_str(rules, "0.name", "non-blocking");
	expect_str(rules, "0.shortDescription.text", "non_blocking=True is unsafe on MPS");
	expect_str(rules, "0.fullDescription.text", "Copies may finish after their use.");
	expect_str(rules, "0.helpUri", "https://example.org/mps006");
	expect_str(rules, "0.defaultConfiguration.level", "error");
	ck_assert_ptr_null(path_get(rules, "1.helpUri"));
	ck_assert_ptr_null(path_get(rules, "1.fullDescription"));
	expect_str(rules, "1.defaultConfiguration.level", "warning");
	expect_str(rules, "2.defaultConfiguration.level", "note");

	results = path_get(log, "runs.0.results");
	ck_assert_uint_eq(json_array_size(results), 4);
	expect_str(results, "0.ruleId", "MPS006");
	expect_int(results, "0.ruleIndex", 0);
	expect_str(results, "0.level", "error");
	expect_str(results, "0.message.text", "non_blocking=True is unsafe on MPS");
	expect_str(results, "0.locations.0.physicalLocation.artifactLocation.uri", "src%20dir/caf%C3%A9.py");
	expect_int(results, "0.locations.0.physicalLocation.region.startLine", 2);
	expect_int(results, "0.locations.0.physicalLocation.region.startColumn", 5);
	expect_int(results, "0.locations.0.physicalLocation.region.endLine", 2);
	expect_int(results, "0.locations.0.physicalLocation.region.endColumn", 35);
	expect_int(results, "0.locations.0.physicalLocation.region.byteOffset", 17);
	expect_int(results, "0.locations.0.physicalLocation.region.byteLength", 30);
	expect_str(results, "0.fixes.0.description.text", "safe fix (mpsfix fix)");
	expect_str(results, "0.fixes.0.artifactChanges.0.artifactLocation.uri", "src%20dir/caf%C3%A9.py");
	expect_int(results, "0.fixes.0.artifactChanges.0.replacements.0.deletedRegion.byteOffset", 27);
	expect_int(results, "0.fixes.0.artifactChanges.0.replacements.0.deletedRegion.byteLength", 19);
	expect_str(results, "0.fixes.0.artifactChanges.0.replacements.0.insertedContent.text", "");

	expect_int(results, "1.ruleIndex", 1);
	expect_str(results, "1.level", "warning");
	expect_int(results, "1.locations.0.physicalLocation.region.startColumn", 12);
	expect_str(results, "1.fixes.0.description.text", "unsafe fix (mpsfix fix --unsafe-fixes)");
	expect_str(results, "1.fixes.0.artifactChanges.0.replacements.0.insertedContent.text",
		   "(torch.std(a), torch.mean(a))");

	expect_int(results, "2.ruleIndex", 1);
	ck_assert_ptr_null(path_get(results, "2.fixes"));

	expect_int(results, "3.ruleIndex", 2);
	expect_str(results, "3.level", "note");
	expect_str(results, "3.message.text", "call of f: 100%, odd (needs a manual fix: the fix would drop a comment)");
	expect_int(results, "3.locations.0.physicalLocation.region.endLine", 7);
	ck_assert_ptr_null(path_get(results, "3.fixes"));
	json_decref(log);
	free(out);
	mpsfix_source_release(&fx.src);
}
END_TEST

START_TEST(test_report_sarif_empty_run)
{
	mpsfix_report_opts opts = {.format = MPSFIX_FORMAT_SARIF, .tool_version = "0.1.0"};
	char *out = report(&opts, NULL, NULL, NULL, NULL);
	json_t *log = parse_json(out);

	ck_assert(json_is_array(path_get(log, "runs.0.results")));
	ck_assert_uint_eq(json_array_size(path_get(log, "runs.0.results")), 0);
	ck_assert_uint_eq(json_array_size(path_get(log, "runs.0.tool.driver.rules")), 0);
	ck_assert_ptr_null(path_get(log, "runs.0.invocations"));
	json_decref(log);
	free(out);
}
END_TEST

START_TEST(test_report_sarif_absolute_path_and_unknown_rule)
{
	fixture fx;
	mpsfix_report_opts opts;
	char *out;
	json_t *log;

	fixture_init(&fx);
	opts = fixture_opts(&fx, MPSFIX_FORMAT_SARIF);
	opts.nrules = 1; /* MPS001 and MPS003 were not given: added as they come */
	out = report(&opts, "/tmp/a b.py", &fx.src, &fx.res, NULL);
	log = parse_json(out);
	expect_str(log, "runs.0.results.0.locations.0.physicalLocation.artifactLocation.uri",
		   "file:///tmp/a%20b.py");
	ck_assert_uint_eq(json_array_size(path_get(log, "runs.0.tool.driver.rules")), 3);
	expect_int(log, "runs.0.results.1.ruleIndex", 1);
	expect_int(log, "runs.0.results.2.ruleIndex", 1);
	expect_int(log, "runs.0.results.3.ruleIndex", 2);
	expect_str(log, "runs.0.tool.driver.rules.2.id", "MPS003");
	json_decref(log);
	free(out);
	mpsfix_source_release(&fx.src);
}
END_TEST

/* One unused suppression on line 2 between findings on lines 1 and 3. */
static char *report_unused(mpsfix_format format, bool show_unused)
{
	const char code[] = "f(1)\nx = 1  # noqa: MPS001\nf(2)\n";
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_rule rule = {.code = "MPS009", .id = "eff", .message = "f called", .severity = MPSFIX_SEV_INFO};
	mpsfix_rule *rules[] = {&rule};
	mpsfix_finding f[2];
	mpsfix_unused_suppression u = {.line = 2, .col = 8, .codes = "MPS001"};
	mpsfix_result res = {0};
	mpsfix_report_opts opts = {.format = format, .rules = rules, .nrules = 1,
				   .show_unused = show_unused};
	char *out;

	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "u.py", code, sizeof(code) - 1), 0);
	f[0] = make_finding(&src, &rule, "f(1)", MPSFIX_FIX_NONE);
	f[1] = make_finding(&src, &rule, "f(2)", MPSFIX_FIX_NONE);
	res.items = f;
	res.len = 2;
	res.unused = &u;
	res.nunused = 1;
	out = report(&opts, "u.py", &src, &res, NULL);
	mpsfix_source_release(&src);
	return out;
}

START_TEST(test_report_unused_suppressions)
{
	char *out = report_unused(MPSFIX_FORMAT_CONCISE, true);
	json_t *j;

	expect_text(out,
		"u.py:1:1: MPS009 f called\n"
		"u.py:2:8: MPS000 unused suppression comment for MPS001\n"
		"u.py:3:1: MPS009 f called\n");
	free(out);
	out = report_unused(MPSFIX_FORMAT_CONCISE, false);
	ck_assert_str_eq(out, "u.py:1:1: MPS009 f called\nu.py:3:1: MPS009 f called\n");
	free(out);

	out = report_unused(MPSFIX_FORMAT_FULL, true);
	ck_assert_ptr_nonnull(strstr(out,
		"u.py:2:8: MPS000 unused suppression comment for MPS001\n"
		"  |\n"
		"2 | x = 1  # noqa: MPS001\n"
		"  |        ^^^^^^^^^^^^^^\n"
		"  |\n"
		"  = help: remove the comment, or the codes it names that hide nothing\n"));
	free(out);

	out = report_unused(MPSFIX_FORMAT_GITHUB, true);
	ck_assert_ptr_nonnull(strstr(out,
		"::warning file=u.py,line=2,col=8,endLine=2,endColumn=22,title=MPS000::"
		"unused suppression comment for MPS001\n"));
	free(out);

	out = report_unused(MPSFIX_FORMAT_JSONL, true);
	ck_assert_ptr_nonnull(strstr(out,
		"\n{\"code\":\"MPS000\",\"rule\":\"unused-suppression\",\"severity\":\"warning\","
		"\"message\":\"unused suppression comment for MPS001\",\"path\":\"u.py\","
		"\"start\":{\"line\":2,\"column\":8,\"byte\":12},\"end\":{\"line\":2,\"column\":22,\"byte\":26},"
		"\"url\":null,\"fix\":null}\n"));
	free(out);

	out = report_unused(MPSFIX_FORMAT_SARIF, true);
	j = parse_json(out);
	ck_assert_uint_eq(json_array_size(path_get(j, "runs.0.tool.driver.rules")), 2);
	expect_str(j, "runs.0.tool.driver.rules.1.id", "MPS000");
	expect_str(j, "runs.0.tool.driver.rules.1.name", "unused-suppression");
	expect_str(j, "runs.0.results.1.ruleId", "MPS000");
	expect_int(j, "runs.0.results.1.ruleIndex", 1);
	expect_str(j, "runs.0.results.1.level", "warning");
	json_decref(j);
	free(out);
	out = report_unused(MPSFIX_FORMAT_SARIF, false);
	j = parse_json(out);
	ck_assert_uint_eq(json_array_size(path_get(j, "runs.0.tool.driver.rules")), 1);
	ck_assert_uint_eq(json_array_size(path_get(j, "runs.0.results")), 2);
	json_decref(j);
	free(out);
}
END_TEST

START_TEST(test_report_diff_only_diffs)
{
	fixture fx;
	mpsfix_report_opts opts;
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	mpsfix_reporter *r;
	const char diff[] = "--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-a\n+b\n";

	fixture_init(&fx);
	opts = fixture_opts(&fx, MPSFIX_FORMAT_DIFF);
	r = mpsfix_reporter_new(f, &opts);
	ck_assert_int_eq(mpsfix_report_file(r, "t.py", &fx.src, &fx.res, diff, sizeof(diff) - 1), 0);
	ck_assert_int_eq(mpsfix_report_file(r, "u.py", &fx.src, &fx.res, NULL, 0), 0);
	ck_assert_int_eq(mpsfix_report_finish(r, NULL), 0);
	mpsfix_reporter_free(r);
	fclose(f);
	ck_assert_str_eq(data, diff);
	free(data);
	mpsfix_source_release(&fx.src);
}
END_TEST

START_TEST(test_report_engine_findings)
{
	/* the real engine's findings, reported as main reported them */
	const char *pats[] = {"f($X)", NULL};
	mpsfix_rule *r = tu_rule("MPS999", pats, NULL, "g($X)", NULL, false);
	mpsfix_result res = MPSFIX_RESULT_INIT;
	const char code[] = "import torch\n\xc3\xa9 = f(1)\n";
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_report_opts opts = {.format = MPSFIX_FORMAT_CONCISE, .rules = &r, .nrules = 1};
	char *out;
	json_t *j;

	tu_run(r, code, sizeof(code) - 1, false, &res);
	ck_assert_int_eq(mpsfix_source_from_buffer(&src, "t.py", code, sizeof(code) - 1), 0);
	out = report(&opts, "t.py", &src, &res, NULL);
	ck_assert_str_eq(out, "t.py:2:5: MPS999 [*] test message\n");
	free(out);
	opts.format = MPSFIX_FORMAT_JSONL;
	out = report(&opts, "t.py", &src, &res, NULL);
	j = parse_json(out);
	expect_int(j, "fix.edits.0.start.byte", 18);
	expect_int(j, "fix.edits.0.start.column", 5);
	expect_int(j, "fix.edits.0.end.column", 9);
	expect_str(j, "fix.edits.0.content", "g(1)");
	json_decref(j);
	free(out);
	mpsfix_source_release(&src);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
}
END_TEST

START_TEST(test_report_write_error)
{
	fixture fx;
	mpsfix_report_opts opts;
	FILE *f = fopen("/dev/full", "w");
	mpsfix_reporter *r;

	if (!f)
		return; /* no /dev/full here */
	setvbuf(f, NULL, _IONBF, 0);
	fixture_init(&fx);
	opts = fixture_opts(&fx, MPSFIX_FORMAT_CONCISE);
	r = mpsfix_reporter_new(f, &opts);
	ck_assert_int_eq(mpsfix_report_file(r, "t.py", &fx.src, &fx.res, NULL, 0), MPSFIX_ERROR);
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "cannot write the report"));
	mpsfix_reporter_free(r);
	fclose(f);

	/* buffered: the document is written at the end, and that fails */
	f = fopen("/dev/full", "w");
	opts.format = MPSFIX_FORMAT_SARIF;
	r = mpsfix_reporter_new(f, &opts);
	ck_assert_int_eq(mpsfix_report_file(r, "t.py", &fx.src, &fx.res, NULL, 0), 0);
	ck_assert_int_eq(mpsfix_report_finish(r, NULL), MPSFIX_ERROR);
	mpsfix_reporter_free(r);
	fclose(f);
	mpsfix_source_release(&fx.src);
}
END_TEST

START_TEST(test_report_statistics)
{
	mpsfix_rule a = {.code = "MPS001", .id = "std-mean"}, b = {.code = "MPS010", .id = "pin-memory"},
		    c = {.code = "MPS002", .id = "unused"}, d = {.code = "MPS0100", .id = "long-code"};
	mpsfix_rule *rules[] = {&a, &b, &c, &d};
	size_t counts[] = {3, 12, 0, 3}, fixable[] = {0, 5, 0, 3};
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);

	mpsfix_report_statistics(f, rules, 4, counts, fixable);
	fclose(f);
	expect_text(data,
		"12 MPS010  [*] pin-memory\n"
		" 3 MPS001      std-mean\n"
		" 3 MPS0100 [*] long-code\n");
	free(data);
}
END_TEST

Suite *mpsfix_suite_report(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, test_report_format_names);
	tcase_add_test(tc, test_report_concise);
	tcase_add_test(tc, test_report_concise_color);
	tcase_add_test(tc, test_report_full);
	tcase_add_test(tc, test_report_full_long_and_wide);
	tcase_add_test(tc, test_report_json);
	tcase_add_test(tc, test_report_json_empty_run);
	tcase_add_test(tc, test_report_jsonl);
	tcase_add_test(tc, test_report_github);
	tcase_add_test(tc, test_report_github_escaping);
	tcase_add_test(tc, test_report_sarif);
	tcase_add_test(tc, test_report_sarif_empty_run);
	tcase_add_test(tc, test_report_sarif_absolute_path_and_unknown_rule);
	tcase_add_test(tc, test_report_unused_suppressions);
	tcase_add_test(tc, test_report_diff_only_diffs);
	tcase_add_test(tc, test_report_engine_findings);
	tcase_add_test(tc, test_report_write_error);
	tcase_add_test(tc, test_report_statistics);
	suite_add_tcase(s, tc);
	return s;
}
