/*
 * settings.c: the rules folder, the configuration file, and the settings of
 * a run merged from the command line, the file and the environment.
 */
#include "settings.h"

#include <errno.h>
#include <limits.h>
#ifdef __APPLE__
#include <mach-o/dyld.h> /* _NSGetExecutablePath */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "pathutil.h"
#include "pool.h"

#ifndef MPSFIX_RULES_DIR
#define MPSFIX_RULES_DIR "/usr/local/share/mpsfix/rules"
#endif

/* ---- the rules folder ------------------------------------------------------------ */

/*
 * The running binary's own path, symbolic links resolved (Homebrew's
 * bin/mpsfix is a link into its Cellar); false where the system cannot say.
 */
static bool exe_path(char *out, size_t size)
{
#if defined(__linux__) || defined(__CYGWIN__)
	ssize_t n = readlink("/proc/self/exe", out, size - 1);

	if (n <= 0)
		return false;
	out[n] = '\0';
	return true;
#elif defined(__APPLE__)
	char raw[PATH_MAX];
	uint32_t n = sizeof(raw);
	char *real;

	if (_NSGetExecutablePath(raw, &n) != 0 || (real = realpath(raw, NULL)) == NULL)
		return false;
	bool fits = strlen(real) < size;
	if (fits)
		memcpy(out, real, strlen(real) + 1);
	free(real);
	return fits;
#else
	(void)out;
	(void)size;
	return false;
#endif
}

char *mpsfix_settings_rules_dir(void)
{
	const char *env = getenv("MPSFIX_RULES_DIR");
	char exe[PATH_MAX];

	if (env && *env)
		return mpsfix_xstrdup(env);
	if (exe_path(exe, sizeof(exe))) {
		char *slash, *candidate;

		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			candidate = mpsfix_xasprintf("%s/../share/mpsfix/rules", exe);
			if (mpsfix_path_is_dir(candidate))
				return candidate;
			free(candidate);
			candidate = mpsfix_xasprintf("%s/../rules", exe);
			if (mpsfix_path_is_dir(candidate))
				return candidate;
			free(candidate);
		}
	}
	return mpsfix_xstrdup(MPSFIX_RULES_DIR);
}

int mpsfix_settings_load_rules(mpsfix_ruleset *rules, TSParser *parser, char *const *extra,
			       size_t nextra, bool defaults)
{
	int error = 0;

	if (defaults) {
		char *dir = mpsfix_settings_rules_dir();

		if (!mpsfix_path_is_dir(dir))
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot find the shipped rules in '%s' "
						 "(set MPSFIX_RULES_DIR, or use --rules)", dir);
		else
			error = mpsfix_ruleset_load(rules, parser, dir);
		free(dir);
		if (error < 0)
			return error;
	}
	for (size_t i = 0; i < nextra; i++)
		if ((error = mpsfix_ruleset_load(rules, parser, extra[i])) < 0)
			return error;
	return 0;
}

/* ---- the configuration file -------------------------------------------------------- */

int mpsfix_settings_load_config(mpsfix_config *cfg, const mpsfix_opts *opts)
{
	char *found = NULL, *cwd;
	int error = 0;

	if (opts->isolated)
		return 0;
	if (opts->config)
		return mpsfix_config_load(cfg, opts->config);
	if (!(cwd = getcwd(NULL, 0)))
		return mpsfix_error_set(MPSFIX_ERROR, "cannot read the current folder: %s", strerror(errno));
	if ((error = mpsfix_config_find(&found, cwd)) == 0 && found)
		error = mpsfix_config_load(cfg, found);
	free(found);
	free(cwd);
	return error;
}

/* ---- the settings of a run ------------------------------------------------------------ */

