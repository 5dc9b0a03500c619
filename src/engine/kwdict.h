/*
 * kwdict.h: the keywords a call's `**NAME` passes, where the text writes
 * the dictionary out and nothing changes it:
 *
 *   common_loader_kwargs = dict(mean=mean, device=device)
 *   ...
 *   loader = create_loader(dataset, **common_loader_kwargs)
 *
 * NAME is assigned once in the whole text, by a statement of its own,
 * `NAME = dict(k=v, ...)` (keywords only, where the text binds `dict`
 * nowhere) or `NAME = {"k": v, ...}` (plain string keys only), and every
 * other mention of it is a spread `**NAME`, in a call or a dict display,
 * which reads it and changes nothing: no `NAME["k"] = v`, `NAME.update()`,
 * `del NAME`, alias, second binding, parameter or `global`.  The text calls
 * no exec(), eval(), globals(), locals() or vars() and imports no `*`
 * (mpsfix_bindings_rebound()).  A call that spreads NAME, if it runs at
 * all, then passes those keys and no other.  (Another module that sets
 * `mod.NAME` is not seen.)  The dictionary may also be written in the
 * spread itself: `f(**{"device": d})`, `f(**dict(device=d))`.
 */
#ifndef MPSFIX_KWDICT_H
#define MPSFIX_KWDICT_H

#include <tree_sitter/api.h>

#include "common.h"

/* The names one tree is asked about: each new one costs a walk of it. */
#define MPSFIX_KWDICT_NAMES 16

typedef struct mpsfix_kwdict_cache {
	struct mpsfix_kwdict_slot {
		uint64_t hash;
		TSNode id;    /* a mention, for its text */
		TSNode dict;  /* the dict() call or dictionary; null: not known */
	} slots[MPSFIX_KWDICT_NAMES];
	size_t n;
	const void *tree; /* the tree the slots are of */
	int dict_free;    /* the text binds `dict` nowhere and runs no exec():
			     1, or -1 where it may; 0: not asked yet */
} mpsfix_kwdict_cache;

/**
 * The dictionary that `splat` passes (a dictionary_splat `**NAME` in the
 * text `src`): the `dict(...)` call or the `{...}` display assigned to it
 * or written there, where its keys are known as above; else a null node.
 * `cache` keeps the answers for MPSFIX_KWDICT_NAMES names of one tree; a
 * name past those is not known.
 */
TSNode mpsfix_kwdict_of(mpsfix_kwdict_cache *cache, TSNode splat, const char *src);

/**
 * The key nodes of dictionary `dict` (from mpsfix_kwdict_of()), in order:
 * the name of each keyword argument, the content of each string key.
 * Calls `each` with the key (its text is the key) and its value.
 */
void mpsfix_kwdict_keys(TSNode dict, void (*each)(TSNode key, TSNode value, void *payload), void *payload);

/** The value that dictionary `dict` gives key `key` (`n` bytes), or a null node. */
TSNode mpsfix_kwdict_value(TSNode dict, const char *src, const char *key, size_t n);

#endif
