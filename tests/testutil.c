#define _XOPEN_SOURCE 700 /* nftw */
#include "testutil.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "parse.h"
#include "template.h"

static TSParser *parser;

char *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char chunk[4096];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		mpsfix_buf_add(&b, chunk, n);
	fclose(f);
	return mpsfix_buf_detach(&b, len);
}

TSParser *tu_parser(void)
{
	if (!parser && mpsfix_parser_new(&parser) < 0)
		abort();
	return parser;
}

typedef struct {
	const mpsfix_pattern *p;
	const char *code;
	mpsfix_matcher *m;
	mpsfix_match first;
	int count;
} match_scan;

static mpsfix_walk_action try_match(TSNode n, void *payload)
{
	match_scan *ms = payload;
	mpsfix_match mm = {0};

	if (mpsfix_match_node(&mm, ms->m, ms->p, n, ms->code) == 0) {
		if (ms->count++ == 0)
			ms->first = mm;
		else
			mpsfix_match_release(&mm);
	}
	return MPSFIX_WALK_DESCEND;
}

int tu_match_tree(mpsfix_match *first, const mpsfix_pattern *p, TSTree *tree, const char *code)
{
	match_scan ms = {.p = p, .code = code, .m = mpsfix_matcher_new()};

	mpsfix_walk(ts_tree_root_node(tree), try_match, &ms);
	mpsfix_matcher_free(ms.m);
	if (first && ms.count)
		*first = ms.first;
	else if (ms.count)
		mpsfix_match_release(&ms.first);
	return ms.count;
}

static int first_match(mpsfix_match *out, int *count, const mpsfix_pattern *p, TSTree *tree,
		       const char *code)
{
	*count = tu_match_tree(out, p, tree, code);
	return *count ? 0 : MPSFIX_ENOMATCH;
}

int tu_count_matches(const char *pattern, const char *code)
{
	mpsfix_pattern *p = NULL;
	uint32_t off;
	TSTree *tree = NULL;
	mpsfix_match m = {0};
	int count = -1;

	if (mpsfix_pattern_compile(&p, tu_parser(), pattern, strlen(pattern), &off) < 0)
		return -1;
	if (mpsfix_parse(&tree, tu_parser(), code, (uint32_t)strlen(code)) == 0 &&
	    first_match(&m, &count, p, tree, code) == 0)
		mpsfix_match_release(&m);
	ts_tree_delete(tree);
	mpsfix_pattern_free(p);
	return count;
}

char *tu_binding(const char *pattern, const char *code, const char *name)
{
	mpsfix_pattern *p = NULL;
	uint32_t off;
	TSTree *tree = NULL;
	mpsfix_match m = {0};
	char *text = NULL;
	int count;

	if (mpsfix_pattern_compile(&p, tu_parser(), pattern, strlen(pattern), &off) < 0)
		return NULL;
	if (mpsfix_parse(&tree, tu_parser(), code, (uint32_t)strlen(code)) == 0 &&
	    first_match(&m, &count, p, tree, code) == 0) {
		const mpsfix_binding *b = mpsfix_match_get(&m, name);

		if (b && !b->multi) {
			text = mpsfix_xstrndup(code + ts_node_start_byte(b->node),
					       ts_node_end_byte(b->node) - ts_node_start_byte(b->node));
		} else if (b) {
			mpsfix_buf buf = MPSFIX_BUF_INIT;

			for (uint32_t i = 0; i < b->count; i++) {
				TSNode n = m.nodes[b->first + i];

				if (i)
					mpsfix_buf_adds(&buf, "|");
				mpsfix_buf_add(&buf, code + ts_node_start_byte(n),
					       ts_node_end_byte(n) - ts_node_start_byte(n));
			}
			text = mpsfix_buf_detach(&buf, NULL);
		}
		mpsfix_match_release(&m);
	}
	ts_tree_delete(tree);
	mpsfix_pattern_free(p);
	return text;
}

