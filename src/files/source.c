/*
 * source.c: one file's bytes, validated (no NUL, strict UTF-8, no other
 * declared encoding, size limit), its line index, and the guarded atomic
 * write-back.
 */
#include "source.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathutil.h"
#include "text.h"

/* POSIX 2008's st_mtim and st_ctim; macOS names them st_mtimespec, st_ctimespec */
#ifdef __APPLE__
#define ST_MTIM(st) ((st)->st_mtimespec)
#define ST_CTIM(st) ((st)->st_ctimespec)
#else
#define ST_MTIM(st) ((st)->st_mtim)
#define ST_CTIM(st) ((st)->st_ctim)
#endif

static bool is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

/*
 * Offset of the first byte that does not start a well-formed UTF-8 sequence
 * (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF), or `len`
 * when every byte is fine.
 */
static size_t utf8_invalid(const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = p[i];
		size_t n;
		unsigned char lo = 0x80, hi = 0xBF; /* range of the 2nd byte */

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF) {
			n = 2;
		} else if (c >= 0xE0 && c <= 0xEF) {
			n = 3;
			if (c == 0xE0)
				lo = 0xA0; /* overlong */
			else if (c == 0xED)
				hi = 0x9F; /* surrogates */
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 4;
			if (c == 0xF0)
				lo = 0x90; /* overlong */
			else if (c == 0xF4)
				hi = 0x8F; /* above U+10FFFF */
		} else {
			return i; /* C0, C1, F5..FF or a stray continuation byte */
		}
		if (len - i < n || p[i + 1] < lo || p[i + 1] > hi)
			return i;
		for (size_t k = 2; k < n; k++)
			if (!is_cont(p[i + k]))
				return i;
		i += n;
	}
	return len;
}

static bool has_bom(const char *data, size_t len)
{
	return len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0;
}

/* Build the line index and the CRLF fact of `s` (data and len set). */
static void index_lines(mpsfix_source *s)
{
	uint32_t n = 1, crlf = 0, lf = 0;
	const char *p = s->data, *end = s->data + s->len;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	s->lines = mpsfix_xmalloc((size_t)n * sizeof(*s->lines));
	s->lines[0] = 0;
	s->nlines = 1;
	for (p = s->data; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) {
		if (p > s->data && p[-1] == '\r')
			crlf++;
		else
			lf++;
		s->lines[s->nlines++] = (uint32_t)(p - s->data) + 1;
	}
	s->crlf = crlf > lf;
}

/* The Unicode encoding a byte-order mark other than UTF-8's names, or NULL. */
static const char *foreign_bom(const char *data, size_t len, const char **bytes)
{
	static const struct {
		const char *mark, *name, *bytes;
		size_t len;
	} marks[] = {
		/* UTF-32 LE first: its mark starts with UTF-16 LE's */
		{"\xFF\xFE\0\0", "UTF-32 (little-endian)", "FF FE 00 00", 4},
		{"\0\0\xFE\xFF", "UTF-32 (big-endian)", "00 00 FE FF", 4},
		{"\xFF\xFE", "UTF-16 (little-endian)", "FF FE", 2},
		{"\xFE\xFF", "UTF-16 (big-endian)", "FE FF", 2},
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(marks); i++)
		if (len >= marks[i].len && memcmp(data, marks[i].mark, marks[i].len) == 0) {
			*bytes = marks[i].bytes;
			return marks[i].name;
		}
	return NULL;
}

/*
 * PEP 263: a comment on line 1 or 2 (line 2 only after a blank or comment
 * line) matching `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` declares the
 * file's encoding.  The name is copied into `name` (lower case, '_' as '-');
 * false when there is no declaration.
 */
static bool coding_line(const char *data, size_t len, char *name, size_t size, uint32_t *line_out)
{
	const char *next = data, *stop = data + len;

	if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
		next += 3;
	for (uint32_t line = 1; line <= 2 && next < stop; line++) {
		const char *nl = memchr(next, '\n', (size_t)(stop - next));
		const char *p = next, *end = nl ? nl : stop;

		next = nl ? nl + 1 : stop;
		if (end > p && end[-1] == '\r')
			end--;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\f'))
			p++;
		if (p == end)
			continue; /* a blank line: the next may declare */
		if (*p != '#')
			return false; /* code: line 2 is not looked at */
		for (const char *c = p; end - c > 6; c++) {
			const char *v = c + 7;
			size_t n = 0;

			if (memcmp(c, "coding", 6) != 0 || (c[6] != ':' && c[6] != '='))
				continue;
			while (v < end && (*v == ' ' || *v == '\t'))
				v++;
			while (v + n < end && (isalnum((unsigned char)v[n]) || v[n] == '-' ||
					       v[n] == '_' || v[n] == '.'))
				n++;
			if (n == 0)
				continue;
			if (n >= size)
				n = size - 1;
			for (size_t i = 0; i < n; i++)
				name[i] = v[i] == '_' ? '-' : (char)tolower((unsigned char)v[i]);
			name[n] = '\0';
			*line_out = line;
			return true;
		}
	}
	return false;
}

