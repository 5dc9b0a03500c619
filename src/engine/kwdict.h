/*
 * kwdict.h: the keywords a call's `**NAME` passes, where a function writes
 * the dictionary out and nothing changes it:
 *
 *   def main(args):
 *       common_loader_kwargs = dict(mean=mean, device=device)
 *       ...
 *       loader = create_loader(dataset, **common_loader_kwargs)
 *
 * NAME is assigned once in the whole text, in a function's body (a local:
 * no other module can reach it, as `from train import kw; kw.pop("device")`
 * reaches a module's), by a statement of its own: `NAME = dict(k=v, ...)`
 * (keywords only) or `NAME = {"k": v, ...}` (plain string keys only, none
 * twice), 64 keys at most.  Every other mention of NAME is a spread
 * `**NAME` (in a call or a dict display) in that function's body (not its
 * parameters' defaults, which run outside it), which reads it and changes
 * nothing: no `NAME["k"] = v`, `NAME.update()`, `del NAME`, alias, second
 * binding, parameter or `global`.  NAME has no two underscores in a row
 * (`__kw` in class C's body is `_C__kw`).  The text binds `dict` nowhere,
 * calls no exec(), eval(), globals(), locals() or vars(), imports no `*`
 * (mpsfix_bindings_rebound()), names no frame or builtins (`f_locals`,
 * `f_globals`, `f_back`, `tb_frame`, `locals`, `_getframe`, `currentframe`,
 * `getargvalues`, `builtins`, `__builtins__`) and no name past ASCII
 * (Python reads `ｋw` as `kw`), parses whole (a Python 3.14 t-string's
 * `{kw.pop("device")}` is an ERROR to the grammar) and is no notebook with
 * IPython lines (`%run`, `%store -r` may bind the name unseen).  A call that
 * spreads NAME, if it runs at all, then passes those keys and no other.
 * The dictionary may also be written in the spread itself:
 * `f(**{"device": d})`, `f(**dict(device=d))`.  (Not seen: another module
 * that rebinds the builtin `dict`.)
 *
 * A tree is read in two walks, whatever the number of names: one finds the
 * names spread, the other their mentions.
 */
#ifndef MPSFIX_KWDICT_H
#define MPSFIX_KWDICT_H

#include <tree_sitter/api.h>

#include "common.h"
#include "source.h"

/* The names spread in one tree that are read (past them: not known). */
#define MPSFIX_KWDICT_NAMES 64
/* The most keys a dictionary may have to be read. */
#define MPSFIX_KWDICT_KEYS 64

/* What is read of one text, by byte offsets: good for any tree of it. */
typedef struct mpsfix_kwdict_cache {
	struct mpsfix_kwdict_slot {
		uint64_t hash;
		uint32_t id_start, id_len;       /* a spread of it, for its text */
		uint32_t dict_start, dict_end;   /* the dict() call or dictionary assigned
						    to it (0, 0: none) */
		uint32_t scope_start, scope_end; /* the function that assigns it */
		uint32_t first, last;            /* where it is spread */
		bool bad;       /* a mention that is no spread, or a second assignment */
	} slots[MPSFIX_KWDICT_NAMES];
	size_t n;
	const void *tree;   /* the tree read (NULL: none yet) */
	bool trusted;       /* no rebound `dict`, exec(), frame or notebook line */
} mpsfix_kwdict_cache;

/**
 * The dictionary that `splat` passes (a dictionary_splat `**NAME` in the
 * text `src`): the `dict(...)` call or the `{...}` display assigned to it
 * or written there, where its keys are known as above; else a null node.
 * `cache` keeps what it read of the tree for the next questions; a tree
 * it has not read is read first (a store's cache knows another tree of the
 * same text: mpsfix_kwdict_store_get()).
 */
TSNode mpsfix_kwdict_of(mpsfix_kwdict_cache *cache, TSNode splat, const char *src);

/*
 * What the `**NAME` of many files pass, each read once: a question about
 * another module of the project parses it again (texts.h keeps few).
 */
typedef struct mpsfix_kwdict_store mpsfix_kwdict_store;

/* The most files a store keeps: past them, a new one takes the oldest's place. */
#define MPSFIX_KWDICT_FILES 1024

/**
 * The cache for the file at `path` as `stamp` says it is, whose tree is now
 * `tree` (*store is made at the first call).
 */
mpsfix_kwdict_cache *mpsfix_kwdict_store_get(mpsfix_kwdict_store **store, const char *path,
					     const mpsfix_file_stamp *stamp, const TSTree *tree);

void mpsfix_kwdict_store_free(mpsfix_kwdict_store *store);

/**
 * The key nodes of dictionary `dict` (from mpsfix_kwdict_of()), in order:
 * the name of each keyword argument, the content of each string key.
 * Calls `each` with the key (its text is the key) and its value.
 */
void mpsfix_kwdict_keys(TSNode dict, void (*each)(TSNode key, TSNode value, void *payload), void *payload);

/** The value that dictionary `dict` gives key `key` (`n` bytes), or a null node. */
TSNode mpsfix_kwdict_value(TSNode dict, const char *src, const char *key, size_t n);

#endif
