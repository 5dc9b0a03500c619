/*
 * discover.c: turn command-line paths into the list of files to look at,
 * walking folders iteratively (an explicit stack, so depth costs no C stack)
 * and never following a symlinked folder (so symlink loops cannot hang us).
 */
#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "git.h"
#include "pathutil.h"

typedef void (*error_fn)(void *payload, const char *message);

typedef struct {
	error_fn on_error;
	void *payload;
} reporter;

static void report(const reporter *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(const reporter *r, const char *fmt, ...)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	va_list ap;

	if (!r->on_error)
		return;
	va_start(ap, fmt);
	mpsfix_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r->on_error(r->payload, b.data ? b.data : "");
	mpsfix_buf_release(&b);
}


bool mpsfix_discover_skips_folder(const char *name)
{
	static const char *const skipped[] = {
		"__pycache__", "node_modules", "venv", "site-packages",
	};

	if (name[0] == '.') /* .git, .venv, .tox, ... */
		return true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(skipped); i++)
		if (strcmp(name, skipped[i]) == 0)
			return true;
	return false;
}

enum kind { K_OTHER, K_DIR, K_FILE };

/* the type readdir() tells of an entry */
enum entry { E_UNKNOWN, E_DIR, E_REG, E_LNK, E_SPECIAL, E_OTHER };

/*
 * d_type and DT_* are not POSIX: Linux, macOS and the BSDs have them (with
 * _DEFAULT_SOURCE or _DARWIN_C_SOURCE); elsewhere every entry is looked at
 * with lstat().
 */
static enum entry entry_type(const struct dirent *e)
{
#ifdef DT_UNKNOWN
	switch (e->d_type) {
	case DT_UNKNOWN:
		return E_UNKNOWN;
	case DT_DIR:
		return E_DIR;
	case DT_REG:
		return E_REG;
	case DT_LNK:
		return E_LNK;
	case DT_FIFO:
	case DT_SOCK:
	case DT_CHR:
	case DT_BLK:
		return E_SPECIAL;
	default:
		return E_OTHER;
	}
#else
	(void)e;
	return E_UNKNOWN;
#endif
}

/* What a folder entry is; symlinks count only when they lead to a file. */
static enum kind classify(const char *path, const char *name, enum entry type)
{
	struct stat st;

	if (type == E_DIR)
		return K_DIR;
	if (type == E_REG)
		return K_FILE;
	/* a FIFO, socket or device named like Python: taken, so that reading it
	 * reports it (it is never opened for reading) */
	if (type == E_SPECIAL)
		return mpsfix_is_python_path(name) ? K_FILE : K_OTHER;
	if (type == E_UNKNOWN) {
		if (lstat(path, &st) < 0)
			return K_OTHER;
		if (S_ISDIR(st.st_mode))
			return K_DIR;
		if (S_ISREG(st.st_mode))
			return K_FILE;
		if (!S_ISLNK(st.st_mode))
			return mpsfix_is_python_path(name) ? K_FILE : K_OTHER;
	} else if (type != E_LNK) {
		return K_OTHER;
	}
	/* a symlink: taken when it has a Python file's name, never followed into a
	 * folder; a loop or a link to nothing is taken too, so that reading it
	 * says what it is (as for a FIFO) */
	if (!mpsfix_is_python_path(name))
		return K_OTHER;
	if (stat(path, &st) < 0)
		return errno == ELOOP || errno == ENOENT ? K_FILE : K_OTHER;
	return S_ISDIR(st.st_mode) ? K_OTHER : K_FILE;
}

