/*
 * config.c: the `.mpsfix.yml` file — found upward from a folder, read into a
 * small YAML tree (yaml_util.c) and checked key by key, as rule_load.c does for
 * rule files — and the rule selection and path globs it drives.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rule.h"
#include "style.h"
#include "torchver.h"
#include "yaml_util.h"

#define CONFIG_FILE_MAX (1024u * 1024u)
#define CONFIG_NAME ".mpsfix.yml"

/* --- finding the file ---------------------------------------------------------------- */

int mpsfix_config_find(char **out, const char *start)
{
	char *dir = NULL;
	mpsfix_buf path = MPSFIX_BUF_INIT;
	struct stat st;
	int error = 0;

	*out = NULL;
	if (!(dir = realpath(start && *start ? start : ".", NULL))) {
		error = mpsfix_error_set(MPSFIX_ERROR, "cannot resolve folder '%s': %s",
					 start && *start ? start : ".", strerror(errno));
		goto done;
	}
	for (;;) {
		size_t n = strlen(dir);
		char *slash;

		mpsfix_buf_clear(&path);
		mpsfix_buf_printf(&path, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
				  CONFIG_NAME);
		if (stat(path.data, &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				*out = mpsfix_buf_detach(&path, NULL);
				goto done;
			}
		} else if (errno != ENOENT && errno != ENOTDIR && errno != EACCES) {
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot look for '%s': %s",
						 path.data, strerror(errno));
			goto done;
		}
		if (strcmp(dir, "/") == 0 || !(slash = strrchr(dir, '/')))
			break;
		/* the parent: "/a/b" -> "/a", "/a" -> "/" */
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
done:
	free(dir);
	mpsfix_buf_release(&path);
	return error;
}

/*
 * The absolute folder of `path`: resolved with realpath() when it exists,
 * else the current directory joined with it, as written.
 */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real, *cwd;
	char *abs;

	if (!slash)
		dir = mpsfix_xstrdup(".");
	else if (slash == path)
		dir = mpsfix_xstrdup("/");
	else
		dir = mpsfix_xstrndup(path, (size_t)(slash - path));
	if ((real = realpath(dir, NULL))) {
		free(dir);
		return real;
	}
	if (dir[0] == '/' || !(cwd = getcwd(NULL, 0)))
		return dir;
	abs = strcmp(dir, ".") == 0 ? mpsfix_xstrdup(cwd) : mpsfix_xasprintf("%s/%s", cwd, dir);
	free(cwd);
	free(dir);
	return abs;
}

/* --- loading ------------------------------------------------------------------------ */

static const char *const config_names[] = {
	"select", "extend-select", "ignore", "exclude", "per-file-ignores",
	"target-torch", "rules", "unsafe-fixes", "line-length",
};
enum {
	K_SELECT, K_EXTEND_SELECT, K_IGNORE, K_EXCLUDE, K_PER_FILE_IGNORES,
	K_TARGET_TORCH, K_RULES, K_UNSAFE_FIXES, K_LINE_LENGTH, K_COUNT
};
_Static_assert(K_COUNT <= MPSFIX_YAML_MAX_FIELDS, "the configuration has more keys than mpsfix_yaml_fields holds");

typedef struct {
	const mpsfix_yaml_doc *doc;
	mpsfix_config *cfg;
} loader;

/*
 * A list of strings: a sequence of non-empty strings, or one string (a list
 * of one); null (`ignore:` with nothing after it) is the empty list.
 */
static int load_strings(const loader *ld, const char *name, const mpsfix_yaml_node *v,
			mpsfix_strvec *out)
{
	size_t n = v->type == MPSFIX_YAML_SEQ ? v->nitems : 1;

	if (v->type == MPSFIX_YAML_SCALAR && mpsfix_yaml_is_null(v))
		return 0;
	if (v->type == MPSFIX_YAML_MAP)
		return mpsfix_yaml_fail(ld->doc, v, "'%s' must be a string or a list of strings",
					name);
	for (size_t i = 0; i < n; i++) {
		const mpsfix_yaml_node *item = v->type == MPSFIX_YAML_SEQ ? v->items[i] : v;

		if (!mpsfix_yaml_is_string(item))
			return mpsfix_yaml_fail(ld->doc, item, "'%s' must be a string or a list "
						"of strings", name);
		if (item->len == 0)
			return mpsfix_yaml_fail(ld->doc, item, "empty string in '%s'", name);
		mpsfix_strvec_push(out, item->value);
		if (!strcmp(name, "select") || !strcmp(name, "extend-select") || !strcmp(name, "ignore") ||
		    !strcmp(name, "per-file-ignores")) {
			mpsfix_strvec_push(&ld->cfg->selectors, item->value);
			mpsfix_strvec_push_owned(&ld->cfg->selectors_at,
						 mpsfix_xasprintf("%s:%u:%u: '%s'", ld->doc->path, item->line,
								  item->col, name));
		}
	}
	return 0;
}

