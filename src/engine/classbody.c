/*
 * classbody.c: what a class's bases and own body say about its attributes
 * (see classbody.h).  Used by selfattr.c.
 */
#include "classbody.h"

#include <string.h>

#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/*
 * Can a base (or the metaclass) of the class set the attribute: any but
 * `object`, `abc.ABC`, torch's `nn.Module` and `Dataset` (which set no
 * attribute of their own but their private ones; `torch.autocast` sets
 * `self.device`), `metaclass=abc.ABCMeta`?
 */
bool mpsfix_class_foreign_bases(TSNode cls, const char *src, mpsfix_names *names)
{
	static const char *const known[] = {
		"abc.ABC", "abc.ABCMeta", "torch.nn.Module", "torch.nn.modules.module.Module",
		"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset", "torch.utils.data.IterableDataset",
		"torch.utils.data.dataset.IterableDataset",
	};
	TSNode bases = ts_node_child_by_field_name(cls, "superclasses", 12), b;
	mpsfix_buf name = MPSFIX_BUF_INIT;
	mpsfix_kids k;
	bool foreign = false;

	mpsfix_kids_start(&k, bases);
	while (!foreign && mpsfix_kids_next(&k, &b)) {
		if (is(b, "keyword_argument")) {
			if (!mpsfix_node_text_is(ts_node_child_by_field_name(b, "name", 4), src, "metaclass")) {
				foreign = true; /* __init_subclass__ arguments of a base */
				continue;
			}
			b = ts_node_child_by_field_name(b, "value", 5);
		} else if (is(b, "identifier") && mpsfix_node_text_is(b, src, "object")) {
			continue;
		}
		foreign = !names || mpsfix_names_qualify(names, b, &name) != MPSFIX_NAME_RESOLVED;
		for (size_t i = 0; !foreign && i < MPSFIX_ARRAY_SIZE(known) && strcmp(name.data, known[i]); i++)
			foreign = i + 1 == MPSFIX_ARRAY_SIZE(known);
	}
	mpsfix_kids_end(&k);
	mpsfix_buf_release(&name);
	return foreign;
}

typedef struct {
	TSNode name;
	const char *src;
	bool found;
} same_name;

static mpsfix_walk_action find_name(TSNode n, void *payload)
{
	same_name *sn = payload;

	if (is(n, "attribute") || is(n, "subscript"))
		return MPSFIX_WALK_SKIP; /* `a.X, b = ...` binds no X of the class */
	if (is(n, "identifier") && mpsfix_node_same_text(n, sn->name, sn->src)) {
		sn->found = true;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

/* locals(), vars(), exec(), setattr(): a class body that calls one may bind anything */
static mpsfix_walk_action find_dynamic(TSNode n, void *payload)
{
	same_name *sn = payload;

	if (is(n, "identifier") &&
	    (mpsfix_node_text_is(n, sn->src, "locals") || mpsfix_node_text_is(n, sn->src, "vars") ||
	     mpsfix_node_text_is(n, sn->src, "exec") || mpsfix_node_text_is(n, sn->src, "setattr"))) {
		sn->found = true;
		return MPSFIX_WALK_STOP;
	}
	return MPSFIX_WALK_DESCEND;
}

/* The same, or a mention of the name (bound by an if, a try, a loop, an import) */
static mpsfix_walk_action find_dynamic_or_name(TSNode n, void *payload)
{
	mpsfix_walk_action a = find_dynamic(n, payload);

	return a == MPSFIX_WALK_STOP ? a : find_name(n, payload);
}

/*
 * Does the class's own body bind the name, or take over how attributes are
 * found: `X = v`, `a = X = v`, `X: T = v`, `def X`, `__getattr__`,
 * `__getattribute__`, `__setattr__`, `__slots__`, or a statement other
 * than these (an if, a try, a loop, an import) that names X or calls
 * locals(), vars(), exec(), setattr()?
 */
bool mpsfix_class_body_binds(TSNode cls, TSNode name, const char *src)
{
	static const char *const hooks[] = {"__getattr__", "__getattribute__", "__setattr__", "__slots__"};
	same_name sn = {name, src, false};
	mpsfix_kids k;
	TSNode s, t;

	mpsfix_kids_start(&k, ts_node_child_by_field_name(cls, "body", 4));
	while (!sn.found && mpsfix_kids_next(&k, &s)) {
		if (is(s, "decorated_definition"))
			s = ts_node_child_by_field_name(s, "definition", 10);
		if (is(s, "function_definition") || is(s, "class_definition")) {
			t = ts_node_child_by_field_name(s, "name", 4);
			sn.found = mpsfix_node_same_text(t, name, src);
			for (size_t i = 0; !sn.found && i < MPSFIX_ARRAY_SIZE(hooks); i++)
				sn.found = mpsfix_node_text_is(t, src, hooks[i]);
			continue;
		}
		if (is(s, "expression_statement") && is(ts_node_named_child(s, 0), "assignment")) {
			/* each target of a = X = v; a value that calls locals() */
			for (t = ts_node_named_child(s, 0); is(t, "assignment"); t = ts_node_child_by_field_name(t, "right", 5)) {
				TSNode left = ts_node_child_by_field_name(t, "left", 4);

				mpsfix_walk(left, find_name, &sn);
				for (size_t i = 0; !sn.found && i < MPSFIX_ARRAY_SIZE(hooks); i++)
					sn.found = mpsfix_node_text_is(left, src, hooks[i]);
			}
			if (!sn.found)
				mpsfix_walk(s, find_dynamic, &sn);
			continue;
		}
		if (is(s, "pass_statement") || (is(s, "expression_statement") && is(ts_node_named_child(s, 0), "string")))
			continue;
		mpsfix_walk(s, find_dynamic_or_name, &sn);
	}
	mpsfix_kids_end(&k);
	return sn.found;
}