/* Add the comma-separated values of each argument to `out`. */
static void split_list(mpsfix_strvec *out, const mpsfix_strvec *args)
{
	for (size_t i = 0; i < args->len; i++) {
		const char *p = args->items[i];

		while (*p) {
			size_t n = strcspn(p, ",");
			char *item = mpsfix_xstrndup(p, n);
			char *s = item, *e;

			while (*s == ' ')
				s++;
			e = s + strlen(s);
			while (e > s && e[-1] == ' ')
				*--e = '\0';
			if (*s)
				mpsfix_strvec_push(out, s);
			free(item);
			p += n;
			if (*p == ',')
				p++;
		}
	}
}

static void copy_strings(mpsfix_strvec *out, const mpsfix_strvec *in)
{
	for (size_t i = 0; i < in->len; i++)
		mpsfix_strvec_push(out, in->items[i]);
}

/* Every selector must name some rule: a typo would silently check nothing. */
static int check_selectors(const mpsfix_strvec *list, const char *what, mpsfix_rule *const *rules,
			   size_t nrules)
{
	for (size_t i = 0; i < list->len; i++)
		if (!mpsfix_selector_known(list->items[i], rules, nrules))
			return mpsfix_error_set(MPSFIX_ERROR, "%s: '%s' names no rule (give a code such as "
						"MPS001, a prefix such as MPS1, or a rule id)", what, list->items[i]);
	return 0;
}

/*
 * The run's torch target: --target-torch, else the configuration's
 * target-torch, else the pins of the project (mpsfix_target_root(): the
 * configuration's folder, else the git work tree of the first path, else the
 * nearest folder upward with a pin file), else every MPS-capable version.
 * Without the first two, each file's comes later from the nearest pins above
 * it (targets.h), the run's for a file with none.  Unreadable pins are
 * warnings.
 */
static int resolve_target(mpsfix_settings *set, const mpsfix_opts *opts, const mpsfix_config *cfg,
			  void (*warn)(void *payload, const char *message), void *payload)
{
	mpsfix_target_opts to = {
		.option = opts->target_torch,
		.config_value = cfg->target_torch,
		.config_path = cfg->path,
	};
	/* explain's operand is a rule, not a path */
	const char *first = opts->npaths && opts->command != MPSFIX_CMD_EXPLAIN ? opts->paths[0] : NULL;
	char *root = NULL;
	int error;

	if (!to.option && !to.config_value)
		to.root = root = mpsfix_target_root(cfg->dir, first);
	error = mpsfix_targets_init(&set->targets, &to, warn, payload);
	free(root);
	if (error < 0)
		return error;
	set->target = set->targets.items[0].summary;
	return 0;
}

_Static_assert(MPSFIX_STYLE_LINE_LENGTH_DEFAULT == MPSFIX_LINE_LENGTH_DEFAULT,
	       "the line length where nothing sets one is the engine's default");

/*
 * The run's line length: --line-length, else the configuration's
 * line-length, else the project's (mpsfix_styles_find_run(); each file's
 * from its own project, style.h).  Unreadable values are warnings.
 */
static void resolve_style(mpsfix_settings *set, const mpsfix_opts *opts, const mpsfix_config *cfg,
			  void (*warn)(void *payload, const char *message), void *payload)
{
	/* explain's operand is a rule, not a path */
	const char *first = opts->npaths && opts->command != MPSFIX_CMD_EXPLAIN ? opts->paths[0] : NULL;
	char *origin = NULL;

	if (opts->line_length)
		origin = mpsfix_xstrdup("--line-length");
	else if (cfg->line_length)
		origin = mpsfix_path_from_cwd(cfg->path ? cfg->path : ".mpsfix.yml");
	mpsfix_styles_init(&set->styles, opts->line_length ? opts->line_length : cfg->line_length, origin);
	mpsfix_styles_find_run(&set->styles, cfg->dir, first, warn, payload);
	free(origin);
}