/* Append every Python file under `root` to `out` (unsorted). */
static void walk(mpsfix_strvec *out, const char *root, const reporter *r)
{
	mpsfix_strvec stack = MPSFIX_STRVEC_INIT; /* folders still to read */

	mpsfix_strvec_push(&stack, root);
	while (stack.len) {
		char *dir = stack.items[--stack.len];
		DIR *d = opendir(dir);

		if (!d) {
			report(r, "%s: %s", dir, strerror(errno));
			free(dir);
			continue;
		}
		for (;;) {
			errno = 0;
			struct dirent *ent = readdir(d);
			if (!ent) {
				if (errno)
					report(r, "%s: %s", dir, strerror(errno));
				break;
			}
			const char *name = ent->d_name;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				continue;
			char *path = mpsfix_path_join(dir, name);
			enum kind k = classify(path, name, entry_type(ent));
			if (k == K_DIR && !mpsfix_discover_skips_folder(name)) {
				mpsfix_strvec_push_owned(&stack, path);
				path = NULL;
			} else if (k == K_FILE && mpsfix_is_python_path(name)) {
				mpsfix_strvec_push_owned(out, path);
				path = NULL;
			}
			free(path);
		}
		closedir(d);
		free(dir);
	}
	mpsfix_strvec_release(&stack);
}

typedef struct {
	const char *s;
	size_t index;
	bool known;     /* stat() worked: dev and ino say which file it is */
	bool link;      /* the path itself is a symbolic link */
	dev_t dev;
	ino_t ino;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c;

	if (x->known != y->known)
		return x->known ? -1 : 1;
	if (x->known) {
		if (x->dev != y->dev)
			return x->dev < y->dev ? -1 : 1;
		if (x->ino != y->ino)
			return x->ino < y->ino ? -1 : 1;
		if (x->link != y->link)
			return x->link ? 1 : -1; /* the file's own name first */
	} else if ((c = strcmp(x->s, y->s)) != 0) {
		return c;
	}
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool same_file(const keyed *x, const keyed *y)
{
	if (x->known != y->known)
		return false;
	return x->known ? x->dev == y->dev && x->ino == y->ino : strcmp(x->s, y->s) == 0;
}

/*
 * Keep one name per file, in the original order: `a.py`, `./a.py` and a
 * symbolic link to it are one file (a diff naming it twice would not
 * apply); the file's own name is preferred to a link's.
 */
static void dedupe(mpsfix_strvec *p)
{
	keyed *k = mpsfix_xmalloc(p->len * sizeof(*k));
	bool *dup = mpsfix_xcalloc(p->len, sizeof(*dup));
	size_t n = 0;

	for (size_t i = 0; i < p->len; i++) {
		struct stat st, lst;

		k[i] = (keyed){.s = p->items[i], .index = i};
		if (stat(p->items[i], &st) == 0) {
			k[i].known = true;
			k[i].dev = st.st_dev;
			k[i].ino = st.st_ino;
			k[i].link = lstat(p->items[i], &lst) == 0 && S_ISLNK(lst.st_mode);
		}
	}
	qsort(k, p->len, sizeof(*k), cmp_keyed);
	for (size_t i = 1; i < p->len; i++)
		if (same_file(&k[i], &k[i - 1]))
			dup[k[i].index] = true;
	for (size_t i = 0; i < p->len; i++) {
		if (dup[i])
			free(p->items[i]);
		else
			p->items[n++] = p->items[i];
	}
	p->len = n;
	free(k);
	free(dup);
}

/* The '/'-separated components of `s` ("" and "." dropped), in `buf` (owned). */
static size_t split(char ***parts, char **buf, const char *s)
{
	ARRAY(char *) a = {0};
	char *save = NULL;

	*buf = mpsfix_xstrdup(s);
	for (char *t = strtok_r(*buf, "/", &save); t; t = strtok_r(NULL, "/", &save))
		if (strcmp(t, ".") != 0)
			ARRAY_PUSH(&a, t);
	*parts = a.items;
	return a.len;
}

/* `path` made absolute (against `cwd`) and lexically normal: "/a/b". */
static char *absolute(const char *cwd, const char *path)
{
	char *full = path[0] == '/' ? mpsfix_xstrdup(path) : mpsfix_xasprintf("%s/%s", cwd, path);
	char **parts = NULL, *buf = NULL;
	size_t n = split(&parts, &buf, full), kept = 0;
	mpsfix_buf out = MPSFIX_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(parts[i], "..") == 0) {
			if (kept)
				kept--;
		} else {
			parts[kept++] = parts[i];
		}
	}
	for (size_t i = 0; i < kept; i++)
		mpsfix_buf_printf(&out, "/%s", parts[i]);
	if (!kept)
		mpsfix_buf_adds(&out, "/");
	free(parts);
	free(buf);
	free(full);
	return out.data;
}