mpsfix_rule *tu_rule(const char *code, const char *const *patterns, const char *target,
		     const char *tmpl, const char *remove_target, bool unsafe)
{
	mpsfix_rule *r = mpsfix_xcalloc(1, sizeof(*r));
	uint32_t off;
	size_t n = 0;

	while (patterns[n])
		n++;
	r->path = mpsfix_xstrdup("test.yml");
	r->id = mpsfix_xstrdup("test-rule");
	r->code = mpsfix_xstrdup(code);
	r->message = mpsfix_xstrdup("test message");
	r->torch = mpsfix_xstrdup("all");
	r->range = MPSFIX_TORCH_RANGE_ALL;
	r->severity = MPSFIX_SEV_WARNING;
	r->enabled = true;
	r->patterns = mpsfix_xcalloc(n, sizeof(*r->patterns));
	for (size_t i = 0; i < n; i++) {
		if (mpsfix_pattern_compile(&r->patterns[i], tu_parser(), patterns[i],
					   strlen(patterns[i]), &off) < 0)
			abort();
		r->npatterns++;
	}
	if (tmpl || remove_target) {
		r->fix.present = true;
		r->fix.unsafe = unsafe;
		r->fix.cases = mpsfix_xcalloc(1, sizeof(*r->fix.cases));
		r->fix.ncases = 1;
		r->fix.cases[0].edits = mpsfix_xcalloc(1, sizeof(*r->fix.cases[0].edits));
		r->fix.cases[0].nedits = 1;
		if (tmpl) {
			r->fix.cases[0].edits[0].op = MPSFIX_FIX_REPLACE;
			r->fix.cases[0].edits[0].target = target ? mpsfix_xstrdup(target) : NULL;
			if (mpsfix_template_compile(&r->fix.cases[0].edits[0].tmpl, tu_parser(), tmpl,
						    strlen(tmpl), &off) < 0)
				abort();
		} else {
			r->fix.cases[0].edits[0].op = MPSFIX_FIX_REMOVE;
			r->fix.cases[0].edits[0].target = mpsfix_xstrdup(remove_target);
		}
	}
	return r;
}

void tu_rule_value(mpsfix_rule *r, const char *name, const char *str_value, int bool_value)
{
	mpsfix_constraint *c;

	r->constraints = mpsfix_xrealloc(r->constraints, (r->nconstraints + 1) * sizeof(*c));
	c = &r->constraints[r->nconstraints++];
	memset(c, 0, sizeof(*c));
	c->absent = c->with_item = c->statement = c->opt_in = c->used = -1;
	c->metavar = mpsfix_xstrdup(name);
	c->values = mpsfix_xcalloc(1, sizeof(*c->values));
	c->nvalues = 1;
	if (str_value) {
		c->values[0].type = MPSFIX_LIT_STRING;
		c->values[0].s = mpsfix_xstrdup(str_value);
		c->values[0].slen = strlen(str_value);
	} else {
		c->values[0].type = MPSFIX_LIT_BOOL;
		c->values[0].b = bool_value;
	}
	/* re-attach every constraint: the array may have moved */
	for (size_t k = 0; k < r->nconstraints; k++)
		for (size_t i = 0; i < r->npatterns; i++) {
			int idx = mpsfix_pattern_metavar_index(r->patterns[i], r->constraints[k].metavar);

			if (idx >= 0)
				r->patterns[i]->metavars[idx].constraint = &r->constraints[k];
		}
}

char *tu_run(mpsfix_rule *rule, const char *code, size_t len, bool fix, mpsfix_result *res)
{
	mpsfix_ctx ctx;
	mpsfix_source src = MPSFIX_SOURCE_INIT;
	mpsfix_index *ix = mpsfix_index_new(&rule, 1);
	mpsfix_engine_opts opts = {.fix = fix, .unsafe_fixes = true, .verbose = true};
	char *text = NULL;

	if (mpsfix_ctx_init(&ctx) < 0 ||
	    mpsfix_source_from_buffer(&src, "t.py", code, len) < 0 ||
	    mpsfix_engine_run(res, &ctx, ix, &src, &opts) < 0)
		abort();
	if (fix)
		text = mpsfix_xstrndup(res->text, res->text_len);
	mpsfix_source_release(&src);
	mpsfix_index_free(ix);
	mpsfix_ctx_release(&ctx);
	return text;
}

