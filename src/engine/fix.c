/*
 * fix.c: a rule's fix, for one match, as edits of the file.
 */
#include "fix.h"

#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "fix_fstring.h"
#include "fix_import.h"
#include "fix_move.h"
#include "fix_stmt.h"
#include "names.h"
#include "parse.h"
#include "strvec.h"
#include "template.h"


static bool is_param_name(const char *s)
{
	return s && mpsfix_rule_is_param(s);
}

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* ---- comments that would be lost ---------------------------------------- */

typedef struct {
	uint32_t s, e;
	const mpsfix_spans *kept;
} comment_scan;

static mpsfix_walk_action find_dropped_comment(TSNode n, void *payload)
{
	const comment_scan *cs = payload;
	uint32_t ns = ts_node_start_byte(n), ne = ts_node_end_byte(n);

	if (ns >= cs->e || ne <= cs->s)
		return MPSFIX_WALK_SKIP;
	if (is(n, "comment") && ns >= cs->s && ne <= cs->e) {
		for (size_t i = 0; cs->kept && i < cs->kept->len; i++)
			if (cs->kept->items[i].start <= ns && ne <= cs->kept->items[i].end)
				return MPSFIX_WALK_SKIP;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

/* Is there a comment in [s, e) under `scope` outside every kept span? */
static bool drops_comment(TSNode scope, uint32_t s, uint32_t e, const mpsfix_spans *kept)
{
	comment_scan cs = {s, e, kept};

	return !mpsfix_walk(scope, find_dropped_comment, &cs);
}

/* ---- removing list elements ------------------------------------------------ */

static bool list_like(TSNode n)
{
	static const char *const kinds[] = {
		"argument_list", "list", "tuple", "set", "dictionary", "expression_list",
		"parameters", "lambda_parameters",
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(kinds); i++)
		if (is(n, kinds[i]))
			return true;
	return false;
}

/* The list element holding `node` (a keyword argument, a dict pair, a
 * default parameter, or the node itself) and its list. */
static bool element_of(TSNode node, TSNode *elem, TSNode *list)
{
	TSNode parent = ts_node_parent(node);

	*elem = node;
	if (is(parent, "keyword_argument") || is(parent, "pair") ||
	    is(parent, "default_parameter") || is(parent, "typed_default_parameter")) {
		*elem = parent;
		parent = ts_node_parent(parent);
	}
	*list = parent;
	return !ts_node_is_null(parent) && list_like(parent);
}

typedef struct {
	TSNode list;
	TSNode elem;
} removal;

/*
 * Remove the elements `rm[0..n)` (all of one list) with the commas that go
 * with them: a run of removed elements after a kept one takes the comma
 * before it; a run at the start takes the comma after it, up to the next
 * element; the whole list keeps nothing.  Returns a reason on refusal.
 */
static char *remove_elements(TSNode list, const removal *rm, size_t n,
			     mpsfix_edits *edits, uint32_t group)
{
	ARRAY(TSNode) elems = {0};
	bool *gone = NULL;
	size_t kept = 0;
	char *reason = NULL;
	TSNode last;

	for (uint32_t i = 0; i < ts_node_named_child_count(list); i++) {
		TSNode c = ts_node_named_child(list, i);

		if (!ts_node_is_extra(c))
			ARRAY_PUSH(&elems, c);
	}
	gone = mpsfix_xcalloc(elems.len + 1, sizeof(bool));
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < elems.len; i++)
			if (ts_node_eq(elems.items[i], rm[k].elem))
				gone[i] = true;
	for (size_t i = 0; i < elems.len; i++)
		kept += !gone[i];
	last = elems.len ? elems.items[elems.len - 1] : (TSNode){0};
	if (kept == 1 && (is(list, "tuple") || is(list, "expression_list")) &&
	    !is(mpsfix_next_token(last), ",")) {
		reason = mpsfix_xstrdup("removing it would leave a one-element tuple without its comma");
		goto done;
	}
	if (kept == 0 && (is(list, "expression_list") || is(list, "set"))) {
		reason = mpsfix_xasprintf("removing it would leave an empty %s",
					  is(list, "set") ? "set, which `{}` is not" : "expression");
		goto done;
	}
	if (is(list, "parameters") || is(list, "lambda_parameters")) {
		for (size_t i = 0; i < elems.len; i++)
			if (is(elems.items[i], "keyword_separator") || is(elems.items[i], "positional_separator")) {
				reason = mpsfix_xstrdup("removing a parameter from a list with `*` or `/` is not supported");
				goto done;
			}
	}
	for (size_t i = 0; i < elems.len && !reason; i++) {
		size_t j = i;
		uint32_t s, e;

		if (!gone[i])
			continue;
		while (j + 1 < elems.len && gone[j + 1])
			j++;
		if (i > 0) {
			/* from the comma after the kept element before the run */
			s = ts_node_start_byte(mpsfix_next_token(elems.items[i - 1]));
			e = ts_node_end_byte(elems.items[j]);
		} else if (j + 1 < elems.len) {
			s = ts_node_start_byte(elems.items[i]);
			e = ts_node_start_byte(elems.items[j + 1]);
		} else {
			TSNode after = mpsfix_next_token(elems.items[j]);

			s = ts_node_start_byte(elems.items[i]);
			e = is(after, ",") ? ts_node_end_byte(after) : ts_node_end_byte(elems.items[j]);
		}
		if (drops_comment(list, s, e, NULL))
			reason = mpsfix_xstrdup("the fix would drop a comment");
		else
			mpsfix_edits_add(edits, s, e, "", 0, group);
		i = j;
	}
done:
	free(elems.items);
	free(gone);
	return reason;
}

/* ---- code that must not run twice ----------------------------------------- */

static TSNode edit_target(const mpsfix_fix_edit *fe, const mpsfix_match *m);
static bool element_of(TSNode node, TSNode *elem, TSNode *list);

static bool inside_any(TSNode n, const mpsfix_span *spans, size_t count)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);

	for (size_t i = 0; i < count; i++)
		if (spans[i].start <= s && e <= spans[i].end)
			return true;
	return false;
}

