/*
 * cmd_rules.c: mpsfix rules (the table of the rules: fix, torch range,
 * whether each runs here) and mpsfix explain CODE|ID (one rule and its note).
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rulelist.h"
#include "targets.h"

/*
 * `mpsfix rules` and `mpsfix explain CODE|ID`: the rules, and whether each
 * runs here: for a file in the current folder, whose torch target is that
 * of the nearest pins above it (targets.h); rules' summary also names the
 * line length the fixes of such a file keep to (style.h).
 */
int mpsfix_cmd_rules(mpsfix_cmd *st)
{
	const mpsfix_opts *opts = st->opts;
	size_t n = st->rules.len, found, nrun = 0, at;
	bool *selected = mpsfix_xcalloc(n + 1, sizeof(bool));
	mpsfix_rule_status *status = mpsfix_xcalloc(n + 1, sizeof(*status));
	mpsfix_rulelist_format format;
	FILE *out = stdout;
	const mpsfix_target *target;
	const mpsfix_style *style;
	int result = MPSFIX_EXIT_OK, error;

	if ((error = mpsfix_cmd_settle(st)) < 0 || (error = mpsfix_rulelist_format_parse(&format, opts->format)) < 0)
		goto fail;
	/* the target of a file in the current folder */
	at = mpsfix_targets_of_folder(&st->set.targets, ".", mpsfix_cmd_on_warning, NULL); /* may move items */
	target = &st->set.targets.items[at];
	mpsfix_select_rules(selected, st->rules.items, n, &st->set.select, st->set.has_select,
			    &st->set.extend_select, &st->set.ignore);
	for (size_t i = 0; i < n; i++) {
		status[i].selected = selected[i];
		status[i].in_target = mpsfix_target_runs(target, st->rules.items[i]);
		for (size_t k = 0; k < st->set.ignore.len; k++)
			status[i].ignored |= mpsfix_selector_matches(st->set.ignore.items[k], st->rules.items[i]);
		nrun += selected[i] && status[i].in_target;
	}
	if (opts->command == MPSFIX_CMD_EXPLAIN &&
	    (error = mpsfix_rulelist_find(&found, st->rules.items, n, opts->paths[0])) < 0)
		goto fail;
	if (opts->output && !(out = st->out = fopen(opts->output, "w"))) {
		error = mpsfix_error_set(MPSFIX_ERROR, "cannot write %s: %s", opts->output, strerror(errno));
		goto fail;
	}
	if (opts->command == MPSFIX_CMD_EXPLAIN)
		error = mpsfix_rulelist_explain(out, st->rules.items[found], &status[found], target->summary, format);
	else
		error = mpsfix_rulelist_print(out, st->rules.items, status, n, format);
	if (error < 0)
		goto fail;
	if (opts->command == MPSFIX_CMD_RULES && !opts->quiet) {
		at = mpsfix_styles_of_folder(&st->set.styles, ".", mpsfix_cmd_on_warning, NULL);
		style = &st->set.styles.items[at];
		fprintf(stderr, "mpsfix: %zu rule%s, %zu run; %s; %s\n", n, mpsfix_cmd_plural(n), nrun,
			target->summary, style->summary);
	}
	goto done;
fail:
	mpsfix_cmd_error(mpsfix_error_last()->message);
	result = MPSFIX_EXIT_ERROR;
done:
	free(selected);
	free(status);
	return result;
}