/* Python's names for UTF-8 (after lower-casing and '_' to '-'). */
static bool is_utf8_name(const char *name)
{
	static const char *const names[] = {"utf-8", "utf8", "u8", "utf", "cp65001",
					    "utf8-ucs2", "utf8-ucs4"};

	if (strncmp(name, "utf-8-", 6) == 0) /* utf-8-unix, utf-8-sig... */
		return true;
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(names); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

bool mpsfix_source_declares_other(const char *data, size_t len)
{
	char name[32];
	uint32_t line;

	return coding_line(data, len, name, sizeof(name), &line) && !is_utf8_name(name) && strcmp(name, "ascii") &&
	       strcmp(name, "us-ascii");
}

/* Offset of the first byte that is not ASCII, or `len`. */
static size_t first_non_ascii(const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)data[i] >= 0x80)
			return i;
	return len;
}

/* Take ownership of `data` (len bytes + NUL), index and validate it. */
static int load(mpsfix_source *out, const char *path, char *data, size_t len)
{
	uint32_t line, col, coding_at = 0;
	const char *nul, *encoding, *bom_bytes;
	char declared[sizeof(out->encoding)];
	size_t bad;

	out->path = mpsfix_xstrdup(path);
	out->data = data;
	out->len = (uint32_t)len;
	out->has_bom = has_bom(data, len);
	index_lines(out);

	if ((encoding = foreign_bom(data, len, &bom_bytes)) != NULL) {
		mpsfix_source_release(out);
		return mpsfix_error_set(MPSFIX_ESKIP,
					"%s: skipped: %s text (byte-order mark %s); mpsfix reads only UTF-8",
					path, encoding, bom_bytes);
	}
	if ((nul = memchr(data, '\0', len)) != NULL) {
		mpsfix_source_position(out, (uint32_t)(nul - data), &line, &col);
		mpsfix_source_release(out);
		return mpsfix_error_set(MPSFIX_ESKIP,
					"%s: skipped: binary file (NUL byte at line %u, column %u)",
					path, line, col);
	}
	/* with a UTF-8 byte-order mark, Python reads UTF-8 whatever a coding line says */
	if (!out->has_bom && coding_line(out->data, out->len, declared, sizeof(declared), &coding_at) &&
	    !is_utf8_name(declared)) {
		if ((bad = first_non_ascii(data, len)) < len) {
			mpsfix_source_position(out, (uint32_t)bad, &line, &col);
			mpsfix_source_release(out);
			return mpsfix_error_set(MPSFIX_ESKIP,
						"%s:%u:%u: skipped: the file declares encoding '%s' "
						"(line %u) and has non-ASCII text; mpsfix reads only UTF-8",
						path, line, col, declared, coding_at);
		}
		/* ASCII reads the same in that encoding: the file is kept, but
		 * only ASCII may be written to it */
		memcpy(out->encoding, declared, sizeof(out->encoding));
		out->encoding_line = coding_at;
	}
	if ((bad = utf8_invalid((const unsigned char *)data, len)) < len) {
		mpsfix_source_position(out, (uint32_t)bad, &line, &col);
		mpsfix_source_release(out);
		return mpsfix_error_set(MPSFIX_ESKIP, "%s:%u:%u: skipped: invalid UTF-8",
					path, line, col);
	}
	return 0;
}

static int too_large(const char *path, size_t len, size_t max)
{
	return mpsfix_error_set(MPSFIX_ESKIP,
				"%s: skipped: file too large (%zu bytes; the limit is %zu)",
				path, len, max);
}

int mpsfix_source_from_buffer(mpsfix_source *out, const char *path,
			      const char *data, size_t len)
{
	return mpsfix_source_from_buffer_max(out, path, data, len, MPSFIX_SOURCE_MAX);
}