typedef struct {
	TSNode node;
	uint32_t s, e;
	size_t use;        /* which use: template variable occurrence, or the original */
	const mpsfix_template *tmpl; /* the template of the occurrence, NULL for the original */
	size_t var;        /* which metavariable of tmpl */
} code_use;

static void add_use(code_use **uses, size_t *n, size_t *cap, TSNode node, size_t use,
		    const mpsfix_template *tmpl, size_t var)
{
	mpsfix_grow((void **)uses, cap, *n + 1, sizeof(**uses));
	(*uses)[(*n)++] = (code_use){node, ts_node_start_byte(node), ts_node_end_byte(node), use,
				     tmpl, var};
}

/*
 * Code the fix would leave evaluated more than once: a node rendered by two
 * template variables (the same metavariable twice, or `$input` inside
 * `$$$ARGS`), or rendered while its original stays in the file (outside
 * every replaced or removed range), and not pure.  Returns the node, or a
 * null node.
 */
static TSNode evaluated_twice(const mpsfix_rule *r, const mpsfix_fix_case *fc, const mpsfix_match *m,
			      const char *src)
{
	mpsfix_span *spans = mpsfix_xcalloc(fc->nedits + 1, sizeof(*spans));
	code_use *uses = NULL;
	size_t nspans = 0, nuses = 0, cap = 0, id = 0;
	TSNode twice = {0};

	for (size_t i = 0; i < fc->nedits; i++) {
		TSNode t = edit_target(&fc->edits[i], m), list;

		if (ts_node_is_null(t) || fc->edits[i].op == MPSFIX_FIX_INSERT ||
		    fc->edits[i].op == MPSFIX_FIX_ADD_ARGUMENT)
			continue;
		if (fc->edits[i].op == MPSFIX_FIX_REMOVE)
			element_of(t, &t, &list);
		spans[nspans++] = (mpsfix_span){ts_node_start_byte(t), ts_node_end_byte(t)};
	}
	for (size_t i = 0; i < fc->nedits; i++) {
		const mpsfix_template *t = fc->edits[i].tmpl;

		for (size_t k = 0; t && k < mpsfix_template_metavar_count(t); k++) {
			const mpsfix_binding *b = mpsfix_match_var(m, mpsfix_template_metavar(t, k, NULL, NULL));
			const TSNode *nodes;
			size_t count;

			if (!b || !b->bound)
				continue;
			nodes = b->multi ? m->nodes + b->first : &b->node;
			count = b->multi ? b->count : 1;
			id++;
			for (size_t j = 0; j < count; j++) {
				add_use(&uses, &nuses, &cap, nodes[j], id, t, k);
				if (!inside_any(nodes[j], spans, nspans))
					add_use(&uses, &nuses, &cap, nodes[j], ++id, NULL, 0); /* the original stays */
			}
		}
	}
	for (size_t i = 0; i < nuses && ts_node_is_null(twice); i++)
		for (size_t j = i + 1; j < nuses && ts_node_is_null(twice); j++) {
			const code_use *a = &uses[i], *b = &uses[j];
			TSNode inner;

			if (a->use == b->use || !(a->s < b->e && b->s < a->e))
				continue;
			/* `$X.f() if c else $X`: only one of them runs */
			if (a->tmpl && a->tmpl == b->tmpl && mpsfix_template_exclusive(a->tmpl, a->var, b->var))
				continue;
			inner = b->e - b->s < a->e - a->s ? b->node : a->node;
			if (!mpsfix_node_pure(inner, src))
				twice = inner;
		}
	/* `where: X: {pure: true}` asks for it whatever the template does; a
	 * parameter that was not passed is pure */
	for (size_t k = 0; k < r->nconstraints && ts_node_is_null(twice); k++) {
		const mpsfix_binding *b;
		TSNode n;

		if (!r->constraints[k].pure)
			continue;
		if (!strcmp(r->constraints[k].metavar, "MATCH"))
			n = m->node;
		else if ((b = mpsfix_match_get(m, r->constraints[k].metavar)) && b->bound && !b->multi)
			n = b->node;
		else
			continue;
		if (!mpsfix_node_pure(n, src))
			twice = n;
	}
	free(uses);
	free(spans);
	return twice;
}

