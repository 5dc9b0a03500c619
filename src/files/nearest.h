/*
 * nearest.h: the nearest folder, at or above a file's own, that has
 * something to say of the file (pins that name torch, a lint configuration
 * that sets a line length), each folder looked at once.
 *
 * The search goes no higher than the top of the git work tree that holds
 * the file; outside git, than the current folder or the folder operand the
 * file was found under, the higher of those that hold it, else the file's
 * own folder.  What a folder says is a number its owner gives meaning to (an
 * index into its own table), MPSFIX_NEAREST_NONE when it says nothing and
 * is passed over.  Folders are looked at on the thread that asks (the main
 * one, before the workers start).
 */
#ifndef MPSFIX_NEAREST_H
#define MPSFIX_NEAREST_H

#include "common.h"

/* A folder that says nothing (or no such folder). */
#define MPSFIX_NEAREST_NONE SIZE_MAX

struct mpsfix_nearest_dir; /* a folder looked at (nearest.c) */

typedef struct {
	char *cwd;                        /* the current folder, real path, or NULL (owned) */
	struct mpsfix_nearest_dir *dirs;  /* sorted by path (owned) */
	size_t ndirs, dirs_cap;
} mpsfix_nearest;

#define MPSFIX_NEAREST_INIT {NULL, NULL, 0, 0}

/**
 * What folder `dir` (a real path) says: a number, or MPSFIX_NEAREST_NONE.
 * Called once per folder.
 */
typedef size_t (*mpsfix_nearest_look_cb)(void *payload, const char *dir);

/** Start with no folder looked at (and note the current folder). */
void mpsfix_nearest_init(mpsfix_nearest *n);

/** Settle what folder `dir` says without looking at it (the run's folder, read already). */
void mpsfix_nearest_set(mpsfix_nearest *n, const char *dir, size_t value);

/**
 * What the nearest folder that says something says of the file `path`
 * (`look` called for each folder not looked at yet), or
 * MPSFIX_NEAREST_NONE.  `operand` is the folder operand it was found
 * under, or NULL.  A path that does not exist (standard input's
 * --stdin-filename) is looked up from its folder.
 */
size_t mpsfix_nearest_of_file(mpsfix_nearest *n, const char *path, const char *operand,
			      mpsfix_nearest_look_cb look, void *payload);

/** The same for a file in folder `dir` (rules and explain ask for the current folder's). */
size_t mpsfix_nearest_of_folder(mpsfix_nearest *n, const char *dir, mpsfix_nearest_look_cb look,
				void *payload);

/**
 * What the nearest folder that says something says, from folder `dir`
 * upward to the top of the git work tree that holds it, else to the root
 * of the file system (the run's own search, for the files whose search
 * finds nothing), or MPSFIX_NEAREST_NONE.
 */
size_t mpsfix_nearest_upward(mpsfix_nearest *n, const char *dir, mpsfix_nearest_look_cb look, void *payload);

void mpsfix_nearest_release(mpsfix_nearest *n);

#endif