static int load_per_file_ignores(const loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_config *cfg = ld->cfg;
	size_t n;
	int error = 0;

	if (v->type == MPSFIX_YAML_SCALAR && mpsfix_yaml_is_null(v))
		return 0;
	if (v->type != MPSFIX_YAML_MAP)
		return mpsfix_yaml_fail(ld->doc, v, "'per-file-ignores' must be a mapping "
					"from globs to lists of codes");
	n = mpsfix_yaml_npairs(v);
	cfg->per_file_ignores = mpsfix_xcalloc(n ? n : 1, sizeof(*cfg->per_file_ignores));
	for (size_t i = 0; i < n && error == 0; i++) {
		const mpsfix_yaml_node *k = mpsfix_yaml_key(v, i);
		mpsfix_per_file_ignore *p = &cfg->per_file_ignores[cfg->nper_file_ignores];

		if (!mpsfix_yaml_is_string(k) || k->len == 0)
			return mpsfix_yaml_fail(ld->doc, k, "a key of 'per-file-ignores' must "
						"be a glob");
		p->glob = mpsfix_xstrndup(k->value, k->len);
		cfg->nper_file_ignores++;
		error = load_strings(ld, "per-file-ignores", mpsfix_yaml_value(v, i), &p->codes);
	}
	return error;
}

/* Rule paths are relative to the configuration file's folder. */
static int load_rule_paths(const loader *ld, const mpsfix_yaml_node *v)
{
	mpsfix_strvec given = {0};
	int error;

	if ((error = load_strings(ld, "rules", v, &given)) == 0) {
		for (size_t i = 0; i < given.len; i++) {
			char *p = given.items[i][0] == '/' ?
				mpsfix_xstrdup(given.items[i]) :
				mpsfix_xasprintf("%s/%s", ld->cfg->dir, given.items[i]);

			mpsfix_strvec_push(&ld->cfg->rules, p);
			free(p);
		}
	}
	mpsfix_strvec_release(&given);
	return error;
}

static int load_field(const loader *ld, size_t j, const mpsfix_yaml_node *v)
{
	mpsfix_config *cfg = ld->cfg;
	mpsfix_torch_range range;
	bool b;

	switch (j) {
	case K_SELECT:
		cfg->has_select = true;
		return load_strings(ld, "select", v, &cfg->select);
	case K_EXTEND_SELECT:
		return load_strings(ld, "extend-select", v, &cfg->extend_select);
	case K_IGNORE:
		return load_strings(ld, "ignore", v, &cfg->ignore);
	case K_EXCLUDE:
		return load_strings(ld, "exclude", v, &cfg->exclude);
	case K_PER_FILE_IGNORES:
		return load_per_file_ignores(ld, v);
	case K_TARGET_TORCH:
		if (!mpsfix_yaml_is_string(v))
			return mpsfix_yaml_fail(ld->doc, v, "'target-torch' must be a string, "
						"like \">=2.1,<2.6\"");
		if (mpsfix_torch_range_parse(&range, v->value, v->len, MPSFIX_TORCH_SYNTAX_SPEC) < 0) {
			char reason[MPSFIX_ERROR_MAX];

			snprintf(reason, sizeof(reason), "%s", mpsfix_error_last()->message);
			return mpsfix_yaml_fail(ld->doc, v, "bad target-torch '%s': %s", v->value, reason);
		}
		cfg->target_torch = mpsfix_xstrndup(v->value, v->len);
		return 0;
	case K_RULES:
		return load_rule_paths(ld, v);
	case K_LINE_LENGTH:
		/* a plain number, as the command line's */
		if (v->type != MPSFIX_YAML_SCALAR || v->style != MPSFIX_YAML_PLAIN ||
		    mpsfix_style_parse_line_length(&cfg->line_length, v->value, "'line-length'") < 0)
			return mpsfix_yaml_fail(ld->doc, v, "'line-length' must be a number of columns "
						"from 1 to %d", MPSFIX_STYLE_LINE_LENGTH_MAX);
		return 0;
	default:
		if (!mpsfix_yaml_bool(v, &b))
			return mpsfix_yaml_fail(ld->doc, v, "'unsafe-fixes' must be true or false");
		cfg->unsafe_fixes = b;
		return 0;
	}
}

