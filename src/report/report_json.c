/*
 * report_json.c: the json and jsonl formats: one object per finding (report.h
 * shows it), and json's document with the run's summary.
 */
#include "report_internal.h"

/*
 * A position: its line, column and byte offset; in a notebook (`in_cell`)
 * the byte offset is null, as it would point into the notebook's JSON, and
 * cell (when not 0) says which cell and which line of it.
 */
static json_t *json_position(uint32_t line, uint32_t col, uint32_t byte, bool in_cell, uint32_t cell,
			     uint32_t cell_line)
{
	json_t *o = json_object();

	json_object_set_new(o, "line", json_integer(line));
	json_object_set_new(o, "column", json_integer(col));
	json_object_set_new(o, "byte", in_cell ? json_null() : json_integer(byte));
	if (cell) {
		json_t *c = json_object();

		json_object_set_new(c, "number", json_integer(cell));
		json_object_set_new(c, "line", json_integer(cell_line));
		json_object_set_new(o, "cell", c);
	}
	return o;
}

static json_t *json_edit_position(const mpsfix_source *src, uint32_t byte)
{
	uint32_t line, col, cell = 0, cell_line = 0;

	mpsfix_source_position(src, byte, &line, &col);
	/* a notebook: the JSON's line, and the cell's */
	mpsfix_source_cell_of(src, line, &cell, &cell_line, &line);
	return json_position(line, col, byte, src->ncells > 0, cell, cell_line);
}

static const char *applicability(mpsfix_fix_status s)
{
	switch (s) {
	case MPSFIX_FIX_AVAILABLE:
		return "safe";
	case MPSFIX_FIX_UNSAFE:
		return "unsafe";
	case MPSFIX_FIX_MANUAL:
		return "manual";
	case MPSFIX_FIX_NONE:
		break;
	}
	return NULL;
}

json_t *mpsfix_report__json_finding(const char *path, const mpsfix_source *src,
				    const mpsfix_report_item *it)
{
	json_t *o = json_object(), *fix = json_null();

	json_object_set_new(o, "code", mpsfix_report__jstr(it->code));
	json_object_set_new(o, "rule", mpsfix_report__jstr(it->id));
	json_object_set_new(o, "severity", mpsfix_report__jstr(mpsfix_severity_name(it->severity)));
	json_object_set_new(o, "message", mpsfix_report__jstr(it->message));
	json_object_set_new(o, "path", mpsfix_report__jstr(path));
	json_object_set_new(o, "start", json_position(it->file_line, it->col, it->start, it->cell != 0, 0, 0));
	json_object_set_new(o, "end", json_position(it->file_end_line, it->end_col, it->end, it->cell != 0, 0, 0));
	if (it->cell) {
		json_t *cell = json_object();

		json_object_set_new(cell, "number", json_integer(it->cell));
		json_object_set_new(cell, "line", json_integer(it->cell_line));
		json_object_set_new(o, "cell", cell);
	}
	json_object_set_new(o, "url", mpsfix_report__jstr(it->url));
	if (it->fix != MPSFIX_FIX_NONE) {
		fix = json_object();
		json_object_set_new(fix, "applicability", mpsfix_report__jstr(applicability(it->fix)));
		if (it->fix == MPSFIX_FIX_MANUAL) {
			json_object_set_new(fix, "reason", mpsfix_report__jstr(it->reason));
		} else {
			if (it->fix == MPSFIX_FIX_UNSAFE && *it->reason)
				json_object_set_new(fix, "reason", mpsfix_report__jstr(it->reason));
			json_t *edits = json_array();

			for (size_t i = 0; i < it->nedits; i++) {
				const mpsfix_edit *e = &it->edits[i];
				json_t *je = json_object();

				json_object_set_new(je, "start", json_edit_position(src, e->start));
				json_object_set_new(je, "end", json_edit_position(src, e->end));
				json_object_set_new(je, "content", mpsfix_report__jstrn(e->text ? e->text : "", e->len));
				json_array_append_new(edits, je);
			}
			json_object_set_new(fix, "edits", edits);
		}
	}
	json_object_set_new(o, "fix", fix);
	return o;
}

static json_t *json_summary(const mpsfix_report_summary *sum)
{
	json_t *o = json_object(), *targets = json_array();

	json_object_set_new(o, "command", mpsfix_report__jstr(sum->command));
	json_object_set_new(o, "target", mpsfix_report__jstr(sum->target));
	for (size_t i = 0; i < sum->ntargets; i++) {
		json_t *t = json_object();

		json_object_set_new(t, "range", mpsfix_report__jstr(sum->targets[i].range));
		json_object_set_new(t, "origin", mpsfix_report__jstr(sum->targets[i].origin));
		json_object_set_new(t, "files", json_integer((json_int_t)sum->targets[i].files));
		json_array_append_new(targets, t);
	}
	json_object_set_new(o, "targets", targets);
	json_object_set_new(o, "files", json_integer((json_int_t)sum->files));
	json_object_set_new(o, "skipped", json_integer((json_int_t)sum->skipped));
	json_object_set_new(o, "findings", json_integer((json_int_t)sum->findings));
	json_object_set_new(o, "fixable", json_integer((json_int_t)sum->fixable));
	json_object_set_new(o, "unsafe_fixable", json_integer((json_int_t)sum->unsafe_fixable));
	json_object_set_new(o, "manual", json_integer((json_int_t)sum->manual));
	json_object_set_new(o, "fixed", json_integer((json_int_t)sum->fixed));
	json_object_set_new(o, "errors", json_integer((json_int_t)sum->errors));
	return o;
}

json_t *mpsfix_report__json_document(const mpsfix_reporter *r, const mpsfix_report_summary *sum)
{
	json_t *doc = json_object();

	json_object_set_new(doc, "version", mpsfix_report__jstr(r->opts.tool_version));
	json_object_set_new(doc, "findings", json_incref(r->findings));
	json_object_set_new(doc, "summary", sum ? json_summary(sum) : json_null());
	return doc;
}