/* `code` for a reason, or where it is when it is long. */
static char *code_words(TSNode n, const char *src)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);

	if (e - s > 60 || memchr(src + s, '\n', e - s))
		return mpsfix_xasprintf("the %s at byte %u", ts_node_type(n), s);
	return mpsfix_xasprintf("`%.*s`", (int)(e - s), src + s);
}

/*
 * Code that is not pure would run in another order after the fix than
 * before: a template that writes `dim=$dim, ..., keepdim=$keepdim` for a
 * call written `keepdim=f(), dim=g()` runs g() first.  The uses of each
 * replacing template are taken in its text order, each against the earlier
 * ones that run with it (not those of another branch of one conditional
 * expression).  Returns the reason, or NULL.
 */
static char *evaluated_out_of_order(const mpsfix_fix_case *fc, const mpsfix_match *m, const char *src)
{
	char *reason = NULL;

	for (size_t i = 0; i < fc->nedits && !reason; i++) {
		const mpsfix_template *t = fc->edits[i].tmpl;
		size_t n = t && fc->edits[i].op == MPSFIX_FIX_REPLACE ? mpsfix_template_metavar_count(t) : 0;

		for (size_t k = 1; k < n && !reason; k++)
			for (size_t j = 0; j < k && !reason; j++) {
				const mpsfix_binding *a = mpsfix_match_var(m, mpsfix_template_metavar(t, j, NULL, NULL));
				const mpsfix_binding *b = mpsfix_match_var(m, mpsfix_template_metavar(t, k, NULL, NULL));
				const TSNode *an, *bn;
				size_t ac, bc;

				if (!a || !b || !a->bound || !b->bound || mpsfix_template_exclusive(t, j, k))
					continue;
				an = a->multi ? m->nodes + a->first : &a->node;
				ac = a->multi ? a->count : 1;
				bn = b->multi ? m->nodes + b->first : &b->node;
				bc = b->multi ? b->count : 1;
				/* an impure node of the later use that the code runs before
				   an impure node of the earlier one */
				for (size_t x = 0; x < ac && !reason; x++)
					for (size_t y = 0; y < bc && !reason; y++)
						if (ts_node_start_byte(bn[y]) < ts_node_start_byte(an[x]) &&
						    ts_node_end_byte(bn[y]) <= ts_node_start_byte(an[x]) &&
						    !mpsfix_node_pure(an[x], src) && !mpsfix_node_pure(bn[y], src)) {
							char *first = code_words(bn[y], src), *then = code_words(an[x], src);

							reason = mpsfix_xasprintf("the fix would run %s before %s, "
										  "which the code runs the other "
										  "way round", then, first);
							free(first);
							free(then);
						}
			}
	}
	return reason;
}

