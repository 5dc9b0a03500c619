/*
 * match.c: structural matching of a compiled pattern against a source tree,
 * with backtracking over $$$ metavariables.
 */
#include "match.h"

#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "parse.h"
#include "text.h"

/* Bound on matching steps for one attempt: a pattern with several $$$ in one
 * list could otherwise backtrack exponentially. */
#define MATCH_STEP_LIMIT 200000u

struct mpsfix_matcher {
	ARRAY(TSNode) scratch;   /* children lists of the levels being matched */
	ARRAY(TSNode) bound;     /* nodes of multi bindings */
	ARRAY(int) trail;        /* metavariables bound, in order, for undo */
	mpsfix_binding *bindings;
	size_t nbindings;
	const mpsfix_pattern *pattern;
	const char *src;
	unsigned steps;
	bool gave_up;            /* an attempt hit MATCH_STEP_LIMIT */
	TSTreeCursor cursor;
	bool have_cursor;
	mpsfix_names *names;     /* of the tree being matched, or NULL */
	bool star_seen;
	mpsfix_buf qname;        /* scratch */
	int pin_meta;            /* a metavariable that binds `pin` alone (-1: none) */
	TSNode pin;
};

void mpsfix_matcher_set_names(mpsfix_matcher *m, struct mpsfix_names *names)
{
	m->names = names;
	m->star_seen = false;
}

bool mpsfix_matcher_star_seen(const mpsfix_matcher *m)
{
	return m->star_seen;
}

static bool match_qname(mpsfix_matcher *m, const mpsfix_pnode *pn, TSNode node)
{
	const char *t = ts_node_type(node);
	bool ok;

	if (strcmp(t, "identifier") != 0 && strcmp(t, "attribute") != 0)
		return false;
	/* cheap first: an attribute's last name is spelled as in the pattern
	 * ("std_mean"); a bare name may be an alias */
	if (!strcmp(t, "attribute")) {
		TSNode last = ts_node_child_by_field_name(node, "attribute", 9);
		const char *dot = strrchr(pn->text, '.');
		const char *tail = dot ? dot + 1 : pn->text;
		uint32_t s = ts_node_start_byte(last), e = ts_node_end_byte(last);

		if (ts_node_is_null(last) || strlen(tail) != e - s || memcmp(m->src + s, tail, e - s) != 0)
			return false;
	}
	mpsfix_buf_clear(&m->qname);
	if (!m->names) {
		ok = mpsfix_dotted_name(node, m->src, &m->qname);
	} else {
		switch (mpsfix_names_qualify(m->names, node, &m->qname)) {
		case MPSFIX_NAME_RESOLVED:
			ok = true;
			break;
		case MPSFIX_NAME_STAR:
			m->star_seen = true;
			/* fall through */
		default:
			ok = false;
		}
	}
	return ok && m->qname.len == pn->text_len && !memcmp(m->qname.data, pn->text, pn->text_len);
}

mpsfix_matcher *mpsfix_matcher_new(void)
{
	mpsfix_matcher *m = mpsfix_xcalloc(1, sizeof(mpsfix_matcher));

	m->pin_meta = -1;
	return m;
}

void mpsfix_matcher_free(mpsfix_matcher *m)
{
	if (!m)
		return;
	free(m->scratch.items);
	free(m->bound.items);
	free(m->trail.items);
	free(m->bindings);
	if (m->have_cursor)
		ts_tree_cursor_delete(&m->cursor);
	mpsfix_buf_release(&m->qname);
	free(m);
}

void mpsfix_match_release(mpsfix_match *m)
{
	if (!m)
		return;
	free(m->bindings);
	free(m->nodes);
	m->bindings = NULL;
	m->nodes = NULL;
	m->nnodes = 0;
}

const mpsfix_binding *mpsfix_match_get(const mpsfix_match *m, const char *name)
{
	int i = mpsfix_pattern_metavar_index(m->pattern, name);

	if (i >= 0)
		return m->bindings[i].bound ? &m->bindings[i] : NULL;
	for (size_t k = 0; k < m->nparams; k++)
		if (!strcmp(m->param_names[k], name))
			return &m->params[k];
	return NULL;
}

const mpsfix_binding *mpsfix_match_var(const mpsfix_match *m, const char *name)
{
	if (!strcmp(name, "MATCH") && mpsfix_pattern_metavar_index(m->pattern, name) < 0)
		return m->whole.bound ? &m->whole : NULL;
	return mpsfix_match_get(m, name);
}

