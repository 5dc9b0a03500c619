/*
 * pins_python.c: torch pins in pip's and Python packaging's files: PEP 508
 * requirement strings, requirement files (with their -r/-c includes),
 * pyproject.toml (through the TOML reader of toml.c) and setup.cfg.
 * setup.py has a file of its own, pins_setup.c.
 */
#include "pins.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ini.h"
#include "pins_internal.h"
#include "text.h"
#include "toml.h"

/* --- requirement strings ------------------------------------------------------------- */

/*
 * A wheel file name or URL ("https://x/torch-2.1.0%2Bcpu-cp311-...whl",
 * "./wheels/torch-2.1.0-....whl"): 0 with the version's range when it is a
 * torch wheel, else MPSFIX_ENOMATCH.
 */
static int wheel_version(mpsfix_torch_range *out, mpsfix_text_slice url)
{
	const char *base, *v, *end;
	size_t n;

	url = mpsfix_text_trim(url);
	/* "...whl#sha256=..." or "...whl?x=y": the file name ends before */
	for (size_t i = 0; i < url.n; i++)
		if (url.s[i] == '#' || url.s[i] == '?') {
			url.n = i;
			break;
		}
	if (url.n < 4 || strncasecmp(url.s + url.n - 4, ".whl", 4) != 0)
		return MPSFIX_ENOMATCH;
	base = url.s;
	for (size_t i = 0; i < url.n; i++)
		if (url.s[i] == '/' || url.s[i] == '\\')
			base = url.s + i + 1;
	n = (size_t)(url.s + url.n - base);
	if (n < 6 || strncasecmp(base, "torch-", 6) != 0)
		return MPSFIX_ENOMATCH;
	v = base + 6;
	end = memchr(v, '-', (size_t)(url.s + url.n - v));
	if (!end)
		return MPSFIX_ENOMATCH;
	/* "2.1.0%2Bcpu": the local part does not matter */
	for (const char *q = v; q < end; q++)
		if (*q == '%' || *q == '+') {
			end = q;
			break;
		}
	{
		char spec[64];

		if ((size_t)(end - v) + 3 > sizeof(spec))
			return mpsfix_error_set(MPSFIX_ERROR, "the wheel's version is too long");
		snprintf(spec, sizeof(spec), "==%.*s", (int)(end - v), v);
		return mpsfix_torch_range_parse(out, spec, strlen(spec), MPSFIX_TORCH_SYNTAX_PIP);
	}
}

int mpsfix_pins_parse_requirement(mpsfix_torch_range *out, const char *req, size_t len)
{
	mpsfix_text_slice t = mpsfix_text_trim((mpsfix_text_slice){req, len}), name, spec;
	size_t i = 0;
	const char *semi;

	while (i < t.n && mpsfix_pins__is_name_char(t.s[i]))
		i++;
	name = (mpsfix_text_slice){t.s, i};
	if (!name.n || (name.n > 4 && !strncasecmp(name.s + name.n - 4, ".whl", 4)))
		return wheel_version(out, t); /* a bare URL or path, a wheel's file name */
	if (!mpsfix_pins__same_name(name, "torch")) {
		/* a path to a wheel ("./wheels/torch-2.1.0-...whl") starts like a name */
		if (i < t.n && (t.s[i] == '/' || t.s[i] == ':'))
			return wheel_version(out, t);
		return MPSFIX_ENOMATCH;
	}
	while (i < t.n && isspace((unsigned char)t.s[i]))
		i++;
	if (i < t.n && t.s[i] == '[') {
		const char *close = memchr(t.s + i, ']', t.n - i);

		if (!close)
			return mpsfix_error_set(MPSFIX_ERROR, "the extras are not closed with ']'");
		i = (size_t)(close - t.s) + 1;
		while (i < t.n && isspace((unsigned char)t.s[i]))
			i++;
	}
	if (i < t.n && t.s[i] == '@') {
		/* a direct reference: "torch @ URL ; marker" */
		mpsfix_text_slice url = {t.s + i + 1, t.n - i - 1};
		const char *sp = NULL;

		for (size_t k = 0; k < url.n; k++)
			if (url.s[k] == ';' && k > 0 && isspace((unsigned char)url.s[k - 1])) {
				sp = url.s + k;
				break;
			}
		if (sp)
			url.n = (size_t)(sp - url.s);
		return wheel_version(out, url);
	}
	if (i < t.n && t.s[i] == '/')
		return wheel_version(out, t);
	semi = memchr(t.s + i, ';', t.n - i);
	spec = mpsfix_text_trim((mpsfix_text_slice){t.s + i,
						    (size_t)((semi ? semi : t.s + t.n) - (t.s + i))});
	if (!spec.n)
		return MPSFIX_ENOMATCH;
	return mpsfix_torch_range_parse(out, spec.s, spec.n, MPSFIX_TORCH_SYNTAX_PIP);
}