int mpsfix_source_from_buffer_max(mpsfix_source *out, const char *path,
				  const char *data, size_t len, size_t max)
{
	*out = (mpsfix_source)MPSFIX_SOURCE_INIT;
	if (max > UINT32_MAX)
		max = UINT32_MAX;
	if (len > max)
		return too_large(path, len, max);
	char *copy = mpsfix_xmalloc(len + 1);
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	return load(out, path, copy, len);
}

static mpsfix_file_stamp stamp_of(const struct stat *st)
{
	return (mpsfix_file_stamp){
		.known = true,
		.dev = (uint64_t)st->st_dev,
		.ino = (uint64_t)st->st_ino,
		.size = (int64_t)st->st_size,
		.mtime_sec = (int64_t)ST_MTIM(st).tv_sec,
		.mtime_nsec = ST_MTIM(st).tv_nsec,
		.ctime_sec = (int64_t)ST_CTIM(st).tv_sec,
		.ctime_nsec = ST_CTIM(st).tv_nsec,
		.uid = (unsigned)st->st_uid,
		.gid = (unsigned)st->st_gid,
		.nlink = (unsigned long)st->st_nlink,
	};
}

bool mpsfix_file_stamp_read(mpsfix_file_stamp *out, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	*out = stamp_of(&st);
	return true;
}

bool mpsfix_file_stamp_same(const mpsfix_file_stamp *a, const mpsfix_file_stamp *b)
{
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec &&
	       a->ctime_nsec == b->ctime_nsec;
}

/* Why opening `path` failed, as a skip for what the tree holds (a symbolic
 * link loop, a link to nothing), else as an error. */
static int open_failed(const char *path, int err)
{
	struct stat lst;

	if (err == EISDIR)
		return mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: is a directory", path);
	if (err == ELOOP)
		return mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: a symbolic link loop", path);
	if (err == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		return mpsfix_error_set(MPSFIX_ESKIP,
					"%s: skipped: a symbolic link to a file that does not exist", path);
	return mpsfix_error_set(MPSFIX_ERROR, "%s: cannot open: %s", path, strerror(err));
}

int mpsfix_source_read(mpsfix_source *out, const char *path)
{
	return mpsfix_source_read_max(out, path, MPSFIX_SOURCE_MAX);
}

int mpsfix_source_read_max(mpsfix_source *out, const char *path, size_t max)
{
	char *data = NULL;
	size_t len = 0, cap;
	struct stat st;
	int fd, flags, error = 0;

	*out = (mpsfix_source)MPSFIX_SOURCE_INIT;
	if (max > UINT32_MAX)
		max = UINT32_MAX; /* a source's offsets are 32-bit */
	/* O_NONBLOCK: opening a FIFO for reading must not wait for a writer */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return open_failed(path, errno);
	if (fstat(fd, &st) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot stat: %s",
					 path, strerror(errno));
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: is a directory", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: not a regular file", path);
		goto done;
	}
	if ((uintmax_t)st.st_size > max) {
		error = too_large(path, (size_t)st.st_size, max);
		goto done;
	}
	if ((flags = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read: %s",
					 path, strerror(errno));
		goto done;
	}

	cap = (size_t)st.st_size + 1;
	data = mpsfix_xmalloc(cap + 1);
	for (;;) {
		if (len == cap) {
			/* the file grew while we read it */
			if (len > max) {
				error = too_large(path, len, max);
				goto done;
			}
			cap = cap > max / 2 ? max + 1u : cap * 2;
			data = mpsfix_xrealloc(data, cap + 1);
		}
		ssize_t n = read(fd, data + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read: %s",
						 path, strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		error = too_large(path, len, max);
		goto done;
	}
	data[len] = '\0';
	error = load(out, path, data, len);
	data = NULL; /* owned by `out` now, or freed on failure */
	if (error == 0) {
		out->have_mode = true;
		out->mode = (unsigned)(st.st_mode & 07777);
		out->stamp = stamp_of(&st);
	}
done:
	free(data);
	close(fd);
	return error;
}

void mpsfix_source_release(mpsfix_source *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->data);
	free(s->lines);
	free(s->cells);
	*s = (mpsfix_source)MPSFIX_SOURCE_INIT;
}