/* Push the children of `node` worth comparing (no extras; named only if asked)
 * onto the scratch stack; returns how many. */
static uint32_t push_children(mpsfix_matcher *m, TSNode node, bool named_only)
{
	uint32_t n = 0;

	if (!m->have_cursor) {
		m->cursor = ts_tree_cursor_new(node);
		m->have_cursor = true;
	} else {
		ts_tree_cursor_reset(&m->cursor, node);
	}
	if (!ts_tree_cursor_goto_first_child(&m->cursor))
		return 0;
	do {
		TSNode child = ts_tree_cursor_current_node(&m->cursor);

		if (ts_node_is_extra(child) || (named_only && !ts_node_is_named(child)))
			continue;
		ARRAY_PUSH(&m->scratch, child);
		n++;
	} while (ts_tree_cursor_goto_next_sibling(&m->cursor));
	return n;
}

static bool same_text(TSNode a, TSNode b, const char *src)
{
	uint32_t as = ts_node_start_byte(a), ae = ts_node_end_byte(a);
	uint32_t bs = ts_node_start_byte(b), be = ts_node_end_byte(b);

	return ae - as == be - bs && memcmp(src + as, src + bs, ae - as) == 0;
}

typedef struct {
	TSNode a, b;
} node_pair;

bool mpsfix_nodes_equal(TSNode a, TSNode b, const char *src)
{
	ARRAY(node_pair) todo = {0};
	ARRAY(TSNode) ca = {0}, cb = {0};
	bool equal = true;

	ARRAY_PUSH(&todo, ((node_pair){a, b}));
	while (equal && todo.len) {
		node_pair p = todo.items[--todo.len];
		uint32_t na = ts_node_child_count(p.a), nb = ts_node_child_count(p.b);

		if (ts_node_symbol(p.a) != ts_node_symbol(p.b)) {
			equal = false;
			break;
		}
		if (na == 0 || nb == 0) {
			equal = na == nb && same_text(p.a, p.b, src);
			continue;
		}
		ca.len = cb.len = 0;
		for (uint32_t i = 0; i < na; i++) {
			TSNode c = ts_node_child(p.a, i);

			if (!ts_node_is_extra(c))
				ARRAY_PUSH(&ca, c);
		}
		for (uint32_t i = 0; i < nb; i++) {
			TSNode c = ts_node_child(p.b, i);

			if (!ts_node_is_extra(c))
				ARRAY_PUSH(&cb, c);
		}
		if (ca.len != cb.len) {
			equal = false;
			break;
		}
		for (size_t i = 0; i < ca.len; i++)
			ARRAY_PUSH(&todo, ((node_pair){ca.items[i], cb.items[i]}));
	}
	free(todo.items);
	free(ca.items);
	free(cb.items);
	return equal;
}

static void undo(mpsfix_matcher *m, size_t trail_mark, size_t bound_mark)
{
	while (m->trail.len > trail_mark)
		m->bindings[m->trail.items[--m->trail.len]].bound = false;
	m->bound.len = bound_mark;
}

static bool match_pnode(mpsfix_matcher *m, const mpsfix_pnode *pn, TSNode node);

static bool bind_single(mpsfix_matcher *m, int meta, TSNode node)
{
	mpsfix_binding *b;
	const mpsfix_constraint *c;

	if (meta < 0)
		return true;
	b = &m->bindings[meta];
	if (b->bound) {
		if (b->multi)
			return b->count == 1 &&
			       mpsfix_nodes_equal(m->bound.items[b->first], node, m->src);
		return mpsfix_nodes_equal(b->node, node, m->src);
	}
	if (meta == m->pin_meta && !ts_node_eq(mpsfix_unparenthesized(node), m->pin))
		return false; /* equal code elsewhere is not the node */
	c = m->pattern->metavars[meta].constraint;
	if (c && !mpsfix_constraint_accepts(c, node, m->src))
		return false;
	b->bound = true;
	b->multi = false;
	b->node = node;
	ARRAY_PUSH(&m->trail, meta);
	return true;
}

/* Bind $$$meta to scratch[base .. base+count). */
static bool bind_multi(mpsfix_matcher *m, int meta, size_t base, uint32_t count)
{
	mpsfix_binding *b;

	if (meta < 0)
		return true;
	b = &m->bindings[meta];
	if (b->bound) {
		if (b->count != count)
			return false;
		for (uint32_t i = 0; i < count; i++)
			if (!mpsfix_nodes_equal(m->bound.items[b->first + i],
						m->scratch.items[base + i], m->src))
				return false;
		return true;
	}
	b->bound = true;
	b->multi = true;
	b->first = (uint32_t)m->bound.len;
	b->count = count;
	for (uint32_t i = 0; i < count; i++)
		ARRAY_PUSH(&m->bound, m->scratch.items[base + i]);
	ARRAY_PUSH(&m->trail, meta);
	return true;
}