/* Is the package of requirement `t` torch (pip's name, then an end, blanks, '[', '@' or a specifier)? */
static bool names_torch(mpsfix_text_slice t)
{
	size_t i = 0;

	t = mpsfix_text_trim(t);
	while (i < t.n && mpsfix_pins__is_name_char(t.s[i]))
		i++;
	return mpsfix_pins__same_name((mpsfix_text_slice){t.s, i}, "torch");
}

/*
 * Packages whose releases from `since` on require torch `floor` or newer,
 * as their own setup.py says.  A requirement that admits only those
 * releases implies the floor.
 */
static const struct {
	const char *name;
	mpsfix_torch_ver since, floor;
} implies[] = {
	/* accelerate's setup.py: "torch>=2.0.0" from v1.3.0 on ("Bye bye torch <2",
	   huggingface/accelerate#3331, b13aadcb); "torch>=1.10.0" in v1.2.x */
	{"accelerate", MPSFIX_TORCH_VER(1, 3), MPSFIX_TORCH_VER(2, 0)},
};

int mpsfix_pins_implied(mpsfix_torch_range *out, const char *req, size_t len)
{
	mpsfix_text_slice t = mpsfix_text_trim((mpsfix_text_slice){req, len}), name, spec;
	mpsfix_torch_range asked;
	const char *semi;
	size_t i = 0;

	while (i < t.n && mpsfix_pins__is_name_char(t.s[i]))
		i++;
	name = (mpsfix_text_slice){t.s, i};
	while (i < t.n && isspace((unsigned char)t.s[i]))
		i++;
	if (i < t.n && t.s[i] == '[') { /* extras */
		const char *close = memchr(t.s + i, ']', t.n - i);

		if (!close)
			return MPSFIX_ENOMATCH;
		i = (size_t)(close - t.s) + 1;
	}
	semi = memchr(t.s + i, ';', t.n - i);
	spec = mpsfix_text_trim((mpsfix_text_slice){t.s + i, (size_t)((semi ? semi : t.s + t.n) - (t.s + i))});
	for (size_t k = 0; k < MPSFIX_ARRAY_SIZE(implies); k++) {
		if (!mpsfix_pins__same_name(name, implies[k].name) || !spec.n || spec.s[0] == '@')
			continue;
		/* the package's versions are read as torch's are (PEP 440, to the minor) */
		if (mpsfix_torch_range_parse(&asked, spec.s, spec.n, MPSFIX_TORCH_SYNTAX_PIP) < 0 ||
		    asked.lo < implies[k].since)
			return MPSFIX_ENOMATCH;
		*out = (mpsfix_torch_range){implies[k].floor, MPSFIX_TORCH_NEWEST};
		return 0;
	}
	return MPSFIX_ENOMATCH;
}

void mpsfix_pins__requirement(mpsfix_pins_scan *sc, const char *name, uint32_t line, mpsfix_text_slice t)
{
	mpsfix_torch_range r;
	int rc = mpsfix_pins_parse_requirement(&r, t.s, t.n);
	bool torch = rc != MPSFIX_ENOMATCH || names_torch(t);

	if (!torch && sc->implies && !sc->optional && mpsfix_pins_implied(&r, t.s, t.n) == 0)
		mpsfix_pins__take_implied(sc, name, line, t, r);
	else
		mpsfix_pins__take(sc, name, line, t, rc, r, torch);
}

/* --- requirement files --------------------------------------------------------------- */

/* `rel` relative to the root when `real` is inside it, else NULL. */
static const char *inside_root(const mpsfix_pins_scan *sc, const char *real)
{
	size_t n = strlen(sc->root);

	if (!strcmp(sc->root, "/"))
		return real + 1;
	if (!strncmp(real, sc->root, n) && real[n] == '/')
		return real + n + 1;
	return NULL;
}