/*
 * Unknown keys are reported by mpsfix_yaml_collect() (with a "did you
 * mean"); the message is completed with the list of the keys there are.
 */
static int unknown_key(void)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error;

	mpsfix_buf_adds(&b, mpsfix_error_last()->message);
	mpsfix_buf_adds(&b, "; valid keys:");
	for (size_t i = 0; i < K_COUNT; i++)
		mpsfix_buf_printf(&b, "%s %s", i ? "," : "", config_names[i]);
	error = mpsfix_error_set(mpsfix_error_last()->code, "%s", b.data);
	mpsfix_buf_release(&b);
	return error;
}

static int load_config(const loader *ld, const mpsfix_yaml_node *root)
{
	mpsfix_yaml_fields f;
	int error = 0;

	if (!root)
		return 0; /* an empty file: all defaults */
	if (root->type != MPSFIX_YAML_MAP)
		return mpsfix_yaml_fail(ld->doc, root, "a configuration must be a mapping of "
					"keys (select, ignore, exclude, ...)");
	if ((error = mpsfix_yaml_collect(&f, ld->doc, root, NULL, config_names, K_COUNT, 0)) < 0)
		return unknown_key();
	for (size_t i = 0; i < mpsfix_yaml_npairs(root) && error == 0; i++) {
		const char *key = mpsfix_yaml_key(root, i)->value;

		error = load_field(ld, mpsfix_yaml_field_index(config_names, K_COUNT, key),
				   mpsfix_yaml_value(root, i));
	}
	return error;
}

int mpsfix_config_load_buffer(mpsfix_config *cfg, const char *path, const char *data, size_t len)
{
	mpsfix_yaml_doc doc = MPSFIX_YAML_DOC_INIT;
	loader ld = {.doc = &doc, .cfg = cfg};
	int error;

	*cfg = (mpsfix_config)MPSFIX_CONFIG_INIT;
	if (len > CONFIG_FILE_MAX)
		return mpsfix_error_set(MPSFIX_ERROR, "%s: the file is larger than %u KiB", path,
					CONFIG_FILE_MAX / 1024);
	cfg->path = mpsfix_xstrdup(path);
	cfg->dir = folder_of(path);
	if ((error = mpsfix_yaml_load(&doc, cfg->path, data, len)) < 0)
		goto done;
	error = load_config(&ld, doc.root);
done:
	mpsfix_yaml_release(&doc);
	if (error < 0)
		mpsfix_config_release(cfg);
	return error;
}

int mpsfix_config_load(mpsfix_config *cfg, const char *path)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	int error;

	*cfg = (mpsfix_config)MPSFIX_CONFIG_INIT;
	if ((error = mpsfix_yaml_read_file(&b, path, CONFIG_FILE_MAX)) == 0)
		error = mpsfix_config_load_buffer(cfg, path, b.data ? b.data : "", b.len);
	mpsfix_buf_release(&b);
	return error;
}

void mpsfix_config_release(mpsfix_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->path);
	free(cfg->dir);
	mpsfix_strvec_release(&cfg->selectors);
	mpsfix_strvec_release(&cfg->selectors_at);
	mpsfix_strvec_release(&cfg->select);
	mpsfix_strvec_release(&cfg->extend_select);
	mpsfix_strvec_release(&cfg->ignore);
	mpsfix_strvec_release(&cfg->exclude);
	mpsfix_strvec_release(&cfg->rules);
	for (size_t i = 0; i < cfg->nper_file_ignores; i++) {
		free(cfg->per_file_ignores[i].glob);
		mpsfix_strvec_release(&cfg->per_file_ignores[i].codes);
	}
	free(cfg->per_file_ignores);
	free(cfg->target_torch);
	*cfg = (mpsfix_config)MPSFIX_CONFIG_INIT;
}

/* --- selection ------------------------------------------------------------------------ */

bool mpsfix_selector_matches(const char *sel, const mpsfix_rule *r)
{
	size_t n = strlen(sel), letters = 0;

	if (strcmp(sel, "ALL") == 0 || strcmp(sel, r->id) == 0)
		return true;
	while (isalpha((unsigned char)r->code[letters]))
		letters++;
	/* a prefix of the code that keeps all its letters: MPS, MPS1, MPS10, MPS101 */
	return n >= letters && n > 0 && strncmp(sel, r->code, n) == 0;
}

