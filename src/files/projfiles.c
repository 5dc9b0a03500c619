/*
 * projfiles.c: the files of a project, listed once, and the words each
 * holds (see projfiles.h).
 */
#include "projfiles.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover.h"
#include "source.h"

static bool exists_in(const char *dir, const char *name)
{
	char *p = mpsfix_xasprintf("%s/%s", dir, name);
	struct stat st;
	bool yes = lstat(p, &st) == 0;

	free(p);
	return yes;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* Does folder `dir` hold a file that makes it a project's: pyproject.toml and the like, requirements*.txt? */
static bool marked(const char *dir)
{
	static const char *const markers[] = {"pyproject.toml", "setup.py", "setup.cfg"};
	DIR *d;
	struct dirent *e;
	bool yes = false;

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(markers); i++)
		if (exists_in(dir, markers[i]))
			return true;
	if (!(d = opendir(dir)))
		return false;
	while (!yes && (e = readdir(d)))
		yes = !strncmp(e->d_name, "requirements", 12) && ends_with(e->d_name, ".txt");
	closedir(d);
	return yes;
}

char *mpsfix_project_root(const char *file)
{
	char *dir = mpsfix_xstrdup(file), *slash, *top = NULL;

	for (int level = 0; (slash = strrchr(dir, '/')) && slash != dir; level++) {
		*slash = '\0';
		if (exists_in(dir, ".git")) {
			free(top);
			return dir;
		}
		if (level <= MPSFIX_PROJECT_LEVELS && marked(dir)) {
			free(top);
			top = mpsfix_xstrdup(dir);
		}
	}
	free(dir);
	return top;
}


/* Is `name` a file a question reads: 1 Python, 2 a notebook, 3 a configuration file, 0 neither. */
static int file_kind(const char *name)
{
	static const char *const config[] = {".yaml", ".yml", ".json", ".toml", ".cfg", ".ini"};

	if (ends_with(name, ".py") || ends_with(name, ".pyi") || ends_with(name, ".pyw"))
		return 1;
	if (ends_with(name, ".ipynb"))
		return 2;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(config); i++)
		if (ends_with(name, config[i]))
			return 3;
	return 0;
}

/* The largest file of kind `kind` read: a larger notebook or configuration file is data. */
static size_t kind_max(uint8_t kind)
{
	return kind == 1 ? MPSFIX_PROJECT_MAX_BYTES : kind == 2 ? MPSFIX_PROJECT_MAX_NOTEBOOK : MPSFIX_PROJECT_MAX_CONFIG;
}

void mpsfix_project_files_walk(mpsfix_project_files *p, const char *root)
{
	char **stack = NULL;
	size_t n = 0, cap = 0;

	memset(p, 0, sizeof(*p));
	p->root = mpsfix_xstrdup(root);

	p->ok = true;
	mpsfix_grow((void **)&stack, &cap, 1, sizeof(*stack));
	stack[n++] = mpsfix_xstrdup(p->root);
	while (n) {
		char *dir = stack[--n];
		DIR *d = opendir(dir);
		struct dirent *e;

		if (!d) {
			p->ok = false;
			free(dir);
			continue;
		}
		while (p->ok && (e = readdir(d))) {
			struct stat st;
			char *path;
			int kind;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			path = mpsfix_xasprintf("%s/%s", dir, e->d_name);
			if (lstat(path, &st) < 0) {
				free(path);
				continue;
			}
			if (S_ISDIR(st.st_mode) && !mpsfix_discover_skips_folder(e->d_name)) {
				mpsfix_grow((void **)&stack, &cap, n + 1, sizeof(*stack));
				stack[n++] = path;
				continue;
			}
			/* a symbolic link counts where it leads to a regular file (never a FIFO) */
			if (S_ISLNK(st.st_mode) && stat(path, &st) < 0)
				st.st_mode = 0;
			if (S_ISREG(st.st_mode) && (kind = file_kind(e->d_name))) {
				if (p->len >= MPSFIX_PROJECT_MAX_FILES) {
					p->ok = false;
				} else {
					mpsfix_grow((void **)&p->files, &p->cap, p->len + 1, sizeof(*p->files));
					p->files[p->len++] = (mpsfix_project_file){path, (uint8_t)kind, 0, 0, NULL, p};
					path = NULL;
				}
			}
			free(path);
		}
		closedir(d);
		free(dir);
	}
	while (n)
		free(stack[--n]);
	free(stack);
}


int mpsfix_read_whole(const char *path, size_t max, char **data, size_t *len)
{
	/* O_NONBLOCK: a FIFO put in place of the file after the walk does not block */
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	FILE *f;
	struct stat st;
	size_t got;

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "rb"))) {
		close(fd);
		return -1;
	}
	if ((size_t)st.st_size > max) {
		fclose(f);
		return 1;
	}
	*data = mpsfix_xmalloc((size_t)st.st_size + 1);
	got = fread(*data, 1, (size_t)st.st_size, f);
	fclose(f);
	(*data)[got] = '\0';
	*len = got;
	return 0;
}

bool mpsfix_word_char(char ch)
{
	return ch == '_' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (unsigned char)ch >= 0x80;
}

const char *mpsfix_next_word(const char *data, size_t len, const char *from, const char *w, size_t n)
{
	const char *p = from, *end = data + len;

	/* memmem() is not in C11 nor POSIX: the first byte by memchr(), then the rest */
	while (n && (size_t)(end - p) >= n && (p = memchr(p, w[0], (size_t)(end - p) - n + 1))) {
		/* a JSON escape's letter before it is no part of the word: "\nf(x)" */
		bool start = p == data || !mpsfix_word_char(p[-1]) || (p - data >= 2 && p[-2] == '\\');

		if (!memcmp(p, w, n) && start && (p + n == end || !mpsfix_word_char(p[n])))
			return p;
		p++;
	}
	return NULL;
}