bool mpsfix_source_cell_of(const mpsfix_source *s, uint32_t line, uint32_t *cell,
			   uint32_t *cell_line, uint32_t *file_line)
{
	uint32_t lo = 0, hi;
	const mpsfix_source_cell *c;

	if (!s->ncells)
		return false;
	/* the last cell starting at or before the line */
	hi = s->ncells;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->cells[mid].line <= line)
			lo = mid;
		else
			hi = mid;
	}
	c = &s->cells[lo];
	*cell = c->number;
	*cell_line = line >= c->line ? line - c->line + 1 : 1;
	*file_line = c->file_line + (*cell_line - 1) * c->file_step;
	return true;
}

uint32_t mpsfix_source_line_of(const mpsfix_source *s, uint32_t byte)
{
	uint32_t lo = 0, hi = s->nlines ? s->nlines - 1 : 0;

	if (byte > s->len)
		byte = s->len;
	/* the last line starting at or before `byte` */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (s->lines[mid] <= byte)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo + 1;
}

void mpsfix_source_position(const mpsfix_source *s, uint32_t byte,
			    uint32_t *line, uint32_t *col)
{
	uint32_t lo, start, n = 1;

	if (byte > s->len)
		byte = s->len;
	lo = mpsfix_source_line_of(s, byte) - 1;
	start = s->nlines ? s->lines[lo] : 0;
	if (lo == 0 && s->has_bom)
		start = byte < 3 ? byte : 3;
	for (uint32_t i = start; i < byte; i++)
		if (!is_cont((unsigned char)s->data[i]))
			n++;
	*line = lo + 1;
	*col = n;
}

mpsfix_span mpsfix_source_line(const mpsfix_source *s, uint32_t line)
{
	mpsfix_span span = {s->len, s->len};

	if (line < 1 || line > s->nlines)
		return span;
	span.start = s->lines[line - 1];
	if (line == 1 && s->has_bom)
		span.start = 3;
	if (line < s->nlines) {
		span.end = s->lines[line] - 1; /* the \n */
		if (span.end > span.start && s->data[span.end - 1] == '\r')
			span.end--;
	}
	return span;
}

const char *mpsfix_source_newline(const mpsfix_source *s)
{
	return s->crlf ? "\r\n" : "\n";
}

const char *mpsfix_source_newline_at(const mpsfix_source *s, uint32_t at)
{
	const char *nl = mpsfix_text_newline_at(s->data, s->len, at);

	return nl ? nl : mpsfix_source_newline(s);
}

/* ------------------------------------------------------------------------ */
/* atomic write-back                                                         */

/*
 * A new file gets 0644 less the user's umask.  The umask cannot be read
 * without setting it (for the whole process: another thread's file would get
 * the wrong mode) except through Linux's /proc, so the temporary file that
 * mkstemp() made (0600) is made again by open() with 0644: the kernel applies
 * the umask, and the file's mode is the one wanted.  On failure *fd is -1
 * and the name may be someone else's now.
 */
static int recreate_with_umask(const char *tmp, int *fd, mode_t *mode)
{
	struct stat st;

	close(*fd);
	unlink(tmp);
	*fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (*fd < 0)
		return -1;
	if (fstat(*fd, &st) < 0) {
		int e = errno;

		unlink(tmp);
		close(*fd);
		*fd = -1;
		errno = e;
		return -1;
	}
	*mode = st.st_mode & 07777;
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static int sync_folder(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -1;
	/* some file systems cannot sync a folder: that is not our failure */
	if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP)
		ret = -1;
	close(fd);
	return ret;
}

/* the suffix mkstemp() replaces, after ".NAME" */
#define TEMP_SUFFIX ".mpsfix-"
#define TEMP_RANDOM 6

bool mpsfix_source_is_temp_name(const char *name)
{
	size_t n = strlen(name), k = strlen(TEMP_SUFFIX);

	/* ".X" + ".mpsfix-" + six letters or digits */
	if (name[0] != '.' || n < 2 + k + TEMP_RANDOM)
		return false;
	if (memcmp(name + n - TEMP_RANDOM - k, TEMP_SUFFIX, k) != 0)
		return false;
	for (size_t i = n - TEMP_RANDOM; i < n; i++)
		if (!isalnum((unsigned char)name[i]))
			return false;
	return true;
}

