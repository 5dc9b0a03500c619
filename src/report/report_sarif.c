/*
 * report_sarif.c: the sarif format (SARIF 2.1.0, one run): the driver's rules,
 * one result per finding with its fixes, and the log written at the end.
 */
#include "report_internal.h"

#include <stdlib.h>
#include <string.h>

/* The project's home page for SARIF's informationUri; left out when empty. */
#ifndef MPSFIX_HOMEPAGE
#define MPSFIX_HOMEPAGE ""
#endif

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SARIF_VERSION "2.1.0"

static const char *sarif_level(mpsfix_severity s)
{
	switch (s) {
	case MPSFIX_SEV_ERROR:
		return "error";
	case MPSFIX_SEV_WARNING:
		return "warning";
	case MPSFIX_SEV_INFO:
		return "note";
	}
	return "warning";
}

static json_t *sarif_text(const char *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "text", mpsfix_report__jstr(s));
	return o;
}

static json_t *sarif_rule(const char *code, const char *id, const char *message, const char *note,
			  const char *url, mpsfix_severity severity)
{
	json_t *o = json_object(), *conf = json_object();

	json_object_set_new(o, "id", mpsfix_report__jstr(code));
	json_object_set_new(o, "name", mpsfix_report__jstr(id));
	json_object_set_new(o, "shortDescription", sarif_text(message));
	if (note && *note)
		json_object_set_new(o, "fullDescription", sarif_text(note));
	if (url && *url)
		json_object_set_new(o, "helpUri", mpsfix_report__jstr(url));
	json_object_set_new(conf, "level", mpsfix_report__jstr(sarif_level(severity)));
	json_object_set_new(o, "defaultConfiguration", conf);
	return o;
}

size_t mpsfix_report__sarif_add_rule(mpsfix_reporter *r, const mpsfix_rule *rule)
{
	json_t *o;

	if (rule)
		o = sarif_rule(rule->code, rule->id, rule->message, rule->note, rule->url, rule->severity);
	else
		o = sarif_rule(UNUSED_CODE, UNUSED_ID, UNUSED_MESSAGE,
			       "A `# noqa` or `# mpsfix: ignore` comment (or a code it names) "
			       "that suppressed no finding.", NULL, MPSFIX_SEV_WARNING);
	json_array_append_new(r->sarif_rules, o);
	ARRAY_PUSH(&r->rules, rule);
	return r->rules.len - 1;
}

/* The driver rule index of `rule` (NULL: MPS000); a rule not loaded is added. */
static size_t sarif_rule_index(mpsfix_reporter *r, const mpsfix_rule *rule)
{
	for (size_t i = 0; i < r->rules.len; i++)
		if (r->rules.items[i] == rule)
			return i;
	for (size_t i = 0; rule && i < r->rules.len; i++)
		if (r->rules.items[i] && !strcmp(r->rules.items[i]->code, rule->code))
			return i;
	return mpsfix_report__sarif_add_rule(r, rule);
}

/* `path` as a URI reference: relative stays relative; each byte but unreserved ones and '/' escaped. */
static json_t *sarif_uri(const char *path)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	json_t *j;

	while (path[0] == '.' && path[1] == '/') {
		path += 2;
		while (*path == '/')
			path++;
	}
	if (path[0] == '/')
		mpsfix_buf_adds(&b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/')
			mpsfix_buf_addc(&b, (char)*p);
		else
			mpsfix_buf_printf(&b, "%%%02X", *p);
	}
	j = mpsfix_report__jstrn(b.data ? b.data : "", b.len);
	mpsfix_buf_release(&b);
	return j;
}

static json_t *sarif_artifact(const char *path)
{
	json_t *o = json_object();

	json_object_set_new(o, "uri", sarif_uri(path));
	return o;
}

static json_t *sarif_fix(const char *path, const mpsfix_report_item *it)
{
	json_t *fix = json_object(), *change = json_object(), *repl = json_array();

	json_object_set_new(fix, "description",
			    sarif_text(it->fix == MPSFIX_FIX_UNSAFE ?
				       "unsafe fix (mpsfix fix --unsafe-fixes)" : "safe fix (mpsfix fix)"));
	for (size_t i = 0; i < it->nedits; i++) {
		const mpsfix_edit *e = &it->edits[i];
		json_t *o = json_object(), *del = json_object(), *ins = json_object();

		json_object_set_new(del, "byteOffset", json_integer(e->start));
		json_object_set_new(del, "byteLength", json_integer(e->end - e->start));
		json_object_set_new(ins, "text", mpsfix_report__jstrn(e->text ? e->text : "", e->len));
		json_object_set_new(o, "deletedRegion", del);
		json_object_set_new(o, "insertedContent", ins);
		json_array_append_new(repl, o);
	}
	json_object_set_new(change, "artifactLocation", sarif_artifact(path));
	json_object_set_new(change, "replacements", repl);
	json_object_set_new(fix, "artifactChanges", json_pack("[o]", change));
	return json_pack("[o]", fix);
}

