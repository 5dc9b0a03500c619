/*
 * rule.c: the rule model: severity names, and what a loaded rule owns and
 * its release.  Reading a rule file is rule_load.c's (the `fix:` key
 * rule_load_fix.c's), the checks across its keys rule_check.c's.
 */
#include "rule.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"

const char *mpsfix_severity_name(mpsfix_severity s)
{
	switch (s) {
	case MPSFIX_SEV_ERROR:
		return "error";
	case MPSFIX_SEV_WARNING:
		return "warning";
	case MPSFIX_SEV_INFO:
		return "info";
	}
	return "unknown";
}

bool mpsfix_rule_skips_path(const mpsfix_rule *r, const char *path)
{
	const char *p = path;

	while (r->skip_paths.len && p && *p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		char name[256];

		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			for (size_t g = 0; g < r->skip_paths.len; g++)
				if (!fnmatch(r->skip_paths.items[g], name, 0))
					return true;
		}
		p = slash ? slash + 1 : NULL;
	}
	return false;
}

void mpsfix_rule_free(mpsfix_rule *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->id);
	free(r->code);
	free(r->message);
	free(r->note);
	free(r->url);
	free(r->torch);
	for (size_t i = 0; i < r->npatterns; i++)
		mpsfix_pattern_free(r->patterns[i]);
	free(r->patterns);
	for (size_t i = 0; i < r->nconstraints; i++)
		mpsfix_constraint_release(&r->constraints[i]);
	free(r->constraints);
	mpsfix_signature_release(&r->signature);
	for (size_t i = 0; i < r->ninside; i++)
		mpsfix_pattern_free(r->inside[i]);
	free(r->inside);
	for (size_t i = 0; i < r->nnot_inside; i++)
		mpsfix_pattern_free(r->not_inside[i]);
	free(r->not_inside);
	free(r->after_import);
	free(r->device);
	free(r->tensor);
	free(r->enabled_by);
	mpsfix_strvec_release(&r->skip_paths);
	for (size_t c = 0; c < r->fix.ncases; c++) {
		mpsfix_fix_case *fc = &r->fix.cases[c];

		for (size_t i = 0; i < fc->nwhen; i++)
			mpsfix_constraint_release(&fc->when[i]);
		free(fc->when);
		free(fc->manual);
		for (size_t i = 0; i < fc->nedits; i++) {
			free(fc->edits[i].target);
			free(fc->edits[i].module);
			mpsfix_template_free(fc->edits[i].tmpl);
		}
		free(fc->edits);
	}
	free(r->fix.cases);
	for (size_t i = 0; i < r->ninvalid; i++) {
		free(r->invalid[i].input);
		free(r->invalid[i].output);
		free(r->invalid[i].manual);
	}
	free(r->invalid);
	for (size_t i = 0; i < r->nvalid; i++)
		free(r->valid[i].input);
	free(r->valid);
	free(r);
}