/* Is the file at `target` still the one `s` read: same file, metadata and bytes? */
static int still_as_read(const mpsfix_source *s, const char *path, const char *target)
{
	const mpsfix_file_stamp *was = &s->stamp;
	mpsfix_file_stamp now;
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	bool same = false;
	int fd, error = 0;

	if ((fd = open(target, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		if (errno != ENOENT)
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read it again before "
						 "writing: %s", path, strerror(errno));
		goto done;
	}
	now = stamp_of(&st);
	if (!S_ISREG(st.st_mode) || now.dev != was->dev || now.ino != was->ino ||
	    now.size != was->size || now.size != (int64_t)s->len ||
	    now.mtime_sec != was->mtime_sec || now.mtime_nsec != was->mtime_nsec ||
	    now.ctime_sec != was->ctime_sec || now.ctime_nsec != was->ctime_nsec)
		goto done;
	/* the same time stamps, and the same bytes (time stamps can be coarse) */
	buf = mpsfix_xmalloc((size_t)s->len + 1);
	for (;;) {
		ssize_t n = read(fd, buf + got, (size_t)s->len + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read it again before "
						 "writing: %s", path, strerror(errno));
			goto done;
		}
		if (n == 0 || (got += (size_t)n) > s->len)
			break;
	}
	same = got == s->len && memcmp(buf, s->data, s->len) == 0;
done:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (error == 0 && !same)
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: not fixed: the file changed while mpsfix "
					 "was working on it; nothing was written (run mpsfix again)",
					 path);
	return error;
}

/*
 * The one writer.  The temporary file is locked (flock) from its creation
 * until after the rename, so that mpsfix_source_remove_stale_temps() never
 * takes a file in use for one left behind.  With `s`, the owner is kept and
 * the file is checked against `s` right before the rename.
 */
static int replace_file(const char *path, const char *data, size_t len, bool have_mode,
			unsigned mode, const mpsfix_source *s)
{
	char *target = NULL, *dir = NULL, *tmp = NULL;
	struct stat st;
	int fd = -1, error = 0;

	/* write a symlink's target, so the link stays a link */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		if ((target = realpath(path, NULL)) == NULL)
			return mpsfix_error_set(MPSFIX_ERROR, "%s: cannot resolve symlink: %s",
						path, strerror(errno));
	} else {
		target = mpsfix_xstrdup(path);
	}

	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	dir = slash ? mpsfix_xstrndup(target, slash == target ? 1 : (size_t)(slash - target))
		    : mpsfix_xstrdup(".");
	tmp = mpsfix_xasprintf("%.*s.%s" TEMP_SUFFIX "XXXXXX", (int)(base - target), target, base);

	if ((fd = mkstemp(tmp)) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR,
					 "%s: cannot create a temporary file in %s: %s",
					 path, dir, strerror(errno));
		free(tmp);
		tmp = NULL; /* nothing to remove */
		goto done;
	}
	mode_t want = (mode_t)(mode & 07777);
	if (!have_mode && recreate_with_umask(tmp, &fd, &want) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR,
					 "%s: cannot create a temporary file in %s: %s",
					 path, dir, strerror(errno));
		free(tmp);
		tmp = NULL; /* gone, or someone else's */
		goto done;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* a file system without locks still gets its file written */
	(void)flock(fd, LOCK_EX | LOCK_NB);
	if (write_all(fd, data, len) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot write %s: %s",
					 path, tmp, strerror(errno));
		goto done;
	}
	/* the old owner and group where we may give them (root may; a user who
	 * can write someone else's file gets it, as when an editor saves it) */
	if (s && s->stamp.known && fstat(fd, &st) == 0 &&
	    (st.st_uid != (uid_t)s->stamp.uid || st.st_gid != (gid_t)s->stamp.gid) &&
	    fchown(fd, (uid_t)s->stamp.uid, (gid_t)s->stamp.gid) < 0)
		(void)fchown(fd, (uid_t)-1, (gid_t)s->stamp.gid);
	/* after fchown, which may clear set-user-ID bits */
	if (fchmod(fd, want) < 0 || fsync(fd) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot write %s: %s",
					 path, tmp, strerror(errno));
		goto done;
	}
	if (s && s->stamp.known && (error = still_as_read(s, path, target)) < 0)
		goto done;
	if (rename(tmp, target) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot rename %s to %s: %s",
					 path, tmp, target, strerror(errno));
		goto done;
	}
	free(tmp);
	tmp = NULL; /* renamed: nothing to remove */
	int rc = close(fd); /* and the lock with it */
	fd = -1;
	if (rc < 0)
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: written, but closing it failed: %s",
					 path, strerror(errno));
	else if (sync_folder(dir) < 0)
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: written, but cannot sync %s: %s",
					 path, dir, strerror(errno));
