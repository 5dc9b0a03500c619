/*
 * source.c: one file's bytes, validated (no NUL, strict UTF-8, size limit),
 * its line index, and the atomic write-back.
 */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Take ownership of `data` (len bytes + NUL), index and validate it. */
static int load(mpsfix_source *out, const char *path, char *data, size_t len)
{
	uint32_t line, col;
	const char *nul;
	size_t bad;

	out->path = mpsfix_xstrdup(path);
	out->data = data;
	out->len = (uint32_t)len;
	out->has_bom = has_bom(data, len);
	index_lines(out);

	if ((nul = memchr(data, '\0', len)) != NULL) {
		mpsfix_source_position(out, (uint32_t)(nul - data), &line, &col);
		mpsfix_source_release(out);
		return mpsfix_error_set(MPSFIX_ESKIP,
					"%s: skipped: binary file (NUL byte at line %u, column %u)",
					path, line, col);
	}
	if ((bad = utf8_invalid((const unsigned char *)data, len)) < len) {
		mpsfix_source_position(out, (uint32_t)bad, &line, &col);
		mpsfix_source_release(out);
		return mpsfix_error_set(MPSFIX_ESKIP, "%s:%u:%u: skipped: invalid UTF-8",
					path, line, col);
	}
	return 0;
}

static int too_large(const char *path, size_t len)
{
	return mpsfix_error_set(MPSFIX_ESKIP,
				"%s: skipped: file too large (%zu bytes; the limit is %u)",
				path, len, MPSFIX_SOURCE_MAX);
}

int mpsfix_source_from_buffer(mpsfix_source *out, const char *path,
			      const char *data, size_t len)
{
	*out = (mpsfix_source)MPSFIX_SOURCE_INIT;
	if (len > MPSFIX_SOURCE_MAX)
		return too_large(path, len);
	char *copy = mpsfix_xmalloc(len + 1);
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	return load(out, path, copy, len);
}

int mpsfix_source_read(mpsfix_source *out, const char *path)
{
	char *data = NULL;
	size_t len = 0, cap;
	struct stat st;
	int fd, flags, error = 0;

	*out = (mpsfix_source)MPSFIX_SOURCE_INIT;
	/* O_NONBLOCK: opening a FIFO for reading must not wait for a writer */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno == EISDIR)
			return mpsfix_error_set(MPSFIX_ESKIP, "%s: skipped: is a directory", path);
		return mpsfix_error_set(MPSFIX_ERROR, "%s: cannot open: %s", path, strerror(errno));
	}
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
	if ((uintmax_t)st.st_size > MPSFIX_SOURCE_MAX) {
		error = too_large(path, (size_t)st.st_size);
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
			if (len > MPSFIX_SOURCE_MAX) {
				error = too_large(path, len);
				goto done;
			}
			cap = cap > MPSFIX_SOURCE_MAX / 2 ? MPSFIX_SOURCE_MAX + 1u : cap * 2;
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
	if (len > MPSFIX_SOURCE_MAX) {
		error = too_large(path, len);
		goto done;
	}
	data[len] = '\0';
	error = load(out, path, data, len);
	data = NULL; /* owned by `out` now, or freed on failure */
	if (error == 0) {
		out->have_mode = true;
		out->mode = (unsigned)(st.st_mode & 07777);
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
	*s = (mpsfix_source)MPSFIX_SOURCE_INIT;
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

/* ------------------------------------------------------------------------ */
/* atomic write-back                                                         */

/* The process umask, read without changing it where the system allows. */
static mode_t current_umask(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned m;

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Umask: %o", &m) == 1) {
				fclose(f);
				return (mode_t)m;
			}
		}
		fclose(f);
	}
	/* no /proc: briefly set and restore it */
	mode_t old = umask(022);
	umask(old);
	return old;
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

int mpsfix_source_write_atomic(const char *path, const char *data, size_t len,
			       bool have_mode, unsigned mode)
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
	tmp = slash ? mpsfix_xasprintf("%.*s.%s.mpsfix-XXXXXX",
				       (int)(base - target), target, base)
		    : mpsfix_xasprintf(".%s.mpsfix-XXXXXX", base);

	if ((fd = mkstemp(tmp)) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR,
					 "%s: cannot create a temporary file in %s: %s",
					 path, dir, strerror(errno));
		free(tmp);
		tmp = NULL; /* nothing to remove */
		goto done;
	}
	mode_t want = have_mode ? (mode_t)(mode & 07777) : (0644 & ~current_umask());
	if (write_all(fd, data, len) < 0 || fchmod(fd, want) < 0 || fsync(fd) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot write %s: %s",
					 path, tmp, strerror(errno));
		goto done;
	}
	int rc = close(fd);
	fd = -1;
	if (rc < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot write %s: %s",
					 path, tmp, strerror(errno));
		goto done;
	}
	if (rename(tmp, target) < 0) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot rename %s to %s: %s",
					 path, tmp, target, strerror(errno));
		goto done;
	}
	free(tmp);
	tmp = NULL; /* renamed: nothing to remove */
	if (sync_folder(dir) < 0)
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: written, but cannot sync %s: %s",
					 path, dir, strerror(errno));
done:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(dir);
	free(target);
	return error;
}
