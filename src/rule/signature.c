/*
 * signature.c: overloads of a rule's callee, and binding call arguments to
 * their parameters the way Python does.
 */
#include "signature.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"

enum {
	TYPE_BOOL = 1u << 0,
	TYPE_INT = 1u << 1,
	TYPE_FLOAT = 1u << 2,
	TYPE_STR = 1u << 3,
	TYPE_NONE = 1u << 4,
	TYPE_TUPLE = 1u << 5,
	TYPE_LIST = 1u << 6,
	TYPE_TENSOR = 1u << 7,   /* no literal */
	TYPE_OTHER = 1u << 8     /* an argument that is not a literal */
};

static const struct {
	const char *name;
	unsigned mask;
} type_names[] = {
	{"bool", TYPE_BOOL}, {"int", TYPE_INT}, {"float", TYPE_FLOAT | TYPE_INT},
	{"str", TYPE_STR}, {"None", TYPE_NONE}, {"tuple", TYPE_TUPLE}, {"list", TYPE_LIST},
	{"Tensor", TYPE_TENSOR}, {"any", 0},
};

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}


void mpsfix_overload_release(mpsfix_overload *o)
{
	for (size_t i = 0; i < o->nparams; i++)
		free(o->params[i].name);
	free(o->params);
	free(o->text);
	free(o->name);
	memset(o, 0, sizeof(*o));
}

void mpsfix_signature_release(mpsfix_signature *s)
{
	for (size_t i = 0; i < s->len; i++)
		mpsfix_overload_release(&s->items[i]);
	free(s->items);
	s->items = NULL;
	s->len = 0;
}

/* `bool | int | None` into a mask; 0 (any) for `any`. */
static int parse_type(unsigned *out, const char *text, size_t len, size_t *bad)
{
	size_t i = 0;
	bool any = false;

	*out = 0;
	while (i < len) {
		size_t s, e, k;

		while (i < len && strchr(" \t\n", text[i]))
			i++;
		s = i;
		while (i < len && text[i] != '|')
			i++;
		e = i;
		while (e > s && strchr(" \t\n", text[e - 1]))
			e--;
		for (k = 0; k < MPSFIX_ARRAY_SIZE(type_names); k++)
			if (strlen(type_names[k].name) == e - s && !memcmp(type_names[k].name, text + s, e - s))
				break;
		if (k == MPSFIX_ARRAY_SIZE(type_names)) {
			*bad = s;
			return MPSFIX_ERROR;
		}
		*out |= type_names[k].mask;
		any |= type_names[k].mask == 0;
		i++; /* the '|' */
	}
	if (any)
		*out = 0;
	return 0;
}

