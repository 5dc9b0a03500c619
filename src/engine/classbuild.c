/*
 * classbuild.c: whether a class is built only where its name is called
 * (see classbuild.h).
 */
#include "classbuild.h"

#include <string.h>

#include "bindings.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/*
 * Is name `n` the `cls` of a call `cls(...)` made right in a class method
 * whose first parameter is `cls` and which binds it nowhere else (not in a
 * def or lambda inside it)?  The call builds an instance of the class or of
 * a subclass: its arguments go to the class's `__init__` unless the
 * subclass has its own, so defaults.c reads them as a call of it.
 */
bool mpsfix_class_cls_call(TSNode n, const char *src)
{
	TSNode call = ts_node_parent(n), f, dd, d, first;
	mpsfix_binding b;

	if (!is(n, "identifier") || !mpsfix_node_text_is(n, src, "cls") || !is(call, "call") ||
	    !mpsfix_field_is(call, "function", n))
		return false;
	for (f = ts_node_parent(call); !ts_node_is_null(f) && !is(f, "function_definition") && !is(f, "lambda") &&
					!is(f, "class_definition");
	     f = ts_node_parent(f))
		;
	if (!is(f, "function_definition") || !is(dd = ts_node_parent(f), "decorated_definition"))
		return false;
	first = mpsfix_first_named(ts_node_child_by_field_name(f, "parameters", 10));
	if (!is(first, "identifier") || !mpsfix_node_text_is(first, src, "cls"))
		return false;
	d = mpsfix_first_named(dd);
	if (!is(d, "decorator") || !mpsfix_node_text_is(mpsfix_first_named(d), src, "classmethod") ||
	    !is(ts_node_next_named_sibling(d), "function_definition"))
		return false; /* @classmethod alone: another decorator may call it otherwise */
	mpsfix_bindings_count(f, src, &n, 1, &b);
	return b.count == 1 && !b.dynamic;
}

/*
 * Is attribute `a` (`X.__init__`, `X.__new__`) the class's own, made to run
 * again on an instance (`self.__init__()`, `cls.__new__(cls)`)?  Not a
 * base's (`super().__init__()`, `nn.Module.__init__(self)`).
 */
static bool own_init(TSNode a, TSNode attr, const char *src)
{
	TSNode obj = ts_node_child_by_field_name(a, "object", 6);

	return (mpsfix_node_text_is(attr, src, "__init__") || mpsfix_node_text_is(attr, src, "__new__")) &&
	       is(obj, "identifier") && (mpsfix_node_text_is(obj, src, "self") || mpsfix_node_text_is(obj, src, "cls"));
}

/* Is attribute `a` of `cls` one that hands on the class or a way to build it (`cls.__mro__[0]()`)? */
static bool class_dunder(TSNode a, const char *src)
{
	static const char *const builders[] = {"__mro__", "__subclasses__", "__self__", "mro"};
	TSNode attr = ts_node_child_by_field_name(a, "attribute", 9);

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(builders); i++)
		if (mpsfix_node_text_is(attr, src, builders[i]))
			return true;
	return false;
}

/*
 * Does name `n` build the class unnamed, or may it: `cls` handed on or
 * called (not `cls.x`, not the parameter itself), a class method's first
 * parameter of another name, `__class__` other than for its name
 * (`self.__class__.__name__`), `type` (`type(self)(...)`)?
 */
typedef struct {
	const char *src;
	bool module;   /* the module around the class: only `type(x)(...)` is asked about */
} builder_walk;

static mpsfix_walk_action self_builder(TSNode n, void *payload)
{
	const builder_walk *bw = payload;
	const char *src = bw->src;
	TSNode p, g;

	if (bw->module && is(n, "class_definition"))
		return MPSFIX_WALK_SKIP; /* a class's own code: asked about class by class */
	if (!bw->module && is(n, "decorator") && mpsfix_node_text_is(mpsfix_first_named(n), src, "classmethod")) {
		/* @classmethod def f(klass, ...): its first parameter must be cls */
		TSNode def = ts_node_child_by_field_name(ts_node_parent(n), "definition", 10);
		TSNode first = mpsfix_first_named(ts_node_child_by_field_name(def, "parameters", 10));

		return is(first, "identifier") && mpsfix_node_text_is(first, src, "cls") ? MPSFIX_WALK_DESCEND
											  : MPSFIX_WALK_STOP;
	}
	if (!is(n, "identifier"))
		return MPSFIX_WALK_DESCEND;
	p = ts_node_parent(n);
	if (bw->module && !mpsfix_node_text_is(n, src, "type"))
		return MPSFIX_WALK_DESCEND;
	if (mpsfix_node_text_is(n, src, "__class__")) {
		g = ts_node_parent(p);
		return is(p, "attribute") && is(g, "attribute") && mpsfix_field_is(g, "object", p) &&
			       (mpsfix_node_text_is(ts_node_child_by_field_name(g, "attribute", 9), src, "__name__") ||
				mpsfix_node_text_is(ts_node_child_by_field_name(g, "attribute", 9), src, "__qualname__"))
			       ? MPSFIX_WALK_DESCEND
			       : MPSFIX_WALK_STOP;
	}
	if (is(p, "attribute") && mpsfix_field_is(p, "attribute", n) && own_init(p, n, src))
		return MPSFIX_WALK_STOP; /* self.__init__(): the instance made again */
	if ((is(p, "attribute") && mpsfix_field_is(p, "attribute", n)) ||
	    (is(p, "keyword_argument") && mpsfix_field_is(p, "name", n)))
		return MPSFIX_WALK_DESCEND; /* device.type, f(cls=...): not the name */
	if (mpsfix_node_text_is(n, src, "cls"))
		return is(p, "parameters") || mpsfix_class_cls_call(n, src) ||
				       (is(p, "attribute") && mpsfix_field_is(p, "object", n) &&
					mpsfix_class_attribute(n, p, src) && !class_dunder(p, src))
			       ? MPSFIX_WALK_DESCEND
			       : MPSFIX_WALK_STOP; /* cls.x, not cls(...), cls.__call__(...), cls.__mro__ */
	if (!mpsfix_node_text_is(n, src, "type"))
		return MPSFIX_WALK_DESCEND;
	/* type(x) compared (`type(x) is int`), shown (f"{type(x)}") or named (`type(x).__name__`) builds nothing */
	g = ts_node_parent(p);
	return is(p, "call") && mpsfix_field_is(p, "function", n) &&
		       (is(g, "comparison_operator") || is(g, "interpolation") ||
			(is(g, "attribute") && mpsfix_field_is(g, "object", p) &&
			 (mpsfix_node_text_is(ts_node_child_by_field_name(g, "attribute", 9), src, "__name__") ||
			  mpsfix_node_text_is(ts_node_child_by_field_name(g, "attribute", 9), src, "__qualname__"))))
		       ? MPSFIX_WALK_DESCEND
		       : MPSFIX_WALK_STOP;
}

