/*
 * pins_conda.c: torch pins in conda's files: match specs ("pytorch=2.1",
 * "pytorch::pytorch>=2.0,<2.3") and environment.yml, read with yaml_util,
 * whose `pip:` list holds requirement-file lines (pins_python.c).
 */
#include "pins.h"

#include <ctype.h>
#include <string.h>

#include "pins_internal.h"
#include "text.h"
#include "yaml_util.h"

/* --- match specs --------------------------------------------------------------------- */

/* The package of a match spec (after any channel::) and what follows it. */
static mpsfix_text_slice spec_name(mpsfix_text_slice t, mpsfix_text_slice *rest)
{
	size_t i = 0;

	t = mpsfix_text_trim(t);
	/* channel::name, or channel/subdir::name */
	for (const char *colons = t.s; colons + 1 < t.s + t.n; colons++)
		if (colons[0] == ':' && colons[1] == ':') {
			t = (mpsfix_text_slice){colons + 2, (size_t)(t.s + t.n - colons - 2)};
			break;
		}
	while (i < t.n && mpsfix_pins__is_name_char(t.s[i]))
		i++;
	*rest = mpsfix_text_trim((mpsfix_text_slice){t.s + i, t.n - i});
	return (mpsfix_text_slice){t.s, i};
}

int mpsfix_pins_parse_conda(mpsfix_torch_range *out, const char *text, size_t len)
{
	mpsfix_text_slice rest, name = spec_name((mpsfix_text_slice){text, len}, &rest);
	size_t end;

	if (!mpsfix_pins__same_name(name, "pytorch"))
		return MPSFIX_ENOMATCH;
	if (rest.n && rest.s[0] == '[') {
		/* pytorch[version='>=2.0,<2.3', build=...] */
		const char *key = NULL;

		for (size_t k = 0; k + 7 <= rest.n; k++)
			if (!strncmp(rest.s + k, "version", 7)) {
				key = rest.s + k + 7;
				break;
			}
		if (!key)
			return MPSFIX_ENOMATCH;
		while (key < rest.s + rest.n && (isspace((unsigned char)*key) || *key == '='))
			key++;
		if (key < rest.s + rest.n && (*key == '\'' || *key == '"')) {
			const char *close = memchr(key + 1, *key, (size_t)(rest.s + rest.n - key - 1));

			if (!close)
				return mpsfix_error_set(MPSFIX_ERROR, "the version is not closed");
			return mpsfix_torch_range_parse(out, key + 1, (size_t)(close - key - 1),
							MPSFIX_TORCH_SYNTAX_CONDA);
		}
		end = strcspn(key, ",]");
		return mpsfix_torch_range_parse(out, key, end, MPSFIX_TORCH_SYNTAX_CONDA);
	}
	if (!rest.n)
		return MPSFIX_ENOMATCH;
	/*
	 * "pytorch 2.1.* build", "pytorch=2.1.0=py3.10_0", "pytorch>=2.0,<2.3":
	 * the version ends at a blank, or at an '=' after a version character
	 * (the build string follows).
	 */
	end = 0;
	while (end < rest.n && !isspace((unsigned char)rest.s[end])) {
		if (rest.s[end] == '=' && end > 0 && (isalnum((unsigned char)rest.s[end - 1]) ||
						      rest.s[end - 1] == '*'))
			break;
		end++;
	}
	return mpsfix_torch_range_parse(out, rest.s, end, MPSFIX_TORCH_SYNTAX_CONDA);
}

/* --- environment.yml ----------------------------------------------------------------- */

void mpsfix_pins__scan_conda_env(mpsfix_pins_scan *sc, const char *name, const char *dir,
				 const char *data, size_t len)
{
	mpsfix_yaml_doc doc = MPSFIX_YAML_DOC_INIT;
	const mpsfix_yaml_node *deps = NULL;

	if (mpsfix_yaml_load(&doc, name, data, len) < 0) {
		mpsfix_pins__warn(sc, "%s (not read for torch pins)", mpsfix_error_last()->message);
		return;
	}
	if (doc.root && doc.root->type == MPSFIX_YAML_MAP)
		for (size_t i = 0; i < mpsfix_yaml_npairs(doc.root); i++)
			if (!strcmp(mpsfix_yaml_key(doc.root, i)->value, "dependencies"))
				deps = mpsfix_yaml_value(doc.root, i);
	for (size_t i = 0; deps && deps->type == MPSFIX_YAML_SEQ && i < deps->nitems; i++) {
		const mpsfix_yaml_node *d = deps->items[i];

		if (mpsfix_yaml_is_string(d)) {
			mpsfix_text_slice spec = {d->value, d->len}, rest;
			mpsfix_torch_range r;
			int rc = mpsfix_pins_parse_conda(&r, d->value, d->len);

			mpsfix_pins__take(sc, name, d->line, spec, rc, r,
					  mpsfix_pins__same_name(spec_name(spec, &rest), "pytorch"));
		} else if (d->type == MPSFIX_YAML_MAP) {
			for (size_t k = 0; k < mpsfix_yaml_npairs(d); k++) {
				const mpsfix_yaml_node *pip = mpsfix_yaml_value(d, k);

				if (strcmp(mpsfix_yaml_key(d, k)->value, "pip") != 0 || pip->type != MPSFIX_YAML_SEQ)
					continue;
				for (size_t j = 0; j < pip->nitems; j++)
					if (mpsfix_yaml_is_string(pip->items[j]))
						mpsfix_pins__requirement_line(
							sc, name, pip->items[j]->line, dir,
							(mpsfix_text_slice){pip->items[j]->value,
									    pip->items[j]->len});
			}
		}
	}
	mpsfix_yaml_release(&doc);
}