int mpsfix_overload_parse(mpsfix_overload *out, TSParser *parser, const char *text, size_t len,
			  uint32_t *err_offset)
{
	static const char prefix[] = "def ";
	mpsfix_buf b = MPSFIX_BUF_INIT;
	TSTree *tree = NULL;
	TSNode root, def, params;
	mpsfix_param_kind kind = MPSFIX_PARAM_NORMAL;
	const size_t skip = sizeof(prefix) - 1;
	uint32_t count = 0;
	int error = 0;

	memset(out, 0, sizeof(*out));
	*err_offset = 0;
	while (len && strchr(" \t\r\n", text[len - 1]))
		len--;
	mpsfix_buf_adds(&b, prefix);
	mpsfix_buf_add(&b, text, len);
	mpsfix_buf_adds(&b, ": pass\n");
	if ((error = mpsfix_parse(&tree, parser, b.data, (uint32_t)b.len)) < 0)
		goto done;
	root = ts_tree_root_node(tree);
	def = ts_node_named_child(root, 0);
	for (uint32_t i = 0; i < ts_node_named_child_count(root); i++)
		count += !ts_node_is_extra(ts_node_named_child(root, i));
	if (ts_node_has_error(root) || count != 1 || !is(def, "function_definition") ||
	    ts_node_start_byte(def) != 0) {
		TSNode bad;
		uint32_t at = mpsfix_first_error(root, &bad) ? ts_node_start_byte(bad) : (uint32_t)skip;

		*err_offset = at > skip ? (uint32_t)(at - skip < len ? at - skip : len) : 0;
		error = mpsfix_error_set(MPSFIX_ERROR, "a signature is written `name(param, param=default, *, param)`");
		goto done;
	}
	out->text = mpsfix_xstrndup(text, len);
	out->name = mpsfix_node_text(ts_node_child_by_field_name(def, "name", 4), b.data);
	params = ts_node_child_by_field_name(def, "parameters", 10);
	for (uint32_t i = 0; i < ts_node_named_child_count(params); i++) {
		TSNode p = ts_node_named_child(params, i), name = p, type = {0};
		mpsfix_param prm = {.kind = kind};

		if (ts_node_is_extra(p))
			continue;
		if (is(p, "positional_separator")) {
			for (size_t k = 0; k < out->nparams; k++)
				out->params[k].kind = MPSFIX_PARAM_POSONLY;
			continue;
		}
		if (is(p, "keyword_separator")) {
			kind = MPSFIX_PARAM_KWONLY;
			continue;
		}
		if (is(p, "default_parameter") || is(p, "typed_default_parameter")) {
			prm.optional = true;
			name = ts_node_child_by_field_name(p, "name", 4);
			type = ts_node_child_by_field_name(p, "type", 4);
		} else if (is(p, "typed_parameter")) {
			name = ts_node_named_child(p, 0);
			type = ts_node_child_by_field_name(p, "type", 4);
		}
		if (is(name, "list_splat_pattern")) {
			prm.kind = MPSFIX_PARAM_VARARGS;
			kind = MPSFIX_PARAM_KWONLY;
			name = ts_node_named_child(name, 0);
		} else if (is(name, "dictionary_splat_pattern")) {
			prm.kind = MPSFIX_PARAM_VARKW;
			name = ts_node_named_child(name, 0);
		}
		if (!is(name, "identifier")) {
			*err_offset = (uint32_t)(ts_node_start_byte(p) - skip);
			error = mpsfix_error_set(MPSFIX_ERROR, "a parameter must be a plain name");
			goto done;
		}
		if (!ts_node_is_null(type)) {
			size_t bad = 0;
			uint32_t ts = ts_node_start_byte(type);

			if (parse_type(&prm.types, b.data + ts, ts_node_end_byte(type) - ts, &bad) < 0) {
				*err_offset = (uint32_t)(ts + bad - skip);
				error = mpsfix_error_set(MPSFIX_ERROR, "unknown type in a signature: use bool, int, "
							 "float, str, None, tuple, list, Tensor or any, joined by |");
				goto done;
			}
		}
		prm.name = mpsfix_node_text(name, b.data);
		for (size_t k = 0; k < out->nparams; k++)
			if (!strcmp(out->params[k].name, prm.name)) {
				*err_offset = (uint32_t)(ts_node_start_byte(name) - skip);
				error = mpsfix_error_set(MPSFIX_ERROR, "parameter '%s' appears twice", prm.name);
				free(prm.name);
				goto done;
			}
		out->params = mpsfix_xrealloc(out->params, (out->nparams + 1) * sizeof(*out->params));
		out->params[out->nparams++] = prm;
	}
done:
	if (error < 0)
		mpsfix_overload_release(out);
	ts_tree_delete(tree);
	mpsfix_buf_release(&b);
	return error;
}

bool mpsfix_signature_has_param(const mpsfix_signature *s, const char *name)
{
	for (size_t i = 0; i < s->len; i++)
		for (size_t k = 0; k < s->items[i].nparams; k++)
			if (!strcmp(s->items[i].params[k].name, name))
				return true;
	return false;
}

void mpsfix_call_binding_release(mpsfix_call_binding *b)
{
	free(b->names);
	free(b->bindings);
	memset(b, 0, sizeof(*b));
}

/* ---- binding ------------------------------------------------------------------ */