static char *twice_reason(TSNode n, const char *src)
{
	char *code = code_words(n, src), *reason = mpsfix_xasprintf("%s would be evaluated twice", code);

	free(code);
	return reason;
}

/* ---- one fix ------------------------------------------------------------------ */

static TSNode edit_target(const mpsfix_fix_edit *fe, const mpsfix_match *m)
{
	const mpsfix_binding *b;

	if (!fe->target)
		return m->node;
	b = mpsfix_match_get(m, fe->target);
	return b && !b->multi ? b->node : (TSNode){0};
}

/* The first component of a dotted name: the module to import. */
static char *root_of(const char *qname)
{
	return mpsfix_xstrndup(qname, strcspn(qname, "."));
}

/*
 * How the file spells each dotted name of the template at `target`; the
 * modules that need an `import` line go to `imports`.  Returns a reason
 * when a name cannot be spelled there.
 */
static char *spell_names(mpsfix_fix_ctx *fc, const mpsfix_template *t, TSNode target,
			 char **spellings, mpsfix_strvec *imports)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *reason = NULL;

	for (size_t q = 0; q < mpsfix_template_qname_count(t) && !reason; q++) {
		const char *qname = mpsfix_template_qname(t, q);
		char *root;

		switch (fc->names ? mpsfix_names_spell(fc->names, target, qname, &b) : MPSFIX_SPELL_OK) {
		case MPSFIX_SPELL_OK:
			spellings[q] = fc->names ? mpsfix_buf_detach(&b, NULL) : mpsfix_xstrdup(qname);
			break;
		case MPSFIX_SPELL_NEED_IMPORT:
			spellings[q] = mpsfix_xstrdup(qname);
			root = root_of(qname);
			if (root && mpsfix_strvec_has(imports, root))
				free(root);
			else if (root)
				mpsfix_strvec_push_owned(imports, root);
			break;
		default:
			root = root_of(qname);
			reason = mpsfix_xasprintf("`%s` means something else here, so the fix cannot "
						  "write `%s`", root, qname);
			free(root);
		}
	}
	mpsfix_buf_release(&b);
	return reason;
}

/*
 * Render fe's template for code at `target` into `text` (prefixed by
 * `prefix`), spelling its dotted names as the file does there, and add an
 * `import ROOT` edit for each name the file cannot reach yet.  `kept`, if
 * not NULL, gets the spans of the original code the text keeps.  `layout`,
 * if not NULL, places the lines of the template (its statements, placed by
 * the caller).
 */
static char *render(mpsfix_fix_ctx *fc, const mpsfix_fix_edit *fe, const mpsfix_match *m,
		    TSNode target, const char *prefix, mpsfix_buf *text, mpsfix_spans *kept,
		    mpsfix_edits *edits, uint32_t group, const mpsfix_template_layout *layout)
{
	int rc;

	mpsfix_strvec imports = MPSFIX_STRVEC_INIT;
	size_t nq = mpsfix_template_qname_count(fe->tmpl);
	char **spellings = mpsfix_xcalloc(nq + 1, sizeof(char *));
	char *reason = NULL;

	if ((reason = spell_names(fc, fe->tmpl, target, spellings, &imports)) != NULL)
		goto done;
	mpsfix_buf_adds(text, prefix);
	rc = layout ? mpsfix_template_render_at(text, kept, fe->tmpl, m, fc->src, target, spellings, layout)
		    : mpsfix_template_render(text, kept, fe->tmpl, m, fc->src, target, spellings);
	if (rc < 0) {
		reason = mpsfix_xstrdup(mpsfix_error_last()->message);
		goto done;
	}
	if (imports.len) {
		/* `import torch` where isort would sort it, before the code */
		mpsfix_import_edit *ie = mpsfix_xcalloc(imports.len, sizeof(*ie));
		size_t ne = mpsfix_fix_import_edits(fc->names, ts_node_start_byte(target),
						    (const char *const *)imports.items, imports.len,
						    mpsfix_source_newline(fc->src), fc->src->ncells > 0, ie);

		for (size_t i = 0; i < ne; i++) {
			mpsfix_edits_add_shared(edits, ie[i].start, ie[i].end, ie[i].text, strlen(ie[i].text), group);
			free(ie[i].text);
		}
		free(ie);
	}
done:
	for (size_t i = 0; i < nq; i++)
		free(spellings[i]);
	free(spellings);
	mpsfix_strvec_release(&imports);
	return reason;
}