/*
 * Match pattern items `items[pi..np)` (skipping those marked in `skip`)
 * against source nodes scratch[base+si .. base+ns) (skipping those marked in
 * `used`).  The source list lives on the scratch stack at `base`, addressed
 * by index because the stack may move as deeper levels push.
 */
/*
 * In an argument list whose keyword arguments were taken out by name, the
 * other pattern items keep their side of a keyword that has items on both
 * sides: in `f($$$A, x=$X, $$$B)` $$$A takes what stands before `x=` in the
 * call and $$$B what follows, while in `f($$$A, x=$X)` `x=` may stand anywhere.
 */
typedef struct {
	uint32_t pattern_index; /* where the keyword stands in the pattern */
	uint32_t position;      /* where it stands in the call */
} kw_anchor;

typedef struct {
	const uint32_t *pidx;     /* pattern index of each remaining item */
	const uint32_t *orig;     /* call position of each remaining argument */
	const kw_anchor *anchors;
	uint32_t nanchors;
	uint32_t *starts;         /* first argument each item took (+ the end) */
} seq_order;

static bool order_holds(const seq_order *o, uint32_t np)
{
	for (uint32_t r = 0; r < np; r++) {
		uint32_t a = o->starts[r], b = o->starts[r + 1];

		if (a == b)
			continue;
		for (uint32_t k = 0; k < o->nanchors; k++) {
			const kw_anchor *kw = &o->anchors[k];

			if (o->pidx[r] < kw->pattern_index && o->orig[b - 1] > kw->position)
				return false;
			if (o->pidx[r] > kw->pattern_index && o->orig[a] < kw->position)
				return false;
		}
	}
	return true;
}

static bool match_seq(mpsfix_matcher *m, mpsfix_pnode *const *items, uint32_t np,
		      uint32_t pi, size_t base, uint32_t ns, uint32_t si, const seq_order *order)
{
	const mpsfix_pnode *pn;

	if (++m->steps > MATCH_STEP_LIMIT) {
		m->gave_up = true;
		return false;
	}
	if (order)
		order->starts[pi] = si;
	if (pi == np)
		return si == ns && (!order || order_holds(order, np));
	pn = items[pi];
	if (pn->kind == MPSFIX_PN_MULTI) {
		/* a $$$ that ends the list can only take all that is left */
		for (uint32_t k = pi + 1 == np ? ns - si : 0; si + k <= ns; k++) {
			size_t tmark = m->trail.len, bmark = m->bound.len;

			if (bind_multi(m, pn->meta, base + si, k) &&
			    match_seq(m, items, np, pi + 1, base, ns, si + k, order))
				return true;
			undo(m, tmark, bmark);
		}
		return false;
	}
	if (si == ns)
		return false;
	{
		size_t tmark = m->trail.len, bmark = m->bound.len;

		if (match_pnode(m, pn, m->scratch.items[base + si]) &&
		    match_seq(m, items, np, pi + 1, base, ns, si + 1, order))
			return true;
		undo(m, tmark, bmark);
	}
	return false;
}