/* What literal an argument is (TYPE_OTHER: not a literal). */
static unsigned arg_type(TSNode n)
{
	const char *t = ts_node_type(n);

	if (!strcmp(t, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
		return arg_type(ts_node_named_child(n, 0));
	if (!strcmp(t, "true") || !strcmp(t, "false"))
		return TYPE_BOOL;
	if (!strcmp(t, "integer"))
		return TYPE_INT;
	if (!strcmp(t, "float"))
		return TYPE_FLOAT;
	if (!strcmp(t, "none"))
		return TYPE_NONE;
	if (!strcmp(t, "tuple"))
		return TYPE_TUPLE;
	if (!strcmp(t, "list"))
		return TYPE_LIST;
	if (!strcmp(t, "string") || !strcmp(t, "concatenated_string"))
		return TYPE_STR;
	if (!strcmp(t, "unary_operator")) {
		TSNode arg = ts_node_child_by_field_name(n, "argument", 8);
		unsigned a = ts_node_is_null(arg) ? TYPE_OTHER : arg_type(arg);

		return a == TYPE_INT || a == TYPE_FLOAT ? a : TYPE_OTHER;
	}
	return TYPE_OTHER;
}

static bool type_fits(unsigned param, unsigned arg)
{
	if (param == 0)
		return true;
	if (arg == TYPE_OTHER)
		return true; /* a name or an expression: could be anything */
	return (param & arg) != 0;
}

typedef struct {
	TSNode value;      /* what the parameter gets */
	TSNode keyword;    /* keyword arguments: the name */
	bool splat;
} call_arg;

/* Bind `args` to overload `o`: param index per argument, or false. */
static bool bind_overload(const mpsfix_overload *o, const call_arg *args, size_t nargs,
			  const char *src, int *param_of)
{
	bool *taken = mpsfix_xcalloc(o->nparams + 1, sizeof(bool));
	size_t next = 0;
	bool ok = true;

	for (size_t a = 0; a < nargs && ok; a++) {
		const call_arg *arg = &args[a];
		int p = -1;

		if (ts_node_is_null(arg->keyword)) {
			while (next < o->nparams && o->params[next].kind > MPSFIX_PARAM_NORMAL &&
			       o->params[next].kind != MPSFIX_PARAM_VARARGS)
				next++;
			if (next < o->nparams && o->params[next].kind <= MPSFIX_PARAM_NORMAL)
				p = (int)next++;
			else if (next < o->nparams && o->params[next].kind == MPSFIX_PARAM_VARARGS)
				p = (int)next; /* takes the rest */
		} else {
			uint32_t ks = ts_node_start_byte(arg->keyword), ke = ts_node_end_byte(arg->keyword);

			for (size_t k = 0; k < o->nparams && p < 0; k++)
				if ((o->params[k].kind == MPSFIX_PARAM_NORMAL || o->params[k].kind == MPSFIX_PARAM_KWONLY) &&
				    strlen(o->params[k].name) == ke - ks && !memcmp(o->params[k].name, src + ks, ke - ks))
					p = (int)k;
			for (size_t k = 0; k < o->nparams && p < 0; k++)
				if (o->params[k].kind == MPSFIX_PARAM_VARKW)
					p = (int)k;
		}
		if (p < 0 || (taken[p] && o->params[p].kind != MPSFIX_PARAM_VARARGS &&
			      o->params[p].kind != MPSFIX_PARAM_VARKW) ||
		    !type_fits(o->params[p].types, arg_type(arg->value)))
			ok = false;
		else
			taken[p] = true;
		param_of[a] = p;
	}
	for (size_t k = 0; k < o->nparams && ok; k++)
		if (!taken[k] && !o->params[k].optional && o->params[k].kind != MPSFIX_PARAM_VARARGS &&
		    o->params[k].kind != MPSFIX_PARAM_VARKW)
			ok = false;
	free(taken);
	return ok;
}

static char *arg_text(TSNode n, const char *src)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);

	if (e - s > 40 || memchr(src + s, '\n', e - s))
		return mpsfix_xstrdup("an argument");
	return mpsfix_xasprintf("`%.*s`", (int)(e - s), src + s);
}