bool mpsfix_has_word(const char *data, size_t len, const char *w, size_t n)
{
	return mpsfix_next_word(data, len, data, w, n) != NULL;
}

/* The three bits of word `w` (`n` bytes) in a filter of 2^log2 bits. */
static void word_bits(const char *w, size_t n, unsigned log2, uint64_t bit[3])
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a, then mixed */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)w[i]) * 1099511628211ull;
	for (int k = 0; k < 3; k++) {
		h ^= h >> 29;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 32;
		bit[k] = h & ((1ull << log2) - 1);
	}
}

/* Set the three bits of word `w` (`n` bytes) in `f`'s filter. */
static void add_word(mpsfix_project_file *f, const char *w, size_t n)
{
	uint64_t bit[3];

	word_bits(w, n, f->log2, bit);
	for (int k = 0; k < 3; k++)
		f->words[bit[k] / 64] |= 1ull << (bit[k] % 64);
}

/*
 * Does `data` hold the word `word` (`n` bytes), blanks (or none, or a
 * backslash and a new line), then `next`: `from .`, `import *`?
 */
static bool word_then(const char *data, size_t len, const char *word, size_t n, char next)
{
	for (const char *p = data;
	     (size_t)(data + len - p) > n && (p = memchr(p, word[0], (size_t)(data + len - p) - n)); p++) {
		const char *q = p + n;

		if (memcmp(p, word, n) || (p > data && mpsfix_word_char(p[-1])))
			continue;
		while (q < data + len && (*q == ' ' || *q == '\t' || *q == '\\' || *q == '\n' || *q == '\r'))
			q++;
		if (q < data + len && *q == next)
			return true;
	}
	return false;
}

/*
 * Read file `f` once: the words of its text into its filter, with the
 * pseudo-words of projfiles.h.  A word right after a JSON escape (`\nf(x)`
 * in a notebook's one-string cell) goes in also without the escape's
 * letter.  Past the project's budget for filters a file is not indexed:
 * it may hold any word.
 */
static void file_index(mpsfix_project_file *f)
{
	char *data;
	size_t len, bytes;
	unsigned log2 = 10;
	bool nonascii = false;

	f->state = 2;
	if (mpsfix_read_whole(f->path, kind_max(f->kind), &data, &len) != 0) {
		free(data);
		return;
	}
	while ((1ull << log2) < len * 2 && log2 < MPSFIX_PROJECT_FILTER_LOG2)
		log2++; /* two bits a byte: ten a word of five letters */
	bytes = (1u << log2) / 8;
	if (f->project->filter_bytes + bytes > MPSFIX_PROJECT_FILTER_BUDGET) {
		free(data);
		f->state = 3;
		return;
	}
	f->project->filter_bytes += bytes;
	f->log2 = (uint8_t)log2;
	f->words = mpsfix_xcalloc((1u << log2) / 64, sizeof(uint64_t));
	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && mpsfix_word_char(data[j]))
			nonascii |= (unsigned char)data[j++] >= 0x80;
		if (j == i) {
			i++;
			continue;
		}
		add_word(f, data + i, j - i);
		if (i > 0 && data[i - 1] == '\\' && j - i > 1)
			add_word(f, data + i + 1, j - i - 1);
		i = j;
	}
	if (word_then(data, len, "from", 4, '.'))
		add_word(f, MPSFIX_PROJECT_WORD_RELATIVE, strlen(MPSFIX_PROJECT_WORD_RELATIVE));
	if (nonascii || mpsfix_source_declares_other(data, len)) /* Python reads ｌonely as lonely (NFKC) */
		add_word(f, MPSFIX_PROJECT_WORD_NONASCII, strlen(MPSFIX_PROJECT_WORD_NONASCII));
	if (word_then(data, len, "import", 6, '*'))
		add_word(f, MPSFIX_PROJECT_WORD_STAR, strlen(MPSFIX_PROJECT_WORD_STAR));
	free(data);
	f->state = 1;
}

bool mpsfix_project_file_may_hold(mpsfix_project_file *f, const char *w, size_t n)
{
	uint64_t bit[3];

	if (!f->state)
		file_index(f);
	if (f->state != 1)
		return true; /* not read, or not indexed */
	word_bits(w, n, f->log2, bit);
	for (int k = 0; k < 3; k++)
		if (!(f->words[bit[k] / 64] & (1ull << (bit[k] % 64))))
			return false;
	return true;
}

bool mpsfix_project_file_may_bind(mpsfix_project_file *f, const char *name, size_t n)
{
	static const char *const writers[] = {
		MPSFIX_PROJECT_WORD_STAR, MPSFIX_PROJECT_WORD_NONASCII, "globals", "vars", "locals", "exec", "eval", "setattr",
		"__dict__", "modules", "__getattr__", "f_globals", "f_locals",
	};

	if (mpsfix_project_file_may_hold(f, name, n))
		return true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(writers); i++)
		if (mpsfix_project_file_may_hold(f, writers[i], strlen(writers[i])))
			return true;
	return false;
}


int mpsfix_project_file_read(const mpsfix_project_file *f, char **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	return f->state == 2 ? -1 : mpsfix_read_whole(f->path, kind_max(f->kind), data, len);
}

void mpsfix_project_files_release(mpsfix_project_files *p)
{
	for (size_t k = 0; k < p->len; k++) {
		free(p->files[k].path);
		free(p->files[k].words);
	}
	free(p->files);
	free(p->root);
	memset(p, 0, sizeof(*p));
}