static bool match_args(mpsfix_matcher *m, const mpsfix_pnode *pn, TSNode node)
{
	size_t base = m->scratch.len;
	uint32_t ns = push_children(m, node, true);
	uint32_t np = pn->nchildren, nrest = 0, nanchors = 0;
	mpsfix_pnode **rest = mpsfix_xmalloc((np + 1) * sizeof(*rest));
	uint32_t *pidx = mpsfix_xmalloc((np + 1) * sizeof(uint32_t));
	uint32_t *starts = mpsfix_xmalloc((np + 2) * sizeof(uint32_t));
	uint32_t *orig = mpsfix_xmalloc((ns + 1) * sizeof(uint32_t));
	kw_anchor *anchors = mpsfix_xmalloc((np + 1) * sizeof(*anchors));
	bool ok = true;
	size_t tmark = m->trail.len, bmark = m->bound.len;

	for (uint32_t j = 0; j < ns; j++)
		orig[j] = j;
	/* keyword arguments named in the pattern: found by name, in any order */
	for (uint32_t i = 0; i < np && ok; i++) {
		const mpsfix_pnode *kw = pn->children[i];
		bool found = false;

		if (!kw->kwname) {
			rest[nrest] = pn->children[i];
			pidx[nrest++] = i;
			continue;
		}
		for (uint32_t j = 0; j < ns; j++) {
			TSNode s = m->scratch.items[base + j];

			if (!strcmp(ts_node_type(s), "keyword_argument") &&
			    mpsfix_node_text_is(ts_node_child_by_field_name(s, "name", 4), m->src, kw->kwname)) {
				found = match_pnode(m, kw, s);
				anchors[nanchors++] = (kw_anchor){i, orig[j]};
				/* remove it from the list the other items see */
				memmove(&m->scratch.items[base + j], &m->scratch.items[base + j + 1],
					(ns - j - 1) * sizeof(TSNode));
				memmove(&orig[j], &orig[j + 1], (ns - j - 1) * sizeof(uint32_t));
				ns--;
				break;
			}
		}
		ok = found;
	}
	if (ok) {
		seq_order order = {pidx, orig, anchors, 0, starts};

		/* a keyword splits the other items only when some stand on each side
		 * of it in the pattern; otherwise it is free to stand anywhere */
		for (uint32_t k = 0; k < nanchors; k++)
			if (nrest && pidx[0] < anchors[k].pattern_index &&
			    pidx[nrest - 1] > anchors[k].pattern_index)
				anchors[order.nanchors++] = anchors[k];
		nanchors = order.nanchors;

		/* the scratch entries past base+ns are stale after the removals */
		m->scratch.len = base + ns;
		ok = match_seq(m, rest, nrest, 0, base, ns, 0, nanchors ? &order : NULL);
	}
	if (!ok)
		undo(m, tmark, bmark);
	free(rest);
	free(pidx);
	free(starts);
	free(orig);
	free(anchors);
	m->scratch.len = base;
	return ok;
}

static bool node_is(TSNode n, const char *type);

/* Does pattern node `pn` (a def) write a return annotation (`-> T`)? */
static bool has_arrow(const mpsfix_pnode *pn)
{
	for (uint32_t i = 0; i < pn->nchildren; i++)
		if (pn->children[i]->kind == MPSFIX_PN_LEAF && pn->children[i]->text_len == 2 &&
		    !memcmp(pn->children[i]->text, "->", 2))
			return true;
	return false;
}

/* A def pattern without `-> T` matches a def with one: drop the arrow and the
 * annotation from the `ns` children of `node` pushed at `base`. */
static uint32_t drop_return_type(mpsfix_matcher *m, TSNode node, size_t base, uint32_t ns)
{
	TSNode rt = ts_node_child_by_field_name(node, "return_type", 11);
	uint32_t kept = 0;

	if (ts_node_is_null(rt))
		return ns;
	for (uint32_t i = 0; i < ns; i++) {
		TSNode c = m->scratch.items[base + i];

		if (ts_node_eq(c, rt) || !strcmp(ts_node_type(c), "->"))
			continue;
		m->scratch.items[base + kept++] = c;
	}
	m->scratch.len = base + kept;
	return kept;
}

static bool match_pnode(mpsfix_matcher *m, const mpsfix_pnode *pn, TSNode node)
{
	switch (pn->kind) {
	case MPSFIX_PN_META:
		return bind_single(m, pn->meta, node);
	case MPSFIX_PN_MULTI: {
		/* $$$X outside a list stands for exactly one node */
		size_t base = m->scratch.len;
		bool ok;

		ARRAY_PUSH(&m->scratch, node);
		ok = bind_multi(m, pn->meta, base, 1);
		m->scratch.len = base;
		return ok;
	}
	case MPSFIX_PN_LEAF: {
		uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);

		return ts_node_symbol(node) == pn->symbol && ts_node_child_count(node) == 0 &&
		       e - s == pn->text_len && memcmp(m->src + s, pn->text, e - s) == 0;
	}
	case MPSFIX_PN_STRING: {
		mpsfix_literal l;
		bool ok;

		if (ts_node_symbol(node) != pn->symbol || !mpsfix_literal_from_node(&l, node, m->src))
			return false;
		ok = l.type == MPSFIX_LIT_STRING && l.slen == pn->text_len &&
		     memcmp(l.s, pn->text, l.slen) == 0 &&
		     mpsfix_text_spelled(pn->text, pn->text_len, m->src + ts_node_start_byte(node),
					      ts_node_end_byte(node) - ts_node_start_byte(node));
		mpsfix_literal_release(&l);
		return ok;
	}
	case MPSFIX_PN_ARGS:
		if (ts_node_symbol(node) != pn->symbol)
			return false;
		return match_args(m, pn, node);
	case MPSFIX_PN_QNAME:
		return match_qname(m, pn, node);
	case MPSFIX_PN_NODE: {
		size_t base;
		uint32_t ns;
		bool ok;

		if (ts_node_symbol(node) != pn->symbol)
			return false;
		base = m->scratch.len;
		ns = push_children(m, node, pn->named_only);
		if (node_is(node, "function_definition") && !has_arrow(pn))
			ns = drop_return_type(m, node, base, ns);
		ok = match_seq(m, pn->children, pn->nchildren, 0, base, ns, 0, NULL);
		m->scratch.len = base;
		return ok;
	}
	}
	return false;
}