/*
 * Are the parentheses around a template of this kind (1 a tuple, 2 another
 * expression) redundant at `target`: the whole value of an assignment or of
 * a `return` (`s, m = a, b`, as black writes it), or for a non-tuple an
 * argument or a keyword argument's value?
 */
static bool parens_redundant(TSNode target, int kind)
{
	TSNode parent = ts_node_parent(target);

	if (is(parent, "assignment") || is(parent, "augmented_assignment"))
		return ts_node_eq(ts_node_child_by_field_name(parent, "right", 5), target);
	if (is(parent, "return_statement"))
		return true;
	return kind == 2 && (is(parent, "argument_list") || is(parent, "keyword_argument"));
}

/* Replace `target` by the rendered template; statements go where fix_stmt.c places them. */
static char *replace(mpsfix_fix_ctx *fc, const mpsfix_fix_edit *fe, const mpsfix_match *m,
		     TSNode target, mpsfix_edits *edits, uint32_t group)
{
	mpsfix_spans kept = {0};
	mpsfix_buf text = MPSFIX_BUF_INIT;
	mpsfix_stmt_place place = {0};
	uint32_t s = ts_node_start_byte(target), e = ts_node_end_byte(target);
	size_t mark = edits->len;
	bool statements = mpsfix_template_is_statements(fe->tmpl);
	char *reason = statements ? mpsfix_fix_place_statements(fc->src, target, &place) : NULL;

	if (statements && !reason)
		s = place.start;
	if (!reason)
		reason = render(fc, fe, m, target, statements ? place.prefix : "", &text, &kept, edits,
				group, statements ? &place.layout : NULL);

	if (!reason && drops_comment(target, s, e, &kept))
		reason = mpsfix_xstrdup("the fix would drop a comment");
	if (!reason && !statements && mpsfix_template_parenthesized(fe->tmpl) &&
	    parens_redundant(target, mpsfix_template_parenthesized(fe->tmpl)) &&
	    text.len >= 2 && text.data[0] == '(' && text.data[text.len - 1] == ')') {
		/* the template's parentheses are redundant there: written bare */
		memmove(text.data, text.data + 1, text.len - 2);
		text.len -= 2;
		text.data[text.len] = '\0';
	}
	if (!reason)
		mpsfix_edits_add(edits, s, e, text.data ? text.data : "", text.len, group);
	else
		for (; edits->len > mark; edits->len--)
			free(edits->items[edits->len - 1].text);
	free(kept.items);
	mpsfix_buf_release(&text);
	mpsfix_stmt_place_release(&place);
	return reason;
}

/*
 * Why Python would refuse the argument `arg` (rendered text) after the
 * arguments of list `args`, or NULL: a keyword given twice, a positional
 * argument after a keyword argument or `**`, `*x` after `**`.
 */
static char *argument_refused(TSNode args, const char *src, const char *arg)
{
	size_t n;
	bool keyword = false, star = false, positional = false;

	arg += strspn(arg, " \t");
	n = strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (n && arg[n + strspn(arg + n, " \t")] == '=' && arg[n + strspn(arg + n, " \t") + 1] != '=')
		keyword = true;
	else if (arg[0] == '*')
		star = arg[1] != '*';
	else
		positional = true;
	for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
		TSNode a = ts_node_named_child(args, i), name;

		if (positional && is(a, "keyword_argument"))
			return mpsfix_xstrdup("the new argument is positional, and the call has keyword "
					      "arguments");
		if ((positional || star) && is(a, "dictionary_splat"))
			return mpsfix_xstrdup("the new argument would follow `**` unpacking");
		if (!keyword || !is(a, "keyword_argument"))
			continue;
		name = ts_node_child_by_field_name(a, "name", 4);
		if (ts_node_end_byte(name) - ts_node_start_byte(name) == n &&
		    !memcmp(src + ts_node_start_byte(name), arg, n))
			return mpsfix_xasprintf("the call passes `%.*s=` already", (int)n, arg);
	}
	return NULL;
}