/*
 * Does an import at the top of module `root` bind the first name of base
 * `b` (`nn` of `nn.Module`) from torch (or ABC from abc): `import torch`,
 * `import torch.nn as nn`, `from torch import nn`, `from torch.utils.data
 * import Dataset`, `from abc import ABC`?
 */
static bool imported_from(TSNode root, const char *src, TSNode b)
{
	TSNode first = b, s;
	mpsfix_kids k;
	bool yes = false;

	while (is(first, "attribute"))
		first = ts_node_child_by_field_name(first, "object", 6);
	if (!is(first, "identifier"))
		return false;
	mpsfix_kids_start(&k, root);
	while (!yes && mpsfix_kids_next(&k, &s)) {
		TSNode from = ts_node_child_by_field_name(s, "module_name", 11);
		const char *m = src + ts_node_start_byte(is(s, "import_from_statement") ? from : s);

		if (!is(s, "import_statement") && !is(s, "import_from_statement"))
			continue;
		if (is(s, "import_from_statement") && strncmp(m, "torch", 5) && strncmp(m, "abc", 3))
			continue;
		for (uint32_t i = 0; !yes && i < ts_node_named_child_count(s); i++) {
			TSNode it = ts_node_named_child(s, i), bound;

			if (ts_node_eq(it, from))
				continue;
			bound = is(it, "aliased_import") ? ts_node_child_by_field_name(it, "alias", 5)
			      : is(it, "dotted_name") ? ts_node_named_child(it, 0) : it;
			if (!mpsfix_node_same_text(bound, first, src))
				continue;
			/* import torch...: the dotted name starts with torch */
			yes = is(s, "import_from_statement") ||
			      !strncmp(src + ts_node_start_byte(is(it, "aliased_import") ?
								 ts_node_child_by_field_name(it, "name", 4) : it),
				       "torch", 5);
		}
	}
	mpsfix_kids_end(&k);
	return yes;
}

/*
 * Are the bases of class definition `cls` ones that build no instance of
 * it unnamed: none, `object`, `ABC`, torch's `nn.Module` and `Dataset`?
 * Any other base may have a class method that does (transformers'
 * `from_pretrained`), or a registry of its subclasses.
 */
static bool plain_bases(TSNode cls, const char *src)
{
	static const char *const bases[] = {
		"object", "ABC", "abc.ABC", "nn.Module", "torch.nn.Module", "Module", "Dataset", "IterableDataset",
		"data.Dataset", "torch.utils.data.Dataset", "torch.utils.data.IterableDataset",
	};
	TSNode args = ts_node_child_by_field_name(cls, "superclasses", 12), b;
	mpsfix_kids k;
	bool ok = true;

	if (ts_node_is_null(args))
		return true;
	mpsfix_kids_start(&k, args);
	while (ok && mpsfix_kids_next(&k, &b)) {
		size_t i = 0;

		while (i < MPSFIX_ARRAY_SIZE(bases) && !mpsfix_node_text_is(b, src, bases[i]))
			i++;
		/* metaclass=...: not plain; nn.Module, Dataset: torch's, as the module's imports say */
		ok = is(b, "comment") ||
		     (i < MPSFIX_ARRAY_SIZE(bases) && (i == 0 || imported_from(ts_node_parent(cls), src, b)));
	}
	mpsfix_kids_end(&k);
	return ok;
}

/*
 * Does class definition `cls` make its instances only where its name is
 * called: a class of the module's top level with no decorator (a registry
 * may build it from a configuration), plain bases (plain_bases()), and
 * a module whose code builds none unnamed (self_builder())?
 */
bool mpsfix_class_built_by_name(TSNode cls, const char *src)
{
	TSNode body = ts_node_child_by_field_name(cls, "body", 4);

	builder_walk own = {src, false}, around = {src, true};

	/* the class's code, then the module's outside any class: a function beside
	   the class may build it unnamed (type(obj)(...)) */
	return is(ts_node_parent(cls), "module") && !ts_node_is_null(body) && plain_bases(cls, src) &&
	       mpsfix_walk(body, self_builder, &own) && mpsfix_walk(ts_node_parent(cls), self_builder, &around);
}