/* `-r FILE` / `-c FILE` in file `name` (line `line`), relative to folder `dir`. */
static void include(mpsfix_pins_scan *sc, const char *name, uint32_t line, const char *dir,
		    mpsfix_text_slice target)
{
	char *path = NULL, *real = NULL, *inc_dir = NULL, *slash;
	const char *rel;
	mpsfix_buf b = MPSFIX_BUF_INIT;

	target = mpsfix_text_trim(target);
	if (!sc->root || !target.n)
		return;
	for (size_t i = 0; i + 3 <= target.n; i++)
		if (!memcmp(target.s + i, "://", 3))
			return; /* a URL: nothing of the project's */
	if (target.n > 5 && !strncmp(target.s, "file:", 5) && target.s[5] != '/')
		target = (mpsfix_text_slice){target.s + 5, target.n - 5};
	path = target.s[0] == '/' ? mpsfix_xstrndup(target.s, target.n)
				  : mpsfix_xasprintf("%s/%.*s", dir, (int)target.n, target.s);
	if (!(real = realpath(path, NULL))) {
		mpsfix_pins__warn(sc, "%s:%u: cannot read the included file '%.*s': %s", name, line,
				  (int)target.n, target.s, strerror(errno));
		goto done;
	}
	if (mpsfix_pins__visited(sc, real))
		goto done; /* read already for this set (a file included twice, or a loop) */
	/* outside the root, but read as one of the root's own files, by a name
	   (a link) inside it: that name */
	if (!(rel = inside_root(sc, real)) && mpsfix_strvec_has(&sc->tops, real))
		rel = inside_root(sc, path);
	if (!rel) {
		mpsfix_pins__warn(sc, "%s:%u: the included file '%.*s' is outside the project folder; "
				  "its torch pins are not read", name, line, (int)target.n, target.s);
		goto done;
	}
	if (mpsfix_pins__seen(sc, real) || !mpsfix_pins__read_file(sc, &b, real, rel))
		goto done;
	inc_dir = mpsfix_xstrdup(real);
	slash = strrchr(inc_dir, '/');
	*(slash == inc_dir ? slash + 1 : slash) = '\0';
	mpsfix_pins__scan_requirements(sc, rel, inc_dir, b.data ? b.data : "", b.len);
done:
	mpsfix_buf_release(&b);
	free(inc_dir);
	free(real);
	free(path);
}

/*
 * One logical line of a requirements file (comments and continuations
 * already folded): an option, or a requirement with options after it.
 */
void mpsfix_pins__requirement_line(mpsfix_pins_scan *sc, const char *name, uint32_t line,
				   const char *dir, mpsfix_text_slice t)
{
	static const char *const includes[] = {"--requirement", "--constraint", "-r", "-c"};

	t = mpsfix_text_trim(t);
	if (!t.n)
		return;
	if (t.s[0] == '-') {
		for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(includes); i++) {
			size_t n = strlen(includes[i]);

			if (t.n <= n || strncmp(t.s, includes[i], n) != 0)
				continue;
			if (n > 2 && t.s[n] != '=' && !isspace((unsigned char)t.s[n]))
				continue; /* --requirementsX: another option */
			if (dir)
				include(sc, name, line, dir, (mpsfix_text_slice){t.s + n + (t.s[n] == '='),
										 t.n - n - (t.s[n] == '=')});
			return;
		}
		return; /* -e, -i, --index-url, --find-links...: not a pin */
	}
	/* per-requirement options start at the first word that starts with '-' (as pip splits) */
	for (size_t i = 1; i + 1 < t.n; i++)
		if (t.s[i] == '-' && isspace((unsigned char)t.s[i - 1])) {
			t = mpsfix_text_trim((mpsfix_text_slice){t.s, i});
			break;
		}
	mpsfix_pins__requirement(sc, name, line, t);
}

/*
 * A requirements file's text as pip decodes it: past a UTF-8 byte-order
 * mark, or from UTF-16 with one (PowerShell's `pip freeze > requirements.txt`
 * writes that); characters outside ASCII, which no pin holds, become '?'.
 */
static void requirements_text(mpsfix_buf *utf16, const char **data, size_t *len)
{
	const unsigned char *u = (const unsigned char *)*data;
	bool le;

	if (*len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
		*data += 3;
		*len -= 3;
		return;
	}
	if (*len < 2 || !((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF)))
		return;
	le = u[0] == 0xFF;
	for (size_t k = 2; k + 1 < *len; k += 2) {
		unsigned c = le ? (unsigned)u[k] | (unsigned)u[k + 1] << 8 : (unsigned)u[k] << 8 | (unsigned)u[k + 1];

		mpsfix_buf_addc(utf16, c < 0x80 ? (char)c : '?');
	}
	*data = utf16->data ? utf16->data : "";
	*len = utf16->len;
}

/*
 * A pip requirements file: '#' starts a comment at the start of a line or
 * after a blank; a line ending in '\' goes on on the next line.
 */