/* Add the rendered template as the last argument of the call `target`. */
static char *add_argument(mpsfix_fix_ctx *fc, const mpsfix_fix_edit *fe, const mpsfix_match *m,
			  TSNode target, mpsfix_edits *edits, uint32_t group)
{
	TSNode args = ts_node_child_by_field_name(target, "arguments", 9), last = {0}, open;
	mpsfix_buf text = MPSFIX_BUF_INIT;
	uint32_t at;
	char *reason;

	if (!is(target, "call") || ts_node_is_null(args) || !is(args, "argument_list"))
		return mpsfix_xstrdup("'add-argument' needs a call with an argument list");
	for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
		TSNode c = ts_node_named_child(args, i);

		if (!ts_node_is_extra(c))
			last = c;
	}
	open = ts_node_child(args, 0);
	at = ts_node_is_null(last) ? ts_node_end_byte(open) : ts_node_end_byte(last);
	/* rendered for a place in the argument list: it needs no parentheses there */
	reason = render(fc, fe, m, ts_node_is_null(last) ? open : last, ts_node_is_null(last) ? "" : ", ",
			&text, NULL, edits, group, NULL);
	if (!reason)
		reason = argument_refused(args, fc->src->data, text.data + (ts_node_is_null(last) ? 0 : 2));
	if (!reason)
		mpsfix_edits_add(edits, at, at, text.data, text.len, group);
	mpsfix_buf_release(&text);
	return reason;
}

/* ---- moving statements ----------------------------------------------------------- */

/* The statement `n` is: itself, or the expression statement that holds only it. */
static TSNode statement_of(TSNode n)
{
	TSNode parent = ts_node_parent(n);

	if (is(parent, "expression_statement") && ts_node_named_child_count(parent) == 1)
		return parent;
	return n;
}

static bool blank(const char *s, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\f')
			return false;
	return true;
}

/* Remove a statement that owns its lines, line endings included. */
static char *remove_statement(mpsfix_fix_ctx *fc, TSNode target, mpsfix_edits *edits, uint32_t group)
{
	const mpsfix_source *src = fc->src;
	TSNode stmt = statement_of(target), parent = ts_node_parent(stmt);
	uint32_t s = ts_node_start_byte(stmt), e = ts_node_end_byte(stmt), siblings = 0;
	mpsfix_span first, last;
	uint32_t end;
	const char *t = ts_node_type(stmt);
	size_t tl = strlen(t);

	if (!(tl > 10 && !strcmp(t + tl - 10, "_statement")) || ts_node_is_null(parent) ||
	    !(is(parent, "module") || is(parent, "block")))
		return mpsfix_xstrdup("the code to remove is not an element of a list or a statement");
	for (uint32_t i = 0; i < ts_node_named_child_count(parent); i++)
		siblings += !ts_node_is_extra(ts_node_named_child(parent, i));
	if (is(parent, "block") && siblings < 2)
		return mpsfix_xstrdup("removing the statement would leave an empty block");
	first = mpsfix_source_line(src, mpsfix_source_line_of(src, s));
	last = mpsfix_source_line(src, mpsfix_source_line_of(src, e));
	if (!blank(src->data, first.start, s) || !blank(src->data, e, last.end))
		return mpsfix_xstrdup(memchr(src->data + e, '#', last.end - e) ?
				      "the fix would drop a comment" :
				      "the statement shares its line with other code");
	end = last.end;
	while (end < src->len && (src->data[end] == '\r' || src->data[end] == '\n'))
		if (src->data[end++] == '\n')
			break;
	if (drops_comment(stmt, first.start, end, NULL))
		return mpsfix_xstrdup("the fix would drop a comment");
	if (end >= src->len) {
		/* the file's last statement: the blank lines above it would end the
		   file (W391), so they go too */
		uint32_t b = first.start, p;

		while (b > 0) {
			for (p = b - 1; p > 0 && src->data[p - 1] != '\n';)
				p--;
			if (!blank(src->data, p, b - 1))
				break;
			b = p;
		}
		first.start = b > 0 ? b : first.start;
	}
	mpsfix_edits_add(edits, first.start, end, "", 0, group);
	return NULL;
}

