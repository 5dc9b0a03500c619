/*
 * pins.c: the torch pins of a project (see pins.h for what is read): which
 * files are read and in what order, each file once; the list of pins and
 * warnings; package names as pip compares them.  The readers of each file
 * format are in pins_python.c (pip and Python packaging files) and
 * pins_conda.c (conda), what they share in pins_internal.h.
 */
#include "pins.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "pathutil.h"
#include "pins_internal.h"
#include "text.h"
#include "yaml_util.h"

/* A project file larger than this is not a dependency list. */
#define PIN_FILE_MAX (4u * 1024u * 1024u)

static void add_warning(mpsfix_pins *p, char *message)
{
	/* a file read for two sets (included by two requirement files) warns once */
	for (size_t i = 0; i < p->nwarnings; i++)
		if (!strcmp(p->warnings[i], message)) {
			free(message);
			return;
		}
	mpsfix_grow((void **)&p->warnings, &p->wcap, p->nwarnings + 1, sizeof(char *));
	p->warnings[p->nwarnings++] = message;
}

void mpsfix_pins__warn(mpsfix_pins_scan *sc, const char *fmt, ...)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mpsfix_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	add_warning(sc->out, mpsfix_buf_detach(&b, NULL));
}

static void add_pin(mpsfix_pins *p, mpsfix_pin pin)
{
	mpsfix_grow((void **)&p->items, &p->cap, p->len + 1, sizeof(*p->items));
	p->items[p->len++] = pin;
}

/* Pin `r` of requirement `text` at file:line, with the optional ones while those are apart. */
static void take_pin(mpsfix_pins_scan *sc, const char *file, uint32_t line, mpsfix_text_slice text,
		     mpsfix_torch_range r, bool implied)
{
	add_pin(sc->optional && sc->extra ? sc->extra : sc->out, (mpsfix_pin){
		.file = mpsfix_xstrdup(file),
		.line = line,
		.text = mpsfix_xstrndup(text.s, text.n),
		.range = r,
		.optional = sc->optional,
		.implied = implied,
		/* (a pin with an environment marker is for some machines: an alternative) */
		.set = sc->set && !memchr(text.s, ';', text.n) ? sc->set : ++sc->nsets,
	});
}

void mpsfix_pins__take(mpsfix_pins_scan *sc, const char *file, uint32_t line, mpsfix_text_slice text,
		       int rc, mpsfix_torch_range r, bool torch)
{
	if (torch && !sc->optional)
		sc->named = true;
	else if (torch)
		sc->named_optional = true;
	text = mpsfix_text_trim(text);
	if (rc == 0)
		take_pin(sc, file, line, text, r, false);
	else if (rc == MPSFIX_ERROR)
		add_warning(sc->optional && sc->extra ? sc->extra : sc->out,
			    mpsfix_xasprintf("%s:%u: torch pin '%.*s' ignored: %s", file, line, (int)text.n, text.s,
					     mpsfix_error_last()->message));
}

void mpsfix_pins__take_implied(mpsfix_pins_scan *sc, const char *file, uint32_t line, mpsfix_text_slice text,
			       mpsfix_torch_range r)
{
	take_pin(sc, file, line, mpsfix_text_trim(text), r, true);
}

/* The optional pins and their warnings join the others when nothing else named torch. */
void mpsfix_pins__finish(mpsfix_pins_scan *sc)
{
	mpsfix_pins *x = sc->extra;

	sc->out->names_torch |= sc->named || sc->named_optional;
	if (!x)
		return;
	if (!sc->named) {
		for (size_t i = 0; i < x->len; i++)
			add_pin(sc->out, x->items[i]);
		for (size_t i = 0; i < x->nwarnings; i++)
			add_warning(sc->out, x->warnings[i]);
		x->len = x->nwarnings = 0; /* moved */
	}
	mpsfix_pins_release(x);
}

/* --- names --------------------------------------------------------------------------- */

/*
 * Is `name` the package `want` ("torch", "pytorch")?  pip compares names
 * without case and with runs of - _ . alike; neither name has those, so a
 * name with one is another package (torch-geometric, torch_scatter).
 */