void mpsfix_pins__scan_requirements(mpsfix_pins_scan *sc, const char *name, const char *dir,
				    const char *data, size_t len)
{
	mpsfix_buf logical = MPSFIX_BUF_INIT, utf16 = MPSFIX_BUF_INIT;
	uint32_t line = 1, start_line = 1;
	size_t i = 0;
	bool was_implied = sc->implies;

	requirements_text(&utf16, &data, &len);

	/* the project's requirements.txt installs what it names; requirements-docs.txt,
	   a constraints file or another included file need not */
	sc->implies = !strcmp(name, "requirements.txt");

	while (i < len) {
		size_t eol = i, next;
		mpsfix_text_slice t;
		bool cont;

		while (eol < len && data[eol] != '\n')
			eol++;
		next = eol < len ? eol + 1 : len;
		t = (mpsfix_text_slice){data + i, eol - i};
		if (t.n && t.s[t.n - 1] == '\r')
			t.n--;
		/* a comment: '#' at the start or after a blank */
		for (size_t k = 0; k < t.n; k++)
			if (t.s[k] == '#' && (k == 0 || isspace((unsigned char)t.s[k - 1]))) {
				t.n = k;
				break;
			}
		cont = t.n && t.s[t.n - 1] == '\\';
		if (cont)
			t.n--;
		if (!logical.len)
			start_line = line;
		mpsfix_buf_add(&logical, t.s, t.n);
		if (!cont || next >= len) {
			mpsfix_pins__requirement_line(sc, name, start_line, dir,
						      (mpsfix_text_slice){logical.data, logical.len});
			mpsfix_buf_clear(&logical);
		}
		line++;
		i = next;
	}
	mpsfix_buf_release(&logical);
	mpsfix_buf_release(&utf16);
	sc->implies = was_implied;
}

/* --- pyproject.toml ------------------------------------------------------------------ */


/* The file being read (mpsfix_toml_read's payload). */
typedef struct {
	mpsfix_pins_scan *sc;
	const char *name;
	uint32_t main_set; /* [project] dependencies and uv's constraints: installed together */
} pyproject;

/* A string value at `path`: is it a torch pin? */
static void pyproject_string(void *payload, const mpsfix_toml_path *path, const char *value,
			     uint32_t line)
{
	pyproject *pp = payload;
	size_t n = path->len, dep = 0;
	mpsfix_text_slice v = {value, strlen(value)};
	mpsfix_torch_range r;
	int rc;

	/* PEP 508 requirement lists; the optional dependencies (extras) count when nothing else names torch */
	if (n == 3 && mpsfix_toml_path_is(path, 0, "project") &&
	    mpsfix_toml_path_is(path, 1, "optional-dependencies")) {
		pp->sc->optional = true;
		mpsfix_pins__requirement(pp->sc, pp->name, line, v);
		pp->sc->optional = false;
		return;
	}
	if ((n == 2 && mpsfix_toml_path_is(path, 0, "project") && mpsfix_toml_path_is(path, 1, "dependencies")) ||
	    (n == 3 && mpsfix_toml_path_is(path, 0, "tool") && mpsfix_toml_path_is(path, 1, "uv") &&
	     mpsfix_toml_path_is(path, 2, "constraint-dependencies"))) {
		/* what installing the project installs, and uv's constraints on it */
		pp->sc->implies = mpsfix_toml_path_is(path, 0, "project");
		pp->sc->set = pp->main_set ? pp->main_set : (pp->main_set = ++pp->sc->nsets);
		mpsfix_pins__requirement(pp->sc, pp->name, line, v);
		pp->sc->implies = false;
		pp->sc->set = 0;
		return;
	}
	if ((n == 2 && mpsfix_toml_path_is(path, 0, "dependency-groups")) ||
	    (n == 3 && mpsfix_toml_path_is(path, 0, "tool") && mpsfix_toml_path_is(path, 1, "uv") &&
	     (mpsfix_toml_path_is(path, 2, "override-dependencies") ||
	      mpsfix_toml_path_is(path, 2, "dev-dependencies")))) {
		mpsfix_pins__requirement(pp->sc, pp->name, line, v);
		return;
	}
	/* Poetry: tool.poetry[.group.G].(dev-)dependencies.NAME[.version|url|path|file] */
	if (n < 4 || !mpsfix_toml_path_is(path, 0, "tool") || !mpsfix_toml_path_is(path, 1, "poetry"))
		return;
	if (mpsfix_toml_path_is(path, 2, "dependencies") || mpsfix_toml_path_is(path, 2, "dev-dependencies"))
		dep = 3;
	else if (mpsfix_toml_path_is(path, 2, "group") && mpsfix_toml_path_is(path, 4, "dependencies"))
		dep = 5;
	if (!dep || dep >= n ||
	    !mpsfix_pins__same_name((mpsfix_text_slice){path->keys[dep], strlen(path->keys[dep])}, "torch"))
		return;
	if (n == dep + 1 || (n == dep + 2 && mpsfix_toml_path_is(path, dep + 1, "version"))) {
		rc = mpsfix_torch_range_parse(&r, v.s, v.n, MPSFIX_TORCH_SYNTAX_POETRY);
		mpsfix_pins__take(pp->sc, pp->name, line, v, rc, r, true);
	} else if (n == dep + 2 && (mpsfix_toml_path_is(path, dep + 1, "url") ||
				    mpsfix_toml_path_is(path, dep + 1, "path") ||
				    mpsfix_toml_path_is(path, dep + 1, "file"))) {
		rc = wheel_version(&r, v);
		mpsfix_pins__take(pp->sc, pp->name, line, v, rc, r, true);
	}
}

