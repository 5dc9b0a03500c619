/*
 * selfattr.c: what an instance attribute can hold (see selfattr.h).  One
 * walk of the file notes every place that can set an attribute, with the
 * class whose `self` it sets (or none: any object); a question about one
 * attribute of one class then reads the places noted for that name.
 */
#include "selfattr.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bindings.h"
#include "classbody.h"
#include "literal.h"
#include "parse.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Does function (or lambda) `fn` take a parameter named like `id`; is it the first? */
static bool binds(TSNode fn, TSNode id, const char *src, bool *first)
{
	TSNode params = ts_node_child_by_field_name(fn, "parameters", 10), p;
	mpsfix_kids k;
	bool found = false, at_first = true;

	mpsfix_kids_start(&k, params);
	while (!found && mpsfix_kids_next(&k, &p)) {
		TSNode name = mpsfix_param_name(p);

		if (!ts_node_is_null(name) && mpsfix_node_same_text(name, id, src)) {
			found = true;
			*first = at_first && is(p, "identifier");
		}
		at_first = false;
	}
	mpsfix_kids_end(&k);
	return found;
}

/* One decorator: its expression, what it calls (the expression if no call), that callee's full name. */
typedef struct {
	TSNode expr, callee;
	const char *name; /* NULL where the file's imports do not name it */
} decorator;

typedef bool (*decorator_test)(const decorator *dec, const char *src);

/* Does every decorator of decorated definition `d` pass `test`? */
static bool every_decorator(TSNode d, const char *src, mpsfix_names *names, decorator_test test)
{
	mpsfix_buf name = MPSFIX_BUF_INIT;
	mpsfix_kids k;
	TSNode c;
	decorator dec;
	bool every = true;

	mpsfix_kids_start(&k, d);
	while (every && mpsfix_kids_next(&k, &c)) {
		if (!is(c, "decorator"))
			continue;
		dec.expr = dec.callee = ts_node_named_child(c, 0);
		if (is(dec.expr, "call"))
			dec.callee = ts_node_child_by_field_name(dec.expr, "function", 8);
		dec.name = NULL;
		if (names && mpsfix_names_qualify(names, dec.callee, &name) == MPSFIX_NAME_RESOLVED)
			dec.name = name.data;
		every = test(&dec, src);
	}
	mpsfix_kids_end(&k);
	mpsfix_buf_release(&name);
	return every;
}

/*
 * Does a decorator keep a method that takes the instance first: none but
 * torch's (`@torch.no_grad()`), `property`, `classmethod`,
 * `abc.abstractmethod`?  Not `staticmethod`, nor one of the project's, which
 * may make anything of it.
 */
static bool keeps_method(const decorator *dec, const char *src)
{
	if (is(dec->callee, "identifier") &&
	    (mpsfix_node_text_is(dec->callee, src, "property") || mpsfix_node_text_is(dec->callee, src, "classmethod")))
		return true;
	return dec->name && (!strncmp(dec->name, "torch.", 6) || !strcmp(dec->name, "abc.abstractmethod"));
}

enum { STORE, SET, ANY }; /* `E.X = v`; another way to set E.X; setattr(E, k, v), E.__dict__ */

#define FOREIGN UINT32_MAX /* an owner: an object that may be an instance of any class */

struct event {
	uint64_t hash;   /* of the attribute's name */
	TSNode name, value;
	uint32_t owner;  /* the first byte of the class whose `self` it sets, or FOREIGN */
	int kind;
};

/* A base of a class of the file, by its last name (`A` of `mod.A`). */
struct base {
	uint64_t hash;
	TSNode name;
	uint32_t cls; /* the deriving class's first byte */
};

struct method {
	uint32_t start; /* the function definition's first byte */
	bool kept;      /* binds its first parameter once only */
};

struct mpsfix_selfattr_index {
	const char *src;
	mpsfix_names *names;
	ARRAY(uint64_t) class_names; /* the hashes of the names of the file's classes, sorted */
	ARRAY(uint64_t) instance_methods; /* method_key()s of the methods that take the instance, sorted */
	ARRAY(struct base) escapes;  /* a class's name used as a value (`Base = Trainer`,
					`register(Trainer)`), sorted by hash */
	ARRAY(struct event) events; /* sorted by hash once read */
	ARRAY(struct event) anys;
	ARRAY(struct base) bases;   /* sorted by hash once read */
	ARRAY(struct method) methods;
	bool methods_sorted;
	ARRAY(uint64_t) method_names; /* of every method of every class, sorted */
	ARRAY(struct base) classes;   /* each class: its name, by its first byte (`cls`), in that order */
	bool any_derived;             /* a class derives from an expression (`type(t)`, `REG[0]`), or a
					 method is taken from an instance (`t.step.__func__`): from any class */
	bool shadowed;                /* the file binds `property`, `classmethod` or `staticmethod` */
	bool dynamic;                 /* exec(), eval(), builtins, frames: any attribute may be set */
	ARRAY(struct base) loose;     /* classes whose every method may be given another object as self
					 (`Base = Helper`, `step = staticmethod(step)`), sorted by hash */
	ARRAY(uint64_t) borrowed;     /* method_key()s of methods read from their class (`Helper.use(t)`), sorted */
};