typedef struct {
	const mpsfix_discover_opts *opts;
	char *base;       /* of exclude/include: absolute, normal */
	char *extra_base; /* of extra_exclude */
	char *cwd;
} glob_filter;

/* `abs` relative to folder `base`, or NULL when outside it (or `base` itself). */
static const char *under(const char *abs, const char *base)
{
	size_t n = strlen(base);
	const char *rel = NULL;

	if (strcmp(base, "/") == 0)
		rel = abs + 1;
	else if (strncmp(abs, base, n) == 0 && abs[n] == '/')
		rel = abs + n + 1;
	return rel && *rel ? rel : NULL;
}

static bool any_glob(char *const *globs, size_t n, const char *rel)
{
	for (size_t i = 0; i < n; i++)
		if (mpsfix_glob_matches(globs[i], rel))
			return true;
	return false;
}

/* Is the file `path` kept by the globs?  Globs say nothing about a file outside their folder. */
static bool globs_keep(const glob_filter *f, const char *path)
{
	const mpsfix_discover_opts *o = f->opts;
	char *abs = absolute(f->cwd, path);
	const char *rel = under(abs, f->base), *extra = f->extra_base ? under(abs, f->extra_base) : NULL;
	bool keep = true;

	if (rel)
		keep = !any_glob(o->exclude, o->nexclude, rel) &&
		       (!o->ninclude || any_glob(o->include, o->ninclude, rel));
	if (keep && extra)
		keep = !any_glob(o->extra_exclude, o->nextra_exclude, extra);
	free(abs);
	return keep;
}

/* Does the git-listed `path` (under folder argument `dir`) lie in a folder the walk skips? */
static bool in_skipped_folder(const char *dir, const char *path)
{
	char *prefix = mpsfix_path_join(dir, "");
	size_t n = strlen(prefix);
	char **parts = NULL, *buf = NULL;
	size_t np = split(&parts, &buf, strncmp(path, prefix, n) == 0 ? path + n : path);
	bool skip = false;

	for (size_t i = 0; i + 1 < np && !skip; i++)
		skip = mpsfix_discover_skips_folder(parts[i]);
	free(parts);
	free(buf);
	free(prefix);
	return skip;
}

/* The files of folder argument `dir` from git; *listed is false outside a work tree. */
static int git_files(mpsfix_strvec *out, bool *listed, const char *dir, bool no_ignore)
{
	char **files = NULL;
	size_t n = 0;
	int error;

	if ((error = mpsfix_git_list_files(&files, &n, listed, dir, no_ignore)) < 0)
		return error;
	for (size_t i = 0; i < n; i++) {
		if (in_skipped_folder(dir, files[i]))
			free(files[i]);
		else
			mpsfix_strvec_push_owned(out, files[i]);
	}
	free(files);
	return 0;
}

/*
 * Folder argument `dir` gave no file: say why.  `found`: its Python files
 * before the globs; `listed`: git listed them (not ignored ones).
 */
static int warn_nothing(const reporter *w, const char *dir, size_t found, bool listed,
			const mpsfix_discover_opts *opts)
{
	mpsfix_strvec all = MPSFIX_STRVEC_INIT;
	bool again = false;
	int error = 0;

	if (!w->on_error)
		return 0;
	if (found) {
		report(w, "%s: nothing to check: --exclude, --include or the configuration's exclude "
		       "leave out its %zu Python file%s", dir, found, found == 1 ? "" : "s");
		return 0;
	}
	if (listed && !opts->no_ignore) {
		if ((error = git_files(&all, &again, dir, true)) < 0)
			goto done;
		if (all.len) {
			report(w, "%s: nothing to check: git ignores its %zu Python file%s (--no-ignore reads %s)",
			       dir, all.len, all.len == 1 ? "" : "s", all.len == 1 ? "it" : "them");
			goto done;
		}
	}
	report(w, "%s: nothing to check: no *.py, *.pyi or *.ipynb file in it", dir);
done:
	mpsfix_strvec_release(&all);
	return error;
}