bool mpsfix_matcher_gave_up(const mpsfix_matcher *m)
{
	return m->gave_up;
}

static bool node_is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/*
 * Is identifier `id` a name the code reads, as a dotted-name pattern at the
 * root may match it?  Not an attribute (`x.float64`), a keyword (`f(dtype=...)`),
 * a name of an import, a def or class name, a global/nonlocal declaration.
 */
static bool reads_name(TSNode id)
{
	TSNode p = ts_node_parent(id);
	static const char *const not_read[] = {
		"dotted_name", "aliased_import", "import_statement", "import_from_statement",
		"future_import_statement", "relative_import", "global_statement", "nonlocal_statement",
	};

	if (ts_node_is_null(p))
		return true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(not_read); i++)
		if (node_is(p, not_read[i]))
			return false;
	if (node_is(p, "attribute"))
		return !mpsfix_field_is(p, "attribute", id);
	if (node_is(p, "keyword_argument"))
		return !mpsfix_field_is(p, "name", id);
	if (node_is(p, "function_definition") || node_is(p, "class_definition"))
		return !mpsfix_field_is(p, "name", id);
	return true;
}

static int match_node(mpsfix_match *out, mpsfix_matcher *m, const mpsfix_pattern *p, TSNode node,
		      const char *src)
{
	size_t nb = p->nmetavars;

	/* a dotted name also matches a bare name its imports make equal to it,
	 * where the code reads that name */
	if (ts_node_symbol(node) != p->root->symbol &&
	    (p->root->kind != MPSFIX_PN_QNAME || !node_is(node, "identifier") || !reads_name(node)))
		return MPSFIX_ENOMATCH;
	if (m->nbindings < nb) {
		m->bindings = mpsfix_xrealloc(m->bindings, nb * sizeof(*m->bindings));
		m->nbindings = nb;
	}
	if (nb)
		memset(m->bindings, 0, nb * sizeof(*m->bindings));
	m->scratch.len = m->bound.len = m->trail.len = 0;
	m->pattern = p;
	m->src = src;
	m->steps = 0;
	m->gave_up = false;
	if (!match_pnode(m, p->root, node))
		return MPSFIX_ENOMATCH;
	*out = (mpsfix_match)MPSFIX_MATCH_INIT;
	out->pattern = p;
	out->node = node;
	out->whole = (mpsfix_binding){true, false, node, 0, 0};
	out->bindings = mpsfix_xcalloc(nb ? nb : 1, sizeof(*out->bindings));
	if (nb)
		memcpy(out->bindings, m->bindings, nb * sizeof(*out->bindings));
	out->nnodes = m->bound.len;
	out->nodes = mpsfix_xmalloc((m->bound.len ? m->bound.len : 1) * sizeof(TSNode));
	if (m->bound.len)
		memcpy(out->nodes, m->bound.items, m->bound.len * sizeof(TSNode));
	return 0;
}

int mpsfix_match_node(mpsfix_match *out, mpsfix_matcher *m,
		      const mpsfix_pattern *p, TSNode node, const char *src)
{
	m->pin_meta = -1;
	return match_node(out, m, p, node, src);
}

int mpsfix_match_node_pinned(mpsfix_match *out, mpsfix_matcher *m, const mpsfix_pattern *p, TSNode node,
			     const char *src, TSNode match)
{
	int error;

	m->pin_meta = mpsfix_pattern_metavar_index(p, "MATCH");
	m->pin = match;
	error = match_node(out, m, p, node, src);
	m->pin_meta = -1;
	return error;
}