bool mpsfix_pins__same_name(mpsfix_text_slice name, const char *want)
{
	return name.n == strlen(want) && !strncasecmp(name.s, want, name.n);
}

bool mpsfix_pins__is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* --- files --------------------------------------------------------------------------- */

/* Has `real` (a real path) been read? */
bool mpsfix_pins__visited(const mpsfix_pins_scan *sc, const char *real)
{
	return mpsfix_strvec_has(&sc->visited, real);
}

/* Has `real` been read?  If not, remember it: it is about to be. */
bool mpsfix_pins__seen(mpsfix_pins_scan *sc, const char *real)
{
	if (mpsfix_pins__visited(sc, real))
		return true;
	mpsfix_strvec_push(&sc->visited, real);
	return false;
}

/* Read `path` (a regular file) into `b`; a warning naming `name` when it cannot be. */
bool mpsfix_pins__read_file(mpsfix_pins_scan *sc, mpsfix_buf *b, const char *path, const char *name)
{
	if (mpsfix_yaml_read_file(b, path, PIN_FILE_MAX) == 0)
		return true;
	mpsfix_pins__warn(sc, "%s (looking for torch pins in %s)", mpsfix_error_last()->message, name);
	return false;
}

/* --- the project ----------------------------------------------------------------------- */

static void scan_data(mpsfix_pins_scan *sc, mpsfix_pins_format format, const char *name, const char *dir,
		      const char *data, size_t len)
{
	/* a UTF-8 byte-order mark, which Python, PyYAML and configparser read
	   past (tomllib refuses it in pyproject.toml, and so does toml.c) */
	if (format != MPSFIX_PINS_PYPROJECT && format != MPSFIX_PINS_REQUIREMENTS && len >= 3 &&
	    !memcmp(data, "\xEF\xBB\xBF", 3)) {
		data += 3;
		len -= 3;
	}
	switch (format) {
	case MPSFIX_PINS_REQUIREMENTS:
		mpsfix_pins__scan_requirements(sc, name, dir, data, len);
		break;
	case MPSFIX_PINS_PYPROJECT:
		mpsfix_pins__scan_pyproject(sc, name, data, len);
		break;
	case MPSFIX_PINS_SETUP_CFG:
		mpsfix_pins__scan_setup_cfg(sc, name, data, len);
		break;
	case MPSFIX_PINS_SETUP_PY:
		mpsfix_pins__scan_setup_py(sc, name, data, len);
		break;
	case MPSFIX_PINS_CONDA_ENV:
		mpsfix_pins__scan_conda_env(sc, name, dir, data, len);
		break;
	}
}

void mpsfix_pins_scan_buffer(mpsfix_pins *out, mpsfix_pins_format format, const char *name,
			     const char *data, size_t len)
{
	mpsfix_pins extra = MPSFIX_PINS_INIT;
	mpsfix_pins_scan sc = {.out = out, .extra = &extra};

	sc.set = format == MPSFIX_PINS_REQUIREMENTS ? ++sc.nsets : 0; /* as mpsfix_pins_find() reads it */
	scan_data(&sc, format, name, NULL, data, len);
	mpsfix_pins__finish(&sc);
}

/* Read root-relative file `rel` when it is a regular file (or a link to one). */
static void scan_file(mpsfix_pins_scan *sc, mpsfix_pins_format format, const char *rel)
{
	char *path = mpsfix_path_join(sc->root, rel), *real = NULL, *dir = NULL, *slash;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		goto done; /* absent, a folder, a broken link: nothing to read */
	if (!(real = realpath(path, NULL)) || mpsfix_strvec_has(&sc->tops, real))
		goto done;
	mpsfix_strvec_push(&sc->tops, real);
	/* a requirement file and what it includes and constrains with (-r, -c)
	   are installed together: one set, whose files are read for it even
	   when another set read them too (requirements-dev.txt: -r
	   requirements.txt) */
	sc->set = format == MPSFIX_PINS_REQUIREMENTS ? ++sc->nsets : 0;
	mpsfix_strvec_release(&sc->visited);
	mpsfix_strvec_push(&sc->visited, real);
	if (!mpsfix_pins__read_file(sc, &b, path, rel))
		goto done;
	dir = mpsfix_xstrdup(path);
	slash = strrchr(dir, '/');
	*(slash == dir ? slash + 1 : slash) = '\0';
	scan_data(sc, format, rel, dir, b.data ? b.data : "", b.len);
done:
	sc->set = 0;
	mpsfix_buf_release(&b);
	free(dir);
	free(real);
	free(path);
}