json_t *mpsfix_report__sarif_result(mpsfix_reporter *r, const char *path,
				    const mpsfix_report_item *it)
{
	json_t *o = json_object(), *region = json_object(), *phys = json_object(), *loc = json_object();
	size_t index = sarif_rule_index(r, it->rule);
	char *text = NULL;

	json_object_set_new(o, "ruleId", mpsfix_report__jstr(it->code));
	json_object_set_new(o, "ruleIndex", json_integer((json_int_t)index));
	json_object_set_new(o, "level", mpsfix_report__jstr(sarif_level(it->severity)));
	if (it->fix == MPSFIX_FIX_MANUAL)
		text = mpsfix_xasprintf("%s (needs a manual fix: %s)", it->message, it->reason);
	else if (it->fix == MPSFIX_FIX_UNSAFE && *it->reason)
		text = mpsfix_xasprintf("%s (unsafe fix: %s)", it->message, it->reason);
	json_object_set_new(o, "message", sarif_text(text ? text : it->message));
	free(text);
	json_object_set_new(region, "startLine", json_integer(it->file_line));
	if (it->cell) {
		/* a notebook: the lines of its JSON that hold the code; columns and
		   bytes there are the escaped JSON's, not the code's, so the cell
		   and its own line and columns go in the properties */
		json_object_set_new(region, "endLine", json_integer(it->file_end_line));
		json_object_set_new(o, "properties", json_pack("{s:i, s:i, s:i, s:i}", "cell", (json_int_t)it->cell,
							       "cellLine", (json_int_t)it->cell_line,
							       "cellColumn", (json_int_t)it->col,
							       "cellEndColumn", (json_int_t)it->end_col));
	} else {
		json_object_set_new(region, "startColumn", json_integer(it->col));
		json_object_set_new(region, "endLine", json_integer(it->file_end_line));
		json_object_set_new(region, "endColumn", json_integer(it->end_col));
		json_object_set_new(region, "byteOffset", json_integer(it->start));
		json_object_set_new(region, "byteLength", json_integer(it->end - it->start));
	}
	json_object_set_new(phys, "artifactLocation", sarif_artifact(path));
	json_object_set_new(phys, "region", region);
	json_object_set_new(loc, "physicalLocation", phys);
	json_object_set_new(o, "locations", json_pack("[o]", loc));
	/* a notebook's edits are of its code, not of the file's bytes: no replacements */
	if ((it->fix == MPSFIX_FIX_AVAILABLE || it->fix == MPSFIX_FIX_UNSAFE) && it->nedits && !it->cell)
		json_object_set_new(o, "fixes", sarif_fix(path, it));
	return o;
}

json_t *mpsfix_report__sarif_log(mpsfix_reporter *r, const mpsfix_report_summary *sum)
{
	json_t *log = json_object(), *run = json_object(), *tool = json_object(),
	       *driver = json_object();

	json_object_set_new(driver, "name", json_string("mpsfix"));
	if (r->opts.tool_version)
		json_object_set_new(driver, "version", mpsfix_report__jstr(r->opts.tool_version));
	if (*MPSFIX_HOMEPAGE)
		json_object_set_new(driver, "informationUri", json_string(MPSFIX_HOMEPAGE));
	json_object_set_new(driver, "rules", json_incref(r->sarif_rules));
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);
	if (sum) {
		json_t *inv = json_object();

		json_object_set_new(inv, "executionSuccessful", json_boolean(sum->errors == 0));
		json_object_set_new(run, "invocations", json_pack("[o]", inv));
	}
	json_object_set_new(run, "columnKind", json_string("unicodeCodePoints"));
	json_object_set_new(run, "results", json_incref(r->results));
	json_object_set_new(log, "$schema", json_string(SARIF_SCHEMA));
	json_object_set_new(log, "version", json_string(SARIF_VERSION));
	json_object_set_new(log, "runs", json_pack("[o]", run));
	return log;
}