done:
	if (tmp)
		unlink(tmp); /* before the lock goes: never someone else's file */
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(dir);
	free(target);
	return error;
}

int mpsfix_source_write_atomic(const char *path, const char *data, size_t len,
			       bool have_mode, unsigned mode)
{
	return replace_file(path, data, len, have_mode, mode, NULL);
}

/*
 * The new text replaces the file through a temporary file beside it (the
 * link's target, for a symbolic link): its folder must take new files.
 */
static int check_folder_writable(const char *path)
{
	char *target = realpath(path, NULL), *slash;
	int error = 0;

	if (!target)
		return 0; /* the write says why, if it fails */
	slash = strrchr(target, '/');
	if (slash)
		*(slash == target ? slash + 1 : slash) = '\0';
	if (access(slash ? target : ".", W_OK | X_OK) < 0 && (errno == EACCES || errno == EPERM))
		error = mpsfix_error_set(MPSFIX_ESKIP, "%s: not fixed: its folder %s does not let this user "
					 "create the temporary file a fix is written through", path,
					 slash ? target : ".");
	free(target);
	return error;
}

int mpsfix_source_check_writable(const mpsfix_source *s, const char *path)
{
	struct stat st;

	if (access(path, W_OK) < 0) {
		if (errno == EACCES || errno == EPERM)
			return mpsfix_error_set(MPSFIX_ESKIP, "%s: not fixed: the file is read-only", path);
		if (errno == EROFS)
			return mpsfix_error_set(MPSFIX_ESKIP, "%s: not fixed: the file is on a "
						"read-only file system", path);
		return mpsfix_error_set(MPSFIX_ERROR, "%s: cannot check write permission: %s",
					path, strerror(errno));
	}
	/* root may write anything: a file nobody may write is still read-only */
	if (s->have_mode && (s->mode & 0222) == 0)
		return mpsfix_error_set(MPSFIX_ESKIP, "%s: not fixed: the file is read-only", path);
	if (stat(path, &st) == 0 && st.st_nlink > 1)
		return mpsfix_error_set(MPSFIX_ESKIP, "%s: not fixed: the file has %lu hard links "
					"(replacing it would separate them)", path,
					(unsigned long)st.st_nlink);
	return check_folder_writable(path);
}

int mpsfix_source_write_back(const mpsfix_source *s, const char *path,
			     const char *data, size_t len)
{
	size_t bad;
	int error;

	if ((error = mpsfix_source_check_writable(s, path)) < 0)
		return error;
	if (s->encoding[0] && (bad = first_non_ascii(data, len)) < len)
		return mpsfix_error_set(MPSFIX_ERROR, "%s: not fixed: the fixed text is not ASCII, "
					"and the file declares encoding '%s' (line %u)", path,
					s->encoding, s->encoding_line);
	return replace_file(path, data, len, s->have_mode, s->mode, s);
}

int mpsfix_source_remove_stale_temps(const char *dir,
				     void (*removed)(void *payload, const char *path),
				     void *payload)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int error = 0;

	if (!d && errno == EACCES)
		return 0; /* a folder we may write but not list: nothing to be seen */
	if (!d)
		return mpsfix_error_set(MPSFIX_ERROR, "%s: cannot look for temporary files left "
					"by an interrupted run: %s", dir, strerror(errno));
	for (;;) {
		struct stat st, lst;
		char *path;
		int fd;

		errno = 0;
		if ((e = readdir(d)) == NULL) {
			if (errno)
				error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot look for temporary "
							 "files left by an interrupted run: %s",
							 dir, strerror(errno));
			break;
		}
		if (!mpsfix_source_is_temp_name(e->d_name))
			continue;
		path = mpsfix_path_join(dir, e->d_name);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		/* ours, not in use (a writer holds the lock until its rename),
		 * and still the file at that name once locked */
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    lstat(path, &lst) == 0 && lst.st_dev == st.st_dev && lst.st_ino == st.st_ino &&
		    unlink(path) == 0 && removed)
			removed(payload, path);
		if (fd >= 0)
			close(fd);
		free(path);
	}
	closedir(d);
	return error;
}