static int by_start(const void *a, const void *b)
{
	const mpsfix_edit *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/*
 * CPython refuses a call that repeats a keyword argument ("keyword argument
 * repeated"), but tree-sitter parses it without an error.  A fix there could
 * match again after it is applied (the other `non_blocking=True`) and edit
 * code no finding reported: such code counts as a syntax error.
 */
typedef struct {
	const char *src;
	TSSymbol argument_list, keyword_argument;
	TSNode repeated;     /* the second keyword of a repeated name */
	ARRAY(TSNode) names; /* scratch: the keyword names of one call */
} keyword_scan;

static int compare_names(const void *a, const void *b, const char *src)
{
	const TSNode *x = a, *y = b;
	uint32_t xs = ts_node_start_byte(*x), xl = ts_node_end_byte(*x) - xs;
	uint32_t ys = ts_node_start_byte(*y), yl = ts_node_end_byte(*y) - ys;
	int c = memcmp(src + xs, src + ys, xl < yl ? xl : yl);

	if (c || xl != yl)
		return c ? c : xl < yl ? -1 : 1;
	return xs < ys ? -1 : xs > ys;
}

/* Sort by name, then position: a merge sort (qsort has no context argument in C11). */
static void sort_names(TSNode *v, size_t n, const char *src)
{
	TSNode *tmp;

	if (n < 2)
		return;
	tmp = mpsfix_xmalloc(n * sizeof(*tmp));
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = compare_names(&v[i], &v[j], src) <= 0 ? v[i++] : v[j++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
	free(tmp);
}

static mpsfix_walk_action find_repeated_keyword(TSNode n, void *payload)
{
	keyword_scan *ks = payload;
	uint32_t count;

	if (ts_node_symbol(n) != ks->argument_list)
		return MPSFIX_WALK_DESCEND;
	ks->names.len = 0;
	count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode arg = ts_node_named_child(n, i);
		TSNode name = ts_node_child_by_field_name(arg, "name", 4);

		if (ts_node_symbol(arg) == ks->keyword_argument && !ts_node_is_null(name))
			ARRAY_PUSH(&ks->names, name);
	}
	sort_names(ks->names.items, ks->names.len, ks->src);
	for (size_t i = 1; i < ks->names.len; i++) {
		TSNode a = ks->names.items[i - 1], b = ks->names.items[i];

		if (ts_node_end_byte(a) - ts_node_start_byte(a) == ts_node_end_byte(b) - ts_node_start_byte(b) &&
		    memcmp(ks->src + ts_node_start_byte(a), ks->src + ts_node_start_byte(b),
			   ts_node_end_byte(a) - ts_node_start_byte(a)) == 0) {
			ks->repeated = b;
			return MPSFIX_WALK_STOP;
		}
	}
	return MPSFIX_WALK_DESCEND;
}

/* "keyword argument 'x' repeated" when a call of `node` repeats one (malloc'd), or NULL. */
static char *repeated_keyword(TSNode node, const char *src)
{
	keyword_scan ks = {
		.src = src,
		.argument_list = mpsfix_symbol("argument_list"),
		.keyword_argument = mpsfix_symbol("keyword_argument"),
	};
	char *reason = NULL;

	if (!mpsfix_walk(node, find_repeated_keyword, &ks)) {
		uint32_t s = ts_node_start_byte(ks.repeated), e = ts_node_end_byte(ks.repeated);

		reason = mpsfix_xasprintf("inside a syntax error (keyword argument '%.*s' repeated)",
					  (int)(e - s), src + s);
	}
	free(ks.names.items);
	return reason;
}

char *mpsfix_fix_render(mpsfix_fix_ctx *fc, const mpsfix_rule *r, const mpsfix_match *m,
			mpsfix_edits *edits, uint32_t group)
{
	ARRAY(removal) removals = {0};
	size_t mark = edits->len;
	char *reason = NULL;
	mpsfix_call_binding cb = {0};
	mpsfix_match bm;
	const mpsfix_fix_case *fcase;
	mpsfix_cond_ctx cx = {fc->matcher, fc->src->data, fc->root, fc->names, NULL};
	TSNode twice;

	if (ts_node_has_error(fc->root) &&
	    (ts_node_has_error(m->node) || mpsfix_node_in_error(m->node)))
		return mpsfix_xstrdup("inside a syntax error");
	if ((reason = repeated_keyword(m->node, fc->src->data)) != NULL)
		return reason;
	if (r->signature.len && !m->param_names) {
		/* the arguments, by parameter name, for the templates */
		if ((reason = mpsfix_signature_bind(&cb, &r->signature, m->node, fc->src->data)) != NULL)
			return reason;
		bm = *m;
		bm.param_names = cb.names;
		bm.params = cb.bindings;
		bm.nparams = cb.n;
		m = &bm;
	}
	if (!(fcase = mpsfix_cond_case(&cx, r, m, fc->target))) {
		mpsfix_call_binding_release(&cb);
		return mpsfix_xstrdup("no form of the fix applies to this code");
	}
	if (fcase->manual) {
		mpsfix_call_binding_release(&cb);
		return mpsfix_xstrdup(fcase->manual);
	}
	twice = evaluated_twice(r, fcase, m, fc->src->data);
	if (!ts_node_is_null(twice)) {
		mpsfix_call_binding_release(&cb);
		return twice_reason(twice, fc->src->data);
	}
	if ((reason = evaluated_out_of_order(fcase, m, fc->src->data)) != NULL) {
		mpsfix_call_binding_release(&cb);
		return reason;
	}
	for (size_t i = 0; i < fcase->nedits && !reason; i++) {
		const mpsfix_fix_edit *fe = &fcase->edits[i];
		TSNode target = edit_target(fe, m);
		removal rm;

		if (fe->op == MPSFIX_FIX_INSERT)
			reason = mpsfix_fix_insert_before_import(fc->src, fc->root, fc->names, fe, m, edits, group);
		else if (ts_node_is_null(target))
			reason = mpsfix_xasprintf("%s%s was not passed", is_param_name(fe->target) ? "" : "$",
						  fe->target);
		else if (fe->op == MPSFIX_FIX_ADD_ARGUMENT)
			reason = add_argument(fc, fe, m, target, edits, group);
		else if (fe->op == MPSFIX_FIX_REPLACE)
			reason = replace(fc, fe, m, target, edits, group);
		else if (!element_of(target, &rm.elem, &rm.list))
			reason = remove_statement(fc, target, edits, group);
		else
			ARRAY_PUSH(&removals, rm);
	}
	/* removals from one list are done together, so their commas agree */
	if (!reason && removals.len) {
		bool *done = mpsfix_xcalloc(removals.len, sizeof(bool));
		removal *same = mpsfix_xcalloc(removals.len, sizeof(removal));

		for (size_t i = 0; i < removals.len && !reason; i++) {
			size_t n = 0;

			if (done[i])
				continue;
			for (size_t k = i; k < removals.len; k++)
				if (!done[k] && ts_node_eq(removals.items[k].list, removals.items[i].list)) {
					same[n++] = removals.items[k];
					done[k] = true;
				}
			reason = remove_elements(removals.items[i].list, same, n, edits, group);
		}
		free(done);
		free(same);
	}
	if (!reason && edits->len - mark > 1) {
		/* the edits of one fix must not overlap */
		qsort(edits->items + mark, edits->len - mark, sizeof(*edits->items), by_start);
		for (size_t i = mark + 1; i < edits->len && !reason; i++)
			if (edits->items[i].start < edits->items[i - 1].end)
				reason = mpsfix_xstrdup("the edits of this fix overlap");
	}
	if (!reason) /* in an f-string's {...}, what Python before 3.12 reads */
		reason = mpsfix_fix_fstring(fc->root, fc->src->data, edits->items + mark, edits->len - mark,
					    &fc->fstrings);
	if (!reason) {
		/* a fix that changes nothing here would be applied again and again */
		bool same = true;

		for (size_t i = mark; i < edits->len && same; i++)
			same = edits->items[i].len == edits->items[i].end - edits->items[i].start &&
			       !memcmp(edits->items[i].text, fc->src->data + edits->items[i].start,
				       edits->items[i].len);
		if (same)
			reason = mpsfix_xstrdup("the fix changes nothing here");
	}
	if (reason) {
		/* all of a fix or nothing */
		for (size_t i = mark; i < edits->len; i++)
			free(edits->items[i].text);
		edits->len = mark;
	}
	free(removals.items);
	mpsfix_call_binding_release(&cb);
	return reason;
}
