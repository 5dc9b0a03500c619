/*
 * report_github.c: the github format: one GitHub Actions workflow command
 * (::error, ::warning, ::notice) per finding, escaped as GitHub requires.
 */
#include "report_internal.h"

/* GitHub workflow command escaping: data escapes % CR LF; properties also : and ,. */
static void github_escape(FILE *out, const char *s, bool property)
{
	for (; *s; s++) {
		switch (*s) {
		case '%':
			fputs("%25", out);
			break;
		case '\r':
			fputs("%0D", out);
			break;
		case '\n':
			fputs("%0A", out);
			break;
		case ':':
			fputs(property ? "%3A" : ":", out);
			break;
		case ',':
			fputs(property ? "%2C" : ",", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

void mpsfix_report__github_line(const mpsfix_reporter *r, const char *path,
				const mpsfix_report_item *it)
{
	static const char *const levels[] = {
		[MPSFIX_SEV_ERROR] = "error",
		[MPSFIX_SEV_WARNING] = "warning",
		[MPSFIX_SEV_INFO] = "notice",
	};
	const char *level = (size_t)it->severity < MPSFIX_ARRAY_SIZE(levels) ? levels[it->severity] : "warning";

	fprintf(r->out, "::%s file=", level);
	github_escape(r->out, path, true);
	fprintf(r->out, ",line=%u,col=%u,endLine=%u,endColumn=%u,title=", it->file_line, it->col,
		it->file_end_line, it->end_col);
	github_escape(r->out, it->code, true);
	fputs("::", r->out);
	github_escape(r->out, it->message, false);
	if (it->fix == MPSFIX_FIX_MANUAL || (it->fix == MPSFIX_FIX_UNSAFE && *it->reason)) {
		fputs(it->fix == MPSFIX_FIX_MANUAL ? " (needs a manual fix: " : " (unsafe fix: ", r->out);
		github_escape(r->out, it->reason, false);
		fputc(')', r->out);
	}
	fputc('\n', r->out);
}