/*
 * The names in folder `sub` of the root (or the root itself, "") that match
 * `glob`, sorted, each prefixed with `sub/`.  Not a folder: none.
 */
static int list_names(mpsfix_strvec *out, const mpsfix_pins_scan *sc, const char *sub,
		      const char *glob)
{
	size_t before = out->len;
	char *path = *sub ? mpsfix_path_join(sc->root, sub) : mpsfix_xstrdup(sc->root);
	DIR *d = opendir(path);
	struct dirent *e;
	int error = 0;

	if (!d) {
		if (*sub == '\0')
			error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read the folder for torch "
						 "pins: %s", path, strerror(errno));
		free(path);
		return error;
	}
	while ((e = readdir(d)) != NULL)
		if (!fnmatch(glob, e->d_name, 0))
			mpsfix_strvec_push_owned(out, *sub ? mpsfix_xasprintf("%s/%s", sub, e->d_name)
							   : mpsfix_xstrdup(e->d_name));
	closedir(d);
	free(path);
	mpsfix_strvec_sort(out, before);
	return 0;
}

/* The files read besides the requirement files, in this order. */
static const struct {
	const char *name;
	mpsfix_pins_format format;
} fixed[] = {
	{"pyproject.toml", MPSFIX_PINS_PYPROJECT},
	{"setup.cfg", MPSFIX_PINS_SETUP_CFG},
	{"setup.py", MPSFIX_PINS_SETUP_PY},
	{"environment.yml", MPSFIX_PINS_CONDA_ENV},
	{"environment.yaml", MPSFIX_PINS_CONDA_ENV},
};

bool mpsfix_pins_present(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		found = !fnmatch("requirements*.txt", e->d_name, 0) || !strcmp(e->d_name, "requirements");
		for (size_t i = 0; !found && i < MPSFIX_ARRAY_SIZE(fixed); i++)
			found = !strcmp(e->d_name, fixed[i].name);
	}
	closedir(d);
	return found;
}

int mpsfix_pins_find(mpsfix_pins *out, const char *root)
{
	mpsfix_pins extra = MPSFIX_PINS_INIT;
	mpsfix_pins_scan sc = {.out = out, .extra = &extra};
	mpsfix_strvec reqs = MPSFIX_STRVEC_INIT;
	int error;

	if (!(sc.root = realpath(root, NULL))) {
		error = mpsfix_error_set(MPSFIX_ERROR, "%s: cannot read the folder for torch pins: %s",
					 root, strerror(errno));
		goto done;
	}
	if ((error = list_names(&reqs, &sc, "", "requirements*.txt")) < 0)
		goto done;
	/* then the *.txt of requirements/ (when there is such a folder) */
	if ((error = list_names(&reqs, &sc, "requirements", "*.txt")) < 0)
		goto done;
	for (size_t i = 0; i < reqs.len; i++)
		scan_file(&sc, MPSFIX_PINS_REQUIREMENTS, reqs.items[i]);
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(fixed); i++)
		scan_file(&sc, fixed[i].format, fixed[i].name);
done:
	mpsfix_pins__finish(&sc);
	mpsfix_strvec_release(&reqs);
	mpsfix_strvec_release(&sc.visited);
	mpsfix_strvec_release(&sc.tops);
	free(sc.root);
	return error;
}

void mpsfix_pins_release(mpsfix_pins *p)
{
	for (size_t i = 0; i < p->len; i++) {
		free(p->items[i].file);
		free(p->items[i].text);
	}
	free(p->items);
	for (size_t i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	memset(p, 0, sizeof(*p));
}