char *tu_fix_yaml(const char *yaml, const char *code)
{
	mpsfix_rule *r = NULL;
	mpsfix_result res = MPSFIX_RESULT_INIT;
	char *text, *out;

	if (mpsfix_rule_load_buffer(&r, tu_parser(), "t.yml", yaml, strlen(yaml)) < 0)
		return mpsfix_xasprintf("RULE: %s", mpsfix_error_last()->message);
	text = tu_run(r, code, strlen(code), true, &res);
	if (res.len && res.items[0].fix == MPSFIX_FIX_MANUAL)
		out = mpsfix_xasprintf("MANUAL: %s", res.items[0].reason);
	else
		out = mpsfix_xstrdup(text);
	free(text);
	mpsfix_result_release(&res);
	mpsfix_rule_free(r);
	return out;
}

/* the environment git and libgit2 read, replaced for each test */
static const char *const git_env[] = {
	"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES",
};
static char *saved_git_env[MPSFIX_ARRAY_SIZE(git_env)];

void tu_git_isolate(const char *home)
{
	char *xdg = mpsfix_xasprintf("%s/xdg", home);
	char *global = mpsfix_xasprintf("%s/.gitconfig", home);

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(git_env); i++) {
		const char *v = getenv(git_env[i]);

		saved_git_env[i] = v ? mpsfix_xstrdup(v) : NULL;
		unsetenv(git_env[i]);
	}
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("GIT_CONFIG_GLOBAL", global, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	free(xdg);
	free(global);
}

void tu_git_restore(void)
{
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(git_env); i++) {
		if (saved_git_env[i])
			setenv(git_env[i], saved_git_env[i], 1);
		else
			unsetenv(git_env[i]);
		free(saved_git_env[i]);
		saved_git_env[i] = NULL;
	}
}

static int run_shell(mpsfix_buf *out, const char *dir, const char *fmt, va_list ap)
{
	mpsfix_buf cmd = MPSFIX_BUF_INIT;
	FILE *p;
	char chunk[4096];
	size_t n;
	int status;

	mpsfix_buf_printf(&cmd, "cd '%s' && { ", dir);
	mpsfix_buf_vprintf(&cmd, fmt, ap);
	mpsfix_buf_adds(&cmd, "\n}");
	if ((p = popen(cmd.data, "r")) == NULL) {
		mpsfix_buf_release(&cmd);
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		if (out)
			mpsfix_buf_add(out, chunk, n);
	status = pclose(p);
	mpsfix_buf_release(&cmd);
	return status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int tu_sh(const char *dir, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = run_shell(NULL, dir, fmt, ap);
	va_end(ap);
	return rc;
}

char *tu_sh_out(const char *dir, const char *fmt, ...)
{
	mpsfix_buf out = MPSFIX_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	run_shell(&out, dir, fmt, ap);
	va_end(ap);
	mpsfix_buf_adds(&out, "");
	if (out.len && out.data[out.len - 1] == '\n')
		out.data[--out.len] = '\0';
	return mpsfix_buf_detach(&out, NULL);
}

void tu_put(const char *dir, const char *rel, const char *text)
{
	char *path = mpsfix_xasprintf("%s/%s", dir, rel);
	FILE *f;

	for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	if ((f = fopen(path, "wb")) == NULL || fwrite(text, 1, strlen(text), f) != strlen(text) ||
	    fclose(f) != 0)
		abort();
	free(path);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

mpsfix_rule *tu_yaml_rule(const char *yaml)
{
	mpsfix_rule *r = NULL;

	if (mpsfix_rule_load_buffer(&r, tu_parser(), "t.yml", yaml, strlen(yaml)) < 0) {
		fprintf(stderr, "tu_yaml_rule: %s\n", mpsfix_error_last()->message);
		abort();
	}
	return r;
}