/* pyproject.toml, read with the TOML reader of toml.c: its first problem ends the file's pins. */
void mpsfix_pins__scan_pyproject(mpsfix_pins_scan *sc, const char *name, const char *data, size_t len)
{
	pyproject pp = {sc, name, 0};
	uint32_t line = 0;

	if (mpsfix_toml_read(data, len, pyproject_string, &pp, &line) < 0)
		mpsfix_pins__warn(sc, "%s:%u: not read for torch pins: %s", name, line,
				  mpsfix_error_last()->message);
}

/* --- setup.cfg ----------------------------------------------------------------------- */

/* One item of a setup.cfg value, with its line. */
typedef struct {
	mpsfix_text_slice text;
	uint32_t line;
} cfg_item;

typedef ARRAY(cfg_item) cfg_items;

/*
 * The items of one value: a value on its key's line alone is split at ';'
 * (as setuptools reads a one-line list), else each line is one requirement.
 */
static void cfg_value(mpsfix_pins_scan *sc, const char *name, cfg_items *items, bool continued,
		      bool optional)
{
	for (size_t i = 0; i < items->len; i++) {
		mpsfix_text_slice rest = items->items[i].text;

		while (rest.n) {
			const char *semi = continued ? NULL : memchr(rest.s, ';', rest.n);
			mpsfix_text_slice item = {rest.s, semi ? (size_t)(semi - rest.s) : rest.n};

			rest = semi ? (mpsfix_text_slice){semi + 1, rest.n - item.n - 1}
				    : (mpsfix_text_slice){rest.s + rest.n, 0};
			/* an inline comment: '#' after a blank (a requirement never has one) */
			for (size_t k = 0; k < item.n; k++)
				if (item.s[k] == '#' && (k == 0 || isspace((unsigned char)item.s[k - 1]))) {
					item.n = k;
					break;
				}
			item = mpsfix_text_trim(item);
			if (!item.n)
				continue;
			sc->optional = optional;
			sc->implies = !optional; /* install_requires */
			mpsfix_pins__requirement(sc, name, items->items[i].line, item);
			sc->optional = sc->implies = false;
		}
	}
	items->len = 0;
}

/* A setup.cfg being read (mpsfix_ini_read's payload): the value being collected. */
typedef struct {
	mpsfix_pins_scan *sc;
	const char *name;
	cfg_items items;
	bool collecting, continued, optional;
} setup_cfg;

/* A line of a value: `install_requires` in [options], every key of [options.extras_require]. */
static void setup_cfg_line(void *payload, const mpsfix_ini_line *l)
{
	setup_cfg *c = payload;

	if (l->continued) {
		if (c->collecting)
			ARRAY_PUSH(&c->items, ((cfg_item){l->value, l->line}));
		c->continued = true;
		return;
	}
	cfg_value(c->sc, c->name, &c->items, c->continued, c->optional);
	c->continued = false;
	c->optional = mpsfix_ini_name_is(l->section, "options.extras_require");
	c->collecting = c->optional || (l->section.n == 7 && !strncmp(l->section.s, "options", 7) &&
					mpsfix_ini_name_is(l->key, "install_requires"));
	if (c->collecting && l->value.n)
		ARRAY_PUSH(&c->items, ((cfg_item){l->value, l->line}));
}

/*
 * setup.cfg (INI, as configparser reads it: ini.h): `install_requires` in
 * [options], every key of [options.extras_require]; a value goes on on the
 * indented lines below its key.
 */
void mpsfix_pins__scan_setup_cfg(mpsfix_pins_scan *sc, const char *name, const char *data, size_t len)
{
	setup_cfg c = {.sc = sc, .name = name};

	mpsfix_ini_read(data, len, setup_cfg_line, &c);
	cfg_value(sc, name, &c.items, c.continued, c.optional);
	free(c.items.items);
}