int mpsfix_settings_resolve(mpsfix_settings *set, const mpsfix_opts *opts, const mpsfix_config *cfg,
			    mpsfix_rule *const *rules, size_t nrules,
			    void (*warn)(void *payload, const char *message), void *payload)
{
	const char *env = getenv("MPSFIX_FORMAT");
	const char *fmt = opts->format ? opts->format : env && *env ? env : NULL;
	int error;

	if (opts->has_select) {
		split_list(&set->select, &opts->select);
		set->has_select = true;
	} else if (cfg->has_select) {
		copy_strings(&set->select, &cfg->select);
		set->has_select = true;
	}
	copy_strings(&set->extend_select, &cfg->extend_select);
	split_list(&set->extend_select, &opts->extend_select);
	copy_strings(&set->ignore, &cfg->ignore);
	split_list(&set->ignore, &opts->ignore);
	set->unsafe_fixes = opts->unsafe_fixes >= 0 ? opts->unsafe_fixes > 0 : cfg->unsafe_fixes > 0;
	/* the configuration's selectors first, named where they stand */
	for (size_t i = 0; i < cfg->selectors.len; i++)
		if (!mpsfix_selector_known(cfg->selectors.items[i], rules, nrules))
			return mpsfix_error_set(MPSFIX_ERROR, "%s: '%s' names no rule (give a code such as "
						"MPS001, a prefix such as MPS1, or a rule id)", cfg->selectors_at.items[i],
						cfg->selectors.items[i]);
	if ((error = check_selectors(&set->select, "--select", rules, nrules)) < 0 ||
	    (error = check_selectors(&set->extend_select, "--extend-select", rules, nrules)) < 0 ||
	    (error = check_selectors(&set->ignore, "--ignore", rules, nrules)) < 0 ||
	    (error = resolve_target(set, opts, cfg, warn, payload)) < 0)
		return error;
	resolve_style(set, opts, cfg, warn, payload);
	if (opts->command == MPSFIX_CMD_RULES || opts->command == MPSFIX_CMD_EXPLAIN)
		return 0; /* they list rules: no files, no report format */
	if (fmt) {
		if ((error = mpsfix_format_parse(&set->format, fmt)) < 0)
			return error;
	} else if (opts->command == MPSFIX_CMD_DIFF) {
		set->format = MPSFIX_FORMAT_DIFF;
	} else {
		set->format = isatty(STDOUT_FILENO) && !opts->output ? MPSFIX_FORMAT_FULL : MPSFIX_FORMAT_CONCISE;
	}
	if (opts->staged && opts->command == MPSFIX_CMD_FIX)
		return mpsfix_error_set(MPSFIX_ERROR, "--staged reads files from the index: use it with "
					"check or diff, not fix");
	for (size_t i = 0, dashes = 0; i < opts->npaths; i++)
		if (!strcmp(opts->paths[i], "-") && ++dashes > 1)
			return mpsfix_error_set(MPSFIX_ERROR, "'-' (standard input) is given twice");
	/* -j, else MPSFIX_JOBS, else a thread per online processor */
	set->jobs = opts->jobs;
	if (opts->command != MPSFIX_CMD_CHECK && opts->command != MPSFIX_CMD_DIFF &&
	    opts->command != MPSFIX_CMD_FIX)
		return 0; /* commit, patch and review work on one thread */
	if (!set->jobs && (env = getenv("MPSFIX_JOBS")) && *env &&
	    (error = mpsfix_pool_parse_jobs(&set->jobs, env, "MPSFIX_JOBS")) < 0)
		return error;
	if (!set->jobs)
		set->jobs = mpsfix_pool_cpus();
	return 0;
}

void mpsfix_settings_release(mpsfix_settings *set)
{
	mpsfix_strvec_release(&set->select);
	mpsfix_strvec_release(&set->ignore);
	mpsfix_strvec_release(&set->extend_select);
	mpsfix_targets_release(&set->targets);
	mpsfix_styles_release(&set->styles);
	memset(set, 0, sizeof(*set));
}