bool mpsfix_selector_known(const char *sel, mpsfix_rule *const *rules, size_t n)
{
	if (strcmp(sel, "ALL") == 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (mpsfix_selector_matches(sel, rules[i]))
			return true;
	return false;
}

/*
 * Does a selector of `list` turn rule `r` on?  Any selector naming it does
 * (its code, its id, a code prefix such as MPS2), even when the rule is off
 * by default — except ALL, which names only the rules on by default (as
 * ruff's ALL leaves preview rules out).
 */
static bool turns_on(const mpsfix_strvec *list, const mpsfix_rule *r)
{
	for (size_t i = 0; i < list->len; i++) {
		const char *sel = list->items[i];

		if (strcmp(sel, "ALL") == 0 ? r->enabled : mpsfix_selector_matches(sel, r))
			return true;
	}
	return false;
}

static bool names(const mpsfix_strvec *list, const mpsfix_rule *r)
{
	for (size_t i = 0; i < list->len; i++)
		if (mpsfix_selector_matches(list->items[i], r))
			return true;
	return false;
}

void mpsfix_select_rules(bool *selected, mpsfix_rule *const *rules, size_t n,
			 const mpsfix_strvec *select, bool has_select,
			 const mpsfix_strvec *extend_select, const mpsfix_strvec *ignore)
{
	static const mpsfix_strvec none = {0};

	if (!select)
		select = &none;
	if (!extend_select)
		extend_select = &none;
	if (!ignore)
		ignore = &none;
	for (size_t i = 0; i < n; i++) {
		const mpsfix_rule *r = rules[i];
		bool on = has_select ? turns_on(select, r) : r->enabled;

		on = on || turns_on(extend_select, r);
		selected[i] = on && !names(ignore, r);
	}
}

/* --- globs ------------------------------------------------------------------------------ */

typedef ARRAY(const char *) parts;

/* Split `s` (modified in place) at '/' into non-empty parts, without "." parts. */
static void split(parts *out, char *s)
{
	char *p = s;

	while (*p) {
		char *slash = strchr(p, '/');

		if (slash)
			*slash = '\0';
		if (*p && strcmp(p, ".") != 0)
			ARRAY_PUSH(out, p);
		if (!slash)
			break;
		p = slash + 1;
	}
}

static bool is_any(const char *part)
{
	return strcmp(part, "**") == 0;
}

/*
 * Match the parts of a glob against the parts of a path: '**' takes any
 * number of parts, every other part matches one with fnmatch(3).  The classic
 * wildcard loop, backtracking to the last '**' only: O(globs * path).
 */
static bool match_parts(const parts *g, const parts *p)
{
	size_t gi = 0, pi = 0, star_g = SIZE_MAX, star_p = 0;

	while (pi < p->len) {
		if (gi < g->len && is_any(g->items[gi])) {
			star_g = gi++;
			star_p = pi;
		} else if (gi < g->len && fnmatch(g->items[gi], p->items[pi], 0) == 0) {
			gi++;
			pi++;
		} else if (star_g != SIZE_MAX) {
			gi = star_g + 1;
			pi = ++star_p;
		} else {
			return false;
		}
	}
	while (gi < g->len && is_any(g->items[gi]))
		gi++;
	return gi == g->len;
}

bool mpsfix_glob_matches(const char *glob, const char *path)
{
	char *gcopy = mpsfix_xstrdup(glob), *pcopy = mpsfix_xstrdup(path);
	parts g = {0}, p = {0};
	bool anchored, folder_only, ok = false;
	size_t n = strlen(gcopy);

	/* a trailing '/' (a folder, as in .gitignore): the file itself never matches */
	folder_only = n > 1 && gcopy[n - 1] == '/';
	while (n > 1 && gcopy[n - 1] == '/')
		gcopy[--n] = '\0';
	anchored = strchr(gcopy, '/') != NULL;
	/* "name" is "**" "/name": any folder; a match of a folder covers what is under it */
	if (!anchored)
		ARRAY_PUSH(&g, "**");
	split(&g, gcopy);
	if (g.len == (anchored ? 0u : 1u))
		goto done; /* an empty glob matches nothing */
	ARRAY_PUSH(&g, "**");
	split(&p, pcopy);
	if (folder_only && p.len)
		p.len--; /* only its folders */
	ok = match_parts(&g, &p);
done:
	free(g.items);
	free(p.items);
	free(gcopy);
	free(pcopy);
	return ok;
}