char *mpsfix_signature_bind(mpsfix_call_binding *out, const mpsfix_signature *sig, TSNode call,
			    const char *src)
{
	TSNode list = ts_node_child_by_field_name(call, "arguments", 9);
	ARRAY(call_arg) args = {0};
	int *param_of = NULL, *first_fit = NULL;
	const mpsfix_overload *chosen = NULL;
	const char *fname = sig->len ? sig->items[0].name : "the function";
	char *reason = NULL;

	memset(out, 0, sizeof(*out));
	if (is(list, "generator_expression")) {
		ARRAY_PUSH(&args, ((call_arg){.value = list}));
	} else if (is(list, "argument_list")) {
		for (uint32_t i = 0; i < ts_node_named_child_count(list); i++) {
			TSNode a = ts_node_named_child(list, i);

			if (ts_node_is_extra(a))
				continue;
			if (is(a, "list_splat") || is(a, "dictionary_splat")) {
				reason = mpsfix_xasprintf("%s in the call makes its arguments unknown",
							  is(a, "list_splat") ? "*args" : "**kwargs");
				goto done;
			}
			if (is(a, "keyword_argument"))
				ARRAY_PUSH(&args, ((call_arg){
					.value = ts_node_child_by_field_name(a, "value", 5),
					.keyword = ts_node_child_by_field_name(a, "name", 4),
				}));
			else
				ARRAY_PUSH(&args, ((call_arg){.value = a}));
		}
	} else {
		reason = mpsfix_xstrdup("not a call with an argument list");
		goto done;
	}
	param_of = mpsfix_xcalloc(args.len + 1, sizeof(int));
	first_fit = mpsfix_xcalloc(args.len + 1, sizeof(int));
	for (size_t i = 0; i < sig->len && !reason; i++) {
		const mpsfix_overload *o = &sig->items[i];

		if (!bind_overload(o, args.items, args.len, src, param_of))
			continue;
		if (!chosen) {
			chosen = o;
			memcpy(first_fit, param_of, args.len * sizeof(int));
			continue;
		}
		for (size_t a = 0; a < args.len && !reason; a++) {
			const char *was = chosen->params[first_fit[a]].name, *now = o->params[param_of[a]].name;

			if (strcmp(was, now) != 0) {
				char *what = arg_text(args.items[a].value, src);

				reason = mpsfix_xasprintf("ambiguous call: %s could be `%s` or `%s` of %s",
							  what, was, now, fname);
				free(what);
			}
		}
	}
	if (!reason && !chosen)
		reason = mpsfix_xasprintf("ambiguous call: no signature of %s declared by the rule fits "
					  "these arguments", fname);
	if (reason)
		goto done;
	/* every parameter name of the signature: bound or not */
	for (size_t i = 0; i < sig->len; i++)
		for (size_t k = 0; k < sig->items[i].nparams; k++) {
			char *name = sig->items[i].params[k].name;
			bool seen = false;

			for (size_t j = 0; j < out->n && !seen; j++)
				seen = !strcmp(out->names[j], name);
			if (seen)
				continue;
			out->names = mpsfix_xrealloc(out->names, (out->n + 1) * sizeof(char *));
			out->names[out->n++] = name;
		}
	out->bindings = mpsfix_xcalloc(out->n + 1, sizeof(*out->bindings));
	out->overload = chosen;
	for (size_t a = 0; a < args.len; a++) {
		const mpsfix_param *p = &chosen->params[first_fit[a]];

		if (p->kind == MPSFIX_PARAM_VARARGS || p->kind == MPSFIX_PARAM_VARKW)
			continue; /* not nameable in templates */
		for (size_t j = 0; j < out->n; j++)
			if (!strcmp(out->names[j], p->name))
				out->bindings[j] = (mpsfix_binding){.bound = true, .node = args.items[a].value};
	}
done:
	if (reason)
		mpsfix_call_binding_release(out);
	free(args.items);
	free(param_of);
	free(first_fit);
	return reason;
}