static int by_method_start(const void *a, const void *b)
{
	const struct method *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Does method `fn` bind its first parameter `obj` once only (no `self = other`)? */
static bool self_kept(mpsfix_selfattr_index *ix, TSNode fn, TSNode obj)
{
	uint32_t start = ts_node_start_byte(fn);
	mpsfix_binding b;
	struct method m;

	size_t i = ix->methods.len;

	if (ix->methods_sorted) {
		i = mpsfix_lower_bound(ix->methods.items, ix->methods.len, sizeof(m), offsetof(struct method, start),
				       start);
		if (i < ix->methods.len && ix->methods.items[i].start == start)
			return ix->methods.items[i].kept;
	} else {
		for (size_t j = ix->methods.len; j-- > 0;) /* the last one first: the walk's */
			if (ix->methods.items[j].start == start)
				return ix->methods.items[j].kept;
	}
	mpsfix_bindings_count(fn, ix->src, &obj, 1, &b);
	m.start = start;
	m.kept = b.count == 1 && !b.dynamic;
	/* kept in order once sorted: a method asked about again is not walked again */
	mpsfix_grow((void **)&ix->methods.items, &ix->methods.cap, ix->methods.len + 1, sizeof(m));
	memmove(ix->methods.items + i + 1, ix->methods.items + i, (ix->methods.len - i) * sizeof(m));
	ix->methods.items[i] = m;
	ix->methods.len++;
	return m.kept;
}

/*
 * Is identifier `obj`, at the node whose ancestors are `up`, the first
 * parameter of a method (the innermost function that binds it), which
 * nothing in the method binds again?  Into `*cls` the method's class.
 */
static bool method_self(mpsfix_selfattr_index *ix, const mpsfix_ancestors *up, TSNode obj, TSNode *cls)
{
	for (size_t k = 1;; k++) {
		TSNode fn = mpsfix_up(up, k), above, block;
		bool first = false;

		if (ts_node_is_null(fn) || is(fn, "class_definition") || is(fn, "module"))
			return false;
		if (!is(fn, "function_definition") && !is(fn, "lambda"))
			continue;
		if (!binds(fn, obj, ix->src, &first))
			continue;
		if (!first || !is(fn, "function_definition") ||
		    (!mpsfix_node_text_is(obj, ix->src, "self") && !mpsfix_node_text_is(obj, ix->src, "cls")))
			return false; /* a first parameter called otherwise: maybe no method's */
		block = above = mpsfix_up(up, k + 1);
		if (is(above, "decorated_definition")) {
			if (ix->shadowed || !every_decorator(above, ix->src, ix->names, keeps_method))
				return false;
			block = mpsfix_up(up, k + 2);
			above = mpsfix_up(up, k + 3);
		} else {
			above = mpsfix_up(up, k + 2);
		}
		if (!is(block, "block") || !is(above, "class_definition") || !self_kept(ix, fn, obj))
			return false;
		*cls = above;
		return true;
	}
}

/*
 * Whose attributes does object `obj` (at the node whose ancestors are `up`)
 * set?  The class of a method's self owns those of `self`, of
 * `self.__class__` and of `(self)`, which is how the grammar reads the
 * object of `type(self).X = v`: the class's own X, which its instances
 * read where they have none.
 */
static uint32_t owner_of(mpsfix_selfattr_index *ix, TSNode obj, const mpsfix_ancestors *up)
{
	TSNode cls;

	if (is(obj, "attribute") &&
	    mpsfix_node_text_is(ts_node_child_by_field_name(obj, "attribute", 9), ix->src, "__class__"))
		obj = ts_node_child_by_field_name(obj, "object", 6);
	else if (is(obj, "parenthesized_expression") && ts_node_named_child_count(obj) == 1)
		obj = ts_node_named_child(obj, 0);
	return is(obj, "identifier") && method_self(ix, up, obj, &cls) ? ts_node_start_byte(cls) : FOREIGN;
}

/* An object given another class (`self.__class__ = Other`) has attributes that no class's methods set. */
static const char CLASS_ATTRIBUTE[] = "__class__";

static void note(mpsfix_selfattr_index *ix, TSNode attr, TSNode value, int kind, const mpsfix_ancestors *up)
{
	TSNode name = ts_node_child_by_field_name(attr, "attribute", 9);
	struct event e = {mpsfix_node_hash(name, ix->src), name, value,
			  owner_of(ix, ts_node_child_by_field_name(attr, "object", 6), up), kind};

	if (mpsfix_node_text_is(name, ix->src, CLASS_ATTRIBUTE)) {
		e.owner = FOREIGN;
		e.kind = ANY;
		ARRAY_PUSH(&ix->anys, e);
		return;
	}
	ARRAY_PUSH(&ix->events, e);
}

typedef struct {
	mpsfix_selfattr_index *ix;
	const mpsfix_ancestors *up; /* the statement's: the functions around it are the target's */
} target_walk;

static mpsfix_walk_action note_target(TSNode n, void *payload)
{
	target_walk *tw = payload;

	if (is(n, "attribute")) {
		note(tw->ix, n, (TSNode){0}, SET, tw->up);
		return MPSFIX_WALK_SKIP;
	}
	return MPSFIX_WALK_DESCEND;
}

/* Note every `E.X` that target `t` (a pattern, a loop's variables) sets. */
static void note_targets(mpsfix_selfattr_index *ix, TSNode t, const mpsfix_ancestors *up)
{
	target_walk tw = {ix, up};

	if (!ts_node_is_null(t))
		mpsfix_walk(t, note_target, &tw);
}

/*
 * `setattr(obj, "X", v)` sets X; `setattr(obj, name, v)` any attribute.
 * Also `obj.register_buffer("X", t)` (`obj` the object, `args` its
 * arguments, the name at `at`), which nn.Module's __getattr__ finds.
 */
static void note_set(mpsfix_selfattr_index *ix, TSNode obj, TSNode args, uint32_t at, const mpsfix_ancestors *up)
{
	TSNode key;
	uint32_t owner = owner_of(ix, obj, up);
	mpsfix_literal lit;
	const char *s;
	struct event e = {.owner = owner, .kind = ANY, .name = args};

	key = mpsfix_named_count(args) > at ? ts_node_named_child(args, at) : (TSNode){0};
	if (!(s = mpsfix_literal_string(&lit, key, ix->src))) {
		ARRAY_PUSH(&ix->anys, e);
		return;
	}
	if (!strcmp(s, CLASS_ATTRIBUTE)) {
		e.owner = FOREIGN;
		ARRAY_PUSH(&ix->anys, e);
	} else {
		e.kind = SET;
		e.hash = mpsfix_hash_bytes(s, strlen(s));
		e.name = key; /* compared by the hash alone: a literal's text is not its value */
		ARRAY_PUSH(&ix->events, e);
	}
	mpsfix_literal_release(&lit);
}

static void note_setattr(mpsfix_selfattr_index *ix, TSNode n, const mpsfix_ancestors *up)
{
	TSNode args = ts_node_child_by_field_name(n, "arguments", 9);

	note_set(ix, ts_node_named_child(args, 0), args, 1, up);
}

/* Object `owner` may get any attribute set, at node `at`. */
static void note_any(mpsfix_selfattr_index *ix, uint32_t owner, TSNode at)
{
	struct event e = {.owner = owner, .kind = ANY, .name = at};

	ARRAY_PUSH(&ix->anys, e);
}

static bool sorted_has(const uint64_t *items, size_t len, uint64_t h)
{
	size_t i = mpsfix_lower_bound64(items, len, sizeof(uint64_t), 0, h);

	return i < len && items[i] == h;
}

static bool is_class_name(const mpsfix_selfattr_index *ix, uint64_t h)
{
	return sorted_has(ix->class_names.items, ix->class_names.len, h);
}

/* A method `m` of a class named `cls`, by the hashes of both names. */
static uint64_t method_key(uint64_t cls, uint64_t m)
{
	return (cls * UINT64_C(0x9E3779B97F4A7C15)) ^ m;
}

/*
 * An identifier: `setattr` or `vars` handed on (`sa = setattr`,
 * `partialmethod(setattr, ...)`) may set anything; a class's name used as
 * a value (`Base = Trainer`, `register(Trainer)`, `type("T", (Trainer,),
 * {...})`) may be derived from where it is not seen.  A call of it, an
 * attribute of it (`Trainer.x`: setting one is seen as such), an
 * annotation, `isinstance(x, Trainer)`, its own definition and a base of a
 * class of the file are no such use.
 */
static void note_identifier(mpsfix_selfattr_index *ix, TSNode n, const mpsfix_ancestors *up)
{
	TSNode parent = mpsfix_up(up, 1);
	uint64_t h;

	if ((mpsfix_node_text_is(n, ix->src, "setattr") || mpsfix_node_text_is(n, ix->src, "vars")) &&
	    !(is(parent, "call") && mpsfix_field_is(parent, "function", n))) {
		note_any(ix, FOREIGN, n);
		return;
	}
	if (mpsfix_node_text_is(n, ix->src, "builtins") || mpsfix_node_text_is(n, ix->src, "__builtins__")) {
		ix->dynamic = true; /* getattr(builtins, "set" + "attr") */
		return;
	}
	h = mpsfix_node_hash(n, ix->src);
	if (!is_class_name(ix, h))
		return;
	if (is(parent, "named_expression")) { /* (Base := Trainer), in an annotation too */
		struct base x = {h, n, 0};

		ARRAY_PUSH(&ix->escapes, x);
		ARRAY_PUSH(&ix->loose, x);
		return;
	}
	if (is(parent, "attribute") && mpsfix_field_is(parent, "object", n)) {
		/* `Trainer.step` hands on a method that takes the instance: `Trainer.step(other)`,
		 * `step = Trainer.step` in another class may give it any object */
		uint64_t m = mpsfix_node_hash(ts_node_child_by_field_name(parent, "attribute", 9), ix->src);
		struct base x = {h, n, 0};

		if (!sorted_has(ix->instance_methods.items, ix->instance_methods.len, method_key(h, m)))
			return;
		ARRAY_PUSH(&ix->escapes, x);
		ARRAY_PUSH(&ix->borrowed, method_key(h, m));
		return;
	} else if ((is(parent, "call") && mpsfix_field_is(parent, "function", n)) ||
		   (is(parent, "class_definition") && mpsfix_field_is(parent, "name", n))) {
		return;
	}
	if (is(parent, "argument_list")) {
		TSNode grand = mpsfix_up(up, 2), fn = ts_node_child_by_field_name(grand, "function", 8);

		if (is(mpsfix_up(up, 2), "class_definition"))
			return; /* a base: ix->bases has it */
		if (is(fn, "identifier") &&
		    (mpsfix_node_text_is(fn, ix->src, "isinstance") || mpsfix_node_text_is(fn, ix->src, "issubclass")))
			return;
	}
	for (size_t k = 1; k <= up->len + 1; k++) {
		TSNode a = mpsfix_up(up, k);

		if (ts_node_is_null(a) || is(a, "block") || is(a, "module"))
			break;
		if (is(a, "type"))
			return; /* an annotation */
	}
	{
		struct base x = {h, n, 0};

		ARRAY_PUSH(&ix->escapes, x);
		ARRAY_PUSH(&ix->loose, x);
	}
}

/* nn.Module's ways to give an instance an attribute that __getattr__ finds */
static bool registers(TSNode name, const char *src)
{
	return mpsfix_node_text_is(name, src, "register_buffer") || mpsfix_node_text_is(name, src, "register_parameter") ||
	       mpsfix_node_text_is(name, src, "add_module") || mpsfix_node_text_is(name, src, "register_module");
}

/* `type(t).step`, `t.__class__.step`: a method of some class taken from an instance's class */
static bool taken_from_type(const mpsfix_selfattr_index *ix, TSNode obj, TSNode attr)
{
	TSNode fn = ts_node_child_by_field_name(obj, "function", 8);
	uint64_t h;

	if (!(is(obj, "call") && is(fn, "identifier") && mpsfix_node_text_is(fn, ix->src, "type")) &&
	    !(is(obj, "attribute") &&
	      mpsfix_node_text_is(ts_node_child_by_field_name(obj, "attribute", 9), ix->src, "__class__")))
		return false;
	h = mpsfix_node_hash(attr, ix->src);
	return sorted_has(ix->method_names.items, ix->method_names.len, h);
}

static mpsfix_walk_action read_file(TSNode n, const mpsfix_ancestors *up, void *payload)
{
	mpsfix_selfattr_index *ix = payload;
	const char *type = ts_node_type(n);

	if (!strcmp(type, "class_definition")) {
		mpsfix_kids k;
		TSNode b;

		mpsfix_kids_start(&k, ts_node_child_by_field_name(n, "superclasses", 12));
		while (mpsfix_kids_next(&k, &b)) {
			if (is(b, "keyword_argument"))
				continue;
			if (is(b, "subscript")) { /* Trainer[int]; not REGISTRY[0], REGISTRY["x"] */
				TSNode index = ts_node_child_by_field_name(b, "subscript", 9);

				if (is(index, "integer") || is(index, "string") || is(index, "call"))
					ix->any_derived = true;
				b = ts_node_child_by_field_name(b, "value", 5);
			}
			if (is(b, "attribute")) {
				if (mpsfix_node_text_is(ts_node_child_by_field_name(b, "attribute", 9), ix->src, "__class__"))
					ix->any_derived = true;
				b = ts_node_child_by_field_name(b, "attribute", 9);
			}
			if (!is(b, "identifier"))
				ix->any_derived = true; /* class M(type(t)), class M(pick()) */
			if (is(b, "identifier")) {
				struct base x = {mpsfix_node_hash(b, ix->src), b, ts_node_start_byte(n)};

				ARRAY_PUSH(&ix->bases, x);
			}
		}
		mpsfix_kids_end(&k);
	} else if (!strcmp(type, "assignment") && !is(mpsfix_up(up, 1), "assignment")) {
		/* a chain `a = self.X = v` once, from its top: every target gets v */
		TSNode value = n, a, left;

		while (is(value, "assignment"))
			value = ts_node_child_by_field_name(value, "right", 5);
		for (a = n; is(a, "assignment"); a = ts_node_child_by_field_name(a, "right", 5)) {
			left = ts_node_child_by_field_name(a, "left", 4);
			if (!is(left, "attribute"))
				note_targets(ix, left, up);
			else if (!ts_node_is_null(value)) /* `self.X: T` declares, sets nothing */
				note(ix, left, value, STORE, up);
		}
	} else if (!strcmp(type, "type_alias_statement")) {
		/* the grammar reads `type(self).X = v` as an alias of `(self).X`: it sets the class's X */
		TSNode left = ts_node_named_child(ts_node_child_by_field_name(n, "left", 4), 0);

		if (is(left, "attribute"))
			note(ix, left, (TSNode){0}, SET, up);
	} else if (!strcmp(type, "augmented_assignment") || !strcmp(type, "for_statement") ||
		   !strcmp(type, "for_in_clause")) {
		note_targets(ix, ts_node_child_by_field_name(n, "left", 4), up);
	} else if (!strcmp(type, "as_pattern_target")) {
		note_targets(ix, n, up);
	} else if (!strcmp(type, "attribute")) {
		TSNode attr = ts_node_child_by_field_name(n, "attribute", 9);

		TSNode obj = ts_node_child_by_field_name(n, "object", 6);

		if (mpsfix_node_text_is(attr, ix->src, "__dict__") || mpsfix_node_text_is(attr, ix->src, "_buffers") ||
		    mpsfix_node_text_is(attr, ix->src, "_parameters") || mpsfix_node_text_is(attr, ix->src, "_modules"))
			note_any(ix, owner_of(ix, obj, up), n); /* nn.Module's __getattr__ reads the last three */
		else if (mpsfix_node_text_is(attr, ix->src, "__setattr__"))
			note_any(ix, FOREIGN, n);
		else if (mpsfix_node_text_is(attr, ix->src, "_getframe") || mpsfix_node_text_is(attr, ix->src, "f_locals"))
			ix->dynamic = true;
		else if (mpsfix_node_text_is(attr, ix->src, "__func__") || taken_from_type(ix, obj, attr))
			ix->any_derived = true; /* t.step.__func__(other), type(t).step(other) */
	} else if (!strcmp(type, "call")) {
		TSNode fn = ts_node_child_by_field_name(n, "function", 8);

		if (is(fn, "identifier") && mpsfix_node_text_is(fn, ix->src, "setattr")) {
			note_setattr(ix, n, up);
		} else if (is(fn, "identifier") &&
			   (mpsfix_node_text_is(fn, ix->src, "exec") || mpsfix_node_text_is(fn, ix->src, "eval"))) {
			ix->dynamic = true;
		} else if (is(fn, "attribute") && registers(ts_node_child_by_field_name(fn, "attribute", 9), ix->src)) {
			note_set(ix, ts_node_child_by_field_name(fn, "object", 6), ts_node_child_by_field_name(n, "arguments", 9),
				 0, up);
		} else if (is(fn, "identifier") && mpsfix_node_text_is(fn, ix->src, "vars")) {
			TSNode args = ts_node_child_by_field_name(n, "arguments", 9);

			note_any(ix, mpsfix_named_count(args) ? owner_of(ix, ts_node_named_child(args, 0), up) : FOREIGN, n);
		}
	} else if (!strcmp(type, "identifier")) {
		note_identifier(ix, n, up);
	} else if (!strcmp(type, "string_content")) {
		if (mpsfix_node_text_is(n, ix->src, "__dict__"))
			note_any(ix, FOREIGN, n); /* getattr(self, "__dict__") */
	}
	return MPSFIX_WALK_DESCEND;
}

static int by_event_hash(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static int by_base_hash(const void *a, const void *b)
{
	const struct base *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* Is a decorator other than `staticmethod` and `classmethod`, which make a method that takes no instance? */
static bool not_instanceless(const decorator *dec, const char *src)
{
	return !is(dec->expr, "identifier") ||
	       (!mpsfix_node_text_is(dec->expr, src, "staticmethod") && !mpsfix_node_text_is(dec->expr, src, "classmethod"));
}

/* Is decorated definition `d` a static method or a class method, which take no instance? */
static bool takes_no_instance(const mpsfix_selfattr_index *ix, TSNode d)
{
	/* Unless `staticmethod` is the file's own. */
	return !ix->shadowed && !every_decorator(d, ix->src, NULL, not_instanceless);
}

typedef struct {
	mpsfix_selfattr_index *ix;
	uint64_t cls;
	size_t first; /* the class's first entry in ix->method_names */
} class_walk;

/* The methods of a class body (also those under an if or a try there) that may take the instance. */
static mpsfix_walk_action read_method(TSNode n, void *payload)
{
	class_walk *cw = payload;
	TSNode def = n;
	uint64_t m;

	if (is(n, "class_definition") || is(n, "lambda"))
		return MPSFIX_WALK_SKIP;
	if (is(n, "decorated_definition"))
		def = ts_node_child_by_field_name(n, "definition", 10);
	if (!is(def, "function_definition"))
		return MPSFIX_WALK_DESCEND;
	m = mpsfix_node_hash(ts_node_child_by_field_name(def, "name", 4), cw->ix->src);
	ARRAY_PUSH(&cw->ix->method_names, m);
	if (!is(n, "decorated_definition") || !takes_no_instance(cw->ix, n))
		ARRAY_PUSH(&cw->ix->instance_methods, method_key(cw->cls, m));
	return MPSFIX_WALK_SKIP;
}

/* Does the class body bind a name of one of its methods otherwise (`step = staticmethod(step)`)? */
static bool rebinds_method(const class_walk *cw, TSNode body)
{
	const mpsfix_selfattr_index *ix = cw->ix;
	mpsfix_kids k;
	TSNode st, t, left;
	bool found = false;

	mpsfix_kids_start(&k, body);
	while (!found && mpsfix_kids_next(&k, &st)) {
		if (!is(st, "expression_statement"))
			continue;
		for (t = ts_node_named_child(st, 0); !found && is(t, "assignment");
		     t = ts_node_child_by_field_name(t, "right", 5)) {
			left = ts_node_child_by_field_name(t, "left", 4);
			if (!is(left, "identifier"))
				continue;
			for (size_t i = cw->first; !found && i < ix->method_names.len; i++)
				found = ix->method_names.items[i] == mpsfix_node_hash(left, ix->src);
		}
	}
	mpsfix_kids_end(&k);
	return found;
}

/*
 * Does a class decorator keep the class's name: the standard library's
 * (dataclasses.dataclass, functools.total_ordering, typing.final) only?
 * Another may give the name a subclass (`@on_mps`, a registry's wrapper).
 */
static bool keeps_class(const decorator *dec, const char *src)
{
	static const char *const kept[] = {"dataclasses.dataclass", "functools.total_ordering", "typing.final",
					   "typing_extensions.final"};

	(void)src;
	for (size_t i = 0; dec->name && i < MPSFIX_ARRAY_SIZE(kept); i++)
		if (!strcmp(dec->name, kept[i]))
			return true;
	return false;
}

static mpsfix_walk_action read_class_name(TSNode n, void *payload)
{
	mpsfix_selfattr_index *ix = payload;

	if (is(n, "class_definition")) {
		TSNode name = ts_node_child_by_field_name(n, "name", 4), body = ts_node_child_by_field_name(n, "body", 4);
		class_walk cw = {ix, mpsfix_node_hash(name, ix->src), ix->method_names.len};
		struct base self = {cw.cls, name, ts_node_start_byte(n)};
		mpsfix_kids k;
		TSNode c;

		ARRAY_PUSH(&ix->class_names, cw.cls);
		ARRAY_PUSH(&ix->classes, self);
		mpsfix_kids_start(&k, body);
		while (mpsfix_kids_next(&k, &c))
			mpsfix_walk(c, read_method, &cw);
		mpsfix_kids_end(&k);
		if (rebinds_method(&cw, body)) {
			ARRAY_PUSH(&ix->escapes, self);
			ARRAY_PUSH(&ix->loose, self);
		} else if (is(ts_node_parent(n), "decorated_definition") &&
			   !every_decorator(ts_node_parent(n), ix->src, ix->names, keeps_class)) {
			ARRAY_PUSH(&ix->escapes, self); /* the name may stand for a subclass */
		}
	}
	return MPSFIX_WALK_DESCEND;
}

/* Does the file bind `property`, `classmethod` or `staticmethod`, which decorators are read as? */
static mpsfix_walk_action read_shadow(TSNode n, void *payload)
{
	static const char *const names[] = {"property", "classmethod", "staticmethod"};
	mpsfix_selfattr_index *ix = payload;
	TSNode name = n;

	if (is(n, "function_definition") || is(n, "class_definition"))
		name = ts_node_child_by_field_name(n, "name", 4);
	else if (is(n, "assignment"))
		name = ts_node_child_by_field_name(n, "left", 4);
	else if (is(n, "aliased_import"))
		name = ts_node_child_by_field_name(n, "alias", 5);
	else if (is(n, "dotted_name") && is(ts_node_parent(n), "import_from_statement"))
		name = ts_node_named_child(n, 0);
	else
		return MPSFIX_WALK_DESCEND;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(names); i++)
		if (is(name, "identifier") && mpsfix_node_text_is(name, ix->src, names[i])) {
			ix->shadowed = true;
			return MPSFIX_WALK_STOP;
		}
	return MPSFIX_WALK_DESCEND;
}

static int by_hash(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

mpsfix_selfattr_index *mpsfix_selfattr_index_new(TSNode root, const char *src, mpsfix_names *names)
{
	mpsfix_selfattr_index *ix = mpsfix_xcalloc(1, sizeof(*ix));

	ix->src = src;
	ix->names = names;
	mpsfix_walk(root, read_shadow, ix);
	mpsfix_walk(root, read_class_name, ix);
	if (ix->method_names.len)
		qsort(ix->method_names.items, ix->method_names.len, sizeof(uint64_t), by_hash);
	if (ix->class_names.len)
		qsort(ix->class_names.items, ix->class_names.len, sizeof(uint64_t), by_hash);
	if (ix->instance_methods.len)
		qsort(ix->instance_methods.items, ix->instance_methods.len, sizeof(uint64_t), by_hash);
	mpsfix_walk_parents(root, read_file, ix);
	if (ix->escapes.len)
		qsort(ix->escapes.items, ix->escapes.len, sizeof(*ix->escapes.items), by_base_hash);
	if (ix->loose.len)
		qsort(ix->loose.items, ix->loose.len, sizeof(*ix->loose.items), by_base_hash);
	if (ix->borrowed.len)
		qsort(ix->borrowed.items, ix->borrowed.len, sizeof(uint64_t), by_hash);
	if (ix->events.len)
		qsort(ix->events.items, ix->events.len, sizeof(*ix->events.items), by_event_hash);
	if (ix->bases.len)
		qsort(ix->bases.items, ix->bases.len, sizeof(*ix->bases.items), by_base_hash);
	if (ix->methods.len)
		qsort(ix->methods.items, ix->methods.len, sizeof(*ix->methods.items), by_method_start);
	ix->methods_sorted = true;
	return ix;
}

void mpsfix_selfattr_index_free(mpsfix_selfattr_index *ix)
{
	if (!ix)
		return;
	free(ix->events.items);
	free(ix->anys.items);
	free(ix->bases.items);
	free(ix->methods.items);
	free(ix->class_names.items);
	free(ix->instance_methods.items);
	free(ix->method_names.items);
	free(ix->classes.items);
	free(ix->loose.items);
	free(ix->borrowed.items);
	free(ix->escapes.items);
	free(ix);
}

bool mpsfix_selfattr_owner(mpsfix_selfattr_index *ix, TSNode read, TSNode *cls)
{
	TSNode obj = ts_node_child_by_field_name(read, "object", 6);
	mpsfix_ancestors up = {0};
	bool yes;

	if (!is(read, "attribute") || !is(obj, "identifier"))
		return false;
	mpsfix_ancestors_of(read, &up);
	yes = method_self(ix, &up, obj, cls);
	free(up.items);
	return yes;
}

static bool named_in(const struct base *items, size_t len, TSNode name, uint64_t h, const char *src)
{
	for (size_t i = mpsfix_lower_bound64(items, len, sizeof(struct base), offsetof(struct base, hash), h);
	     i < len && items[i].hash == h; i++)
		if (mpsfix_node_same_text(items[i].name, name, src))
			return true;
	return false;
}

/* Does a class of the file name class `cls` among its bases, or is it used as a value? */
static bool derived(const mpsfix_selfattr_index *ix, TSNode cls)
{
	TSNode name = ts_node_child_by_field_name(cls, "name", 4);
	uint64_t h = mpsfix_node_hash(name, ix->src);

	return ix->any_derived || named_in(ix->bases.items, ix->bases.len, name, h, ix->src) ||
	       named_in(ix->escapes.items, ix->escapes.len, name, h, ix->src);
}

/*
 * Is `owner` a class whose methods may be given any object as self
 * (`Helper.use_mps(t)`, a class used as a value): what they set, they may
 * set on an instance of any class.
 */
static bool escaped_owner(const mpsfix_selfattr_index *ix, uint32_t owner, TSNode at)
{
	const struct base *c;
	size_t i;
	TSNode fn;

	if (owner == FOREIGN)
		return false;
	i = mpsfix_lower_bound(ix->classes.items, ix->classes.len, sizeof(struct base), offsetof(struct base, cls),
			       owner);
	if (i >= ix->classes.len || ix->classes.items[i].cls != owner)
		return false;
	c = &ix->classes.items[i];
	if (named_in(ix->loose.items, ix->loose.len, c->name, c->hash, ix->src))
		return true;
	/* the method of the class that sets it: is it read from the class? */
	for (fn = at; !ts_node_is_null(fn); fn = ts_node_parent(fn)) {
		TSNode up = ts_node_parent(fn);

		if (is(up, "decorated_definition"))
			up = ts_node_parent(up);
		if (is(fn, "function_definition") || is(fn, "decorated_definition"))
			if (is(up, "block") && ts_node_start_byte(ts_node_parent(up)) == owner) {
				TSNode def = is(fn, "decorated_definition") ? ts_node_child_by_field_name(fn, "definition", 10) : fn;
				uint64_t m = mpsfix_node_hash(ts_node_child_by_field_name(def, "name", 4), ix->src);

				return sorted_has(ix->borrowed.items, ix->borrowed.len, method_key(c->hash, m));
			}
	}
	return true; /* not found in a method of its own: say it may */
}

bool mpsfix_selfattr_foreign_set(mpsfix_selfattr_index *ix, TSNode name)
{
	uint64_t h = mpsfix_node_hash(name, ix->src);
	size_t i;

	for (i = 0; i < ix->anys.len; i++)
		if (ix->anys.items[i].owner == FOREIGN)
			return true;
	for (i = mpsfix_lower_bound64(ix->events.items, ix->events.len, sizeof(struct event),
				      offsetof(struct event, hash), h);
	     i < ix->events.len && ix->events.items[i].hash == h; i++)
		if (ix->events.items[i].owner == FOREIGN)
			return true;
	return false;
}

bool mpsfix_selfattr_values_of(mpsfix_selfattr_index *ix, TSNode cls, TSNode name, mpsfix_selfattr_values *out)
{
	uint32_t at = ts_node_start_byte(cls);
	uint64_t h = mpsfix_node_hash(name, ix->src);
	size_t i;

	out->len = 0;
	if (ix->dynamic || mpsfix_class_foreign_bases(cls, ix->src, ix->names) || mpsfix_class_body_binds(cls, name, ix->src) || derived(ix, cls))
		return false;
	for (i = 0; i < ix->anys.len; i++)
		if (ix->anys.items[i].owner == at || ix->anys.items[i].owner == FOREIGN ||
		    escaped_owner(ix, ix->anys.items[i].owner, ix->anys.items[i].name))
			return false;
	for (i = mpsfix_lower_bound64(ix->events.items, ix->events.len, sizeof(struct event),
				      offsetof(struct event, hash), h);
	     i < ix->events.len && ix->events.items[i].hash == h; i++) {
		const struct event *e = &ix->events.items[i];

		if (e->owner != at && e->owner != FOREIGN && !escaped_owner(ix, e->owner, e->name))
			continue; /* another class's self */
		if (is(e->name, "identifier") && !mpsfix_node_same_text(e->name, name, ix->src))
			continue; /* another name of the same hash */
		if (e->owner != at || e->kind != STORE)
			return false;
		ARRAY_PUSH(out, e->value);
	}
	return out->len > 0;
}