int mpsfix_discover_files(mpsfix_strvec *out, char *const *args, size_t nargs,
			  const mpsfix_discover_opts *opts,
			  void (*on_error)(void *payload, const char *message), void *payload)
{
	static const mpsfix_discover_opts defaults = {.use_git = false};
	reporter r = {on_error, payload}, w = {opts ? opts->on_warning : NULL, payload};
	glob_filter f = {NULL, NULL, NULL, NULL};
	bool git_ready = false, globs;
	int error = 0;

	if (!opts)
		opts = &defaults;
	globs = opts->nexclude || opts->ninclude || opts->nextra_exclude;
	if (globs) {
		f.opts = opts;
		if ((f.cwd = getcwd(NULL, 0)) == NULL) {
			error = mpsfix_error_set(MPSFIX_ERROR, "cannot read the current folder: %s",
						 strerror(errno));
			goto done;
		}
		f.base = absolute(f.cwd, opts->glob_base ? opts->glob_base : f.cwd);
		if (opts->nextra_exclude && opts->extra_base)
			f.extra_base = absolute(f.cwd, opts->extra_base);
	}
	if (opts->use_git) {
		if ((error = mpsfix_git_init()) < 0)
			goto done;
		git_ready = true;
	}
	for (size_t i = 0; i < nargs; i++) {
		const char *arg = args[i];
		struct stat st;
		bool listed = false;

		if (!arg) {
			error = mpsfix_error_set(MPSFIX_ERROR, "discover: argument %zu is NULL", i);
			goto done;
		}
		if (!strcmp(arg, "-")) { /* standard input: read by the caller */
			mpsfix_strvec_push(out, arg);
			continue;
		}
		if (lstat(arg, &st) < 0) {
			report(&r, "%s: %s", arg, strerror(errno));
			continue;
		}
		/* a symlink named on the command line is followed to a folder */
		bool folder = S_ISDIR(st.st_mode) ||
			      (S_ISLNK(st.st_mode) && stat(arg, &st) == 0 && S_ISDIR(st.st_mode));
		if (!folder) { /* named explicitly: always taken */
			mpsfix_strvec_push(out, arg);
			continue;
		}
		size_t start = out->len, found;
		bool ignored = false;
		/* a folder git ignores, named on the command line: walked; so is one
		   of a repository git can read and libgit2 cannot (a sparse index,
		   SHA-256 objects: newer than the library), which is said */
		if ((opts->use_git && opts->walk_ignored && !opts->no_ignore &&
		     mpsfix_git_ignores_folder(&ignored, arg) < 0) ||
		    (opts->use_git && !ignored && git_files(out, &listed, arg, opts->no_ignore) < 0)) {
			/* only a format libgit2 does not know ("unsupported extension",
			   "unsupported repository version"); a damaged index is an error */
			if (!strstr(mpsfix_error_last()->message, "unsupported")) {
				error = MPSFIX_ERROR;
				goto done;
			}
			report(&w, "%s: its git repository cannot be read (%s): the folder is walked instead, "
			       "so files git ignores are read too", arg, mpsfix_error_last()->message);
			out->len = start;
			listed = ignored = false;
		}
		if (!listed)
			walk(out, arg, &r);
		found = out->len - start;
		if (out->len - start > 1)
			mpsfix_strvec_sort(out, start);
		if (globs) {
			size_t kept = start;
			for (size_t j = start; j < out->len; j++) {
				if (globs_keep(&f, out->items[j]))
					out->items[kept++] = out->items[j];
				else
					free(out->items[j]);
			}
			out->len = kept;
		}
		if (out->len == start && (error = warn_nothing(&w, arg, found, listed, opts)) < 0)
			goto done;
	}
done:
	if (out->len > 1)
		dedupe(out);
	if (git_ready)
		mpsfix_git_shutdown();
	free(f.base);
	free(f.extra_base);
	free(f.cwd);
	return error;
}

int mpsfix_discover(mpsfix_strvec *out, char *const *args, size_t nargs,
		    void (*on_error)(void *payload, const char *message), void *payload)
{
	mpsfix_discover_opts opts = {.use_git = false};

	return mpsfix_discover_files(out, args, nargs, &opts, on_error, payload);
}

