/*
 * check_pins.c: torch pins in requirement files, pyproject.toml, setup.cfg,
 * setup.py and environment.yml; includes, loops and the project folder.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pins.h"
#include "tests.h"
#include "toml.h"

#define V(a, b) MPSFIX_TORCH_VER(a, b)
#define ANY MPSFIX_TORCH_ANY_MINOR
#define NEWEST MPSFIX_TORCH_NEWEST
#define NOPE MPSFIX_ENOMATCH
#define BAD MPSFIX_ERROR

typedef struct {
	const char *text;
	int rc;
	mpsfix_torch_ver lo, hi;
} req_case;

static const req_case requirements[] = {
	{"torch==2.1.0", 0, V(2, 1), V(2, 1)},
	{"torch>=2.4", 0, V(2, 4), NEWEST},
	{"  Torch >= 2.4 ", 0, V(2, 4), NEWEST},
	{"TORCH==2.1", 0, V(2, 1), V(2, 1)},
	{"torch==2.1.0+cu118", 0, V(2, 1), V(2, 1)},
	{"torch==2.1.0a0", 0, V(2, 1), V(2, 1)},
	{"torch==2.1.*", 0, V(2, 1), V(2, 1)},
	{"torch~=2.1", 0, V(2, 1), V(2, ANY)},
	{"torch>=2.0,!=2.2.0,<2.4", 0, V(2, 0), V(2, 3)},
	{"torch[opt]==2.1", 0, V(2, 1), V(2, 1)},
	{"torch [opt, dev] == 2.1.0", 0, V(2, 1), V(2, 1)},
	{"torch==2.1.0; sys_platform == \"darwin\"", 0, V(2, 1), V(2, 1)},
	{"torch>=2.0,<2.3 ; python_version >= '3.8'", 0, V(2, 0), V(2, 2)},
	{"torch (>=2.0)", 0, V(2, 0), NEWEST},
	{"torch @ https://download.pytorch.org/whl/cpu/torch-2.1.0%2Bcpu-cp311-cp311-linux_x86_64.whl",
	 0, V(2, 1), V(2, 1)},
	{"torch@https://x/torch-2.2.1-cp311-none-macosx_11_0_arm64.whl ; sys_platform == 'darwin'",
	 0, V(2, 2), V(2, 2)},
	{"https://download.pytorch.org/whl/torch-2.2.1-cp311-none-macosx_11_0_arm64.whl", 0, V(2, 2), V(2, 2)},
	{"./wheels/torch-2.0.1-cp310-none-macosx_11_0_arm64.whl", 0, V(2, 0), V(2, 0)},
	{"wheels/torch-2.0.1+cpu-cp310-none-macosx_11_0_arm64.whl", 0, V(2, 0), V(2, 0)},
	{"torch-2.3.0-cp311-none-macosx_11_0_arm64.whl", 0, V(2, 3), V(2, 3)},
	{"torch @ https://x/torch-2.4.1-cp312-none-macosx_11_0_arm64.whl#sha256=0123abcd", 0, V(2, 4), V(2, 4)},
	{"torch @ file:///wheels/TORCH-2.0.0-cp311-none-any.whl", 0, V(2, 0), V(2, 0)},
	{"torch @ https://x/torch-latest.tar.gz", NOPE, 0, 0},
	{"torch @ https://x/torch-2.x-cp311-none-any.whl", BAD, 0, 0},
	{"torch @ git+https://github.com/pytorch/pytorch@v2.1.0", NOPE, 0, 0},
	{"torchvision-0.16.0-cp311-cp311-macosx_11_0_arm64.whl", NOPE, 0, 0},
	{"torch", NOPE, 0, 0},
	{"torch[opt]", NOPE, 0, 0},
	{"torch ; sys_platform == 'darwin'", NOPE, 0, 0},
	{"torch!=2.2.0", NOPE, 0, 0},
	{"torchvision==0.16.0", NOPE, 0, 0},
	{"torchaudio>=2.1", NOPE, 0, 0},
	{"pytorch-lightning==2.1", NOPE, 0, 0},
	{"torch-geometric==2.4", NOPE, 0, 0},
	{"torch_geometric>=2.4", NOPE, 0, 0},
	{"pytorch==2.1", NOPE, 0, 0},
	{"numpy==1.26", NOPE, 0, 0},
	{"", NOPE, 0, 0},
	{"torch==banana", BAD, 0, 0},
	{"torch[opt==2.1", BAD, 0, 0},
	{"torch==${TORCH_VERSION}", BAD, 0, 0},
	{"torch 2.1", BAD, 0, 0},
};

START_TEST(test_pins_requirement)
{
	const req_case *c = &requirements[_i];
	mpsfix_torch_range r = {1, 1};
	int rc = mpsfix_pins_parse_requirement(&r, c->text, strlen(c->text));

	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d (%s)", c->text, rc, c->rc,
		      mpsfix_error_last()->message);
	if (rc == 0)
		ck_assert_msg(r.lo == c->lo && r.hi == c->hi, "'%s': [%x, %x]", c->text, r.lo, r.hi);
}
END_TEST

/* floors other packages' requirements imply (accelerate from 1.3.0 on requires torch>=2.0.0) */
static const req_case implied[] = {
	{"accelerate>=1.4.0", 0, V(2, 0), NEWEST},
	{"accelerate>=1.3.0", 0, V(2, 0), NEWEST},
	{"accelerate==1.3.0", 0, V(2, 0), NEWEST},
	{"Accelerate ~= 1.10", 0, V(2, 0), NEWEST},
	{"accelerate[testing]>=1.4 ; python_version >= '3.9'", 0, V(2, 0), NEWEST},
	{"accelerate>1.2", NOPE, 0, 0},            /* 1.2.1 is newer than 1.2 */
	{"accelerate>=1.2.1", NOPE, 0, 0},         /* 1.2.x allows torch>=1.10 */
	{"accelerate>=0.31.0", NOPE, 0, 0},
	{"accelerate<2", NOPE, 0, 0},
	{"accelerate", NOPE, 0, 0},
	{"accelerate @ git+https://github.com/huggingface/accelerate", NOPE, 0, 0},
	{"accelerate>=banana", NOPE, 0, 0},
	{"accelerator>=1.4", NOPE, 0, 0},
	{"torch>=1.13", NOPE, 0, 0},
};

START_TEST(test_pins_implied)
{
	const req_case *c = &implied[_i];
	mpsfix_torch_range r = {1, 1};
	int rc = mpsfix_pins_implied(&r, c->text, strlen(c->text));

	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d", c->text, rc, c->rc);
	if (rc == 0)
		ck_assert_msg(r.lo == c->lo && r.hi == c->hi, "'%s': [%x, %x]", c->text, r.lo, r.hi);
}
END_TEST

START_TEST(test_pins_implied_in_list)
{
	mpsfix_pins p = MPSFIX_PINS_INIT;
	static const char text[] = "numpy\naccelerate>=1.4.0\ntorchvision\n";
	static const char extras[] = "[project.optional-dependencies]\ntrain = ['accelerate>=1.4']\n"
				     "[dependency-groups]\ndev = ['accelerate>=1.4']\n";
	static const char deps[] = "[project]\ndependencies = ['accelerate>=1.4']\n";

	mpsfix_pins_scan_buffer(&p, MPSFIX_PINS_REQUIREMENTS, "requirements.txt", text, strlen(text));
	ck_assert_uint_eq(p.len, 1);
	ck_assert(p.items[0].implied);
	ck_assert_uint_eq(p.items[0].line, 2);
	ck_assert_str_eq(p.items[0].text, "accelerate>=1.4.0");
	ck_assert(!p.names_torch); /* an implied floor does not name torch */
	mpsfix_pins_release(&p);
	/* only what installing the project installs implies one */
	mpsfix_pins_scan_buffer(&p, MPSFIX_PINS_REQUIREMENTS, "requirements-docs.txt", text, strlen(text));
	ck_assert_uint_eq(p.len, 0);
	mpsfix_pins_scan_buffer(&p, MPSFIX_PINS_PYPROJECT, "pyproject.toml", extras, strlen(extras));
	ck_assert_uint_eq(p.len, 0);
	mpsfix_pins_scan_buffer(&p, MPSFIX_PINS_PYPROJECT, "pyproject.toml", deps, strlen(deps));
	ck_assert_uint_eq(p.len, 1);
	ck_assert(p.items[0].implied);
	mpsfix_pins_release(&p);
}
END_TEST

static const req_case conda[] = {
	{"pytorch=2.1", 0, V(2, 1), V(2, 1)},
	{"pytorch==2.1.0", 0, V(2, 1), V(2, 1)},
	{"pytorch>=2.0,<2.3", 0, V(2, 0), V(2, 2)},
	{"pytorch 2.1.* cuda*", 0, V(2, 1), V(2, 1)},
	{"pytorch 2.1.0 py3.10_0", 0, V(2, 1), V(2, 1)},
	{"pytorch=2.1.0=py3.10_cuda11.8_cudnn8.7.0_0", 0, V(2, 1), V(2, 1)},
	{"pytorch::pytorch=2.2", 0, V(2, 2), V(2, 2)},
	{"conda-forge/osx-arm64::pytorch>=2.1", 0, V(2, 1), NEWEST},
	{"pytorch[version='>=2.0,<2.3']", 0, V(2, 0), V(2, 2)},
	{"pytorch=2.0|2.2", 0, V(2, 0), V(2, 2)},
	{"PyTorch=2.1", 0, V(2, 1), V(2, 1)},
	{"pytorch", NOPE, 0, 0},
	{"pytorch *", NOPE, 0, 0},
	{"pytorch-cuda=11.8", NOPE, 0, 0},
	{"pytorch-lightning=2.1", NOPE, 0, 0},
	{"torchvision=0.16", NOPE, 0, 0},
	{"torch=2.1", NOPE, 0, 0},
	{"pytorch=banana", BAD, 0, 0},
	{"pytorch[version='>=2.0]", BAD, 0, 0},
};

START_TEST(test_pins_conda_spec)
{
	const req_case *c = &conda[_i];
	mpsfix_torch_range r = {1, 1};
	int rc = mpsfix_pins_parse_conda(&r, c->text, strlen(c->text));

	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d (%s)", c->text, rc, c->rc,
		      mpsfix_error_last()->message);
	if (rc == 0)
		ck_assert_msg(r.lo == c->lo && r.hi == c->hi, "'%s': [%x, %x]", c->text, r.lo, r.hi);
}
END_TEST

/* The pins of `data`, as "file:line range" lines (optional ones marked), and the warnings after "!". */
static char *scan_text(mpsfix_pins_format format, const char *name, const char *data)
{
	mpsfix_pins p = MPSFIX_PINS_INIT;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char buf[MPSFIX_TORCH_RANGE_STRMAX];

	mpsfix_pins_scan_buffer(&p, format, name, data, strlen(data));
	for (size_t i = 0; i < p.len; i++)
		mpsfix_buf_printf(&b, "%s:%u %s%s\n", p.items[i].file, p.items[i].line,
				  mpsfix_torch_range_format(buf, p.items[i].range),
				  p.items[i].optional ? " (optional)" : "");
	for (size_t i = 0; i < p.nwarnings; i++)
		mpsfix_buf_printf(&b, "! %s\n", p.warnings[i]);
	mpsfix_pins_release(&p);
	return mpsfix_buf_detach(&b, NULL);
}

static void expect_scan(mpsfix_pins_format format, const char *name, const char *data,
			const char *want)
{
	char *got = scan_text(format, name, data);

	ck_assert_msg(!strcmp(got, want), "%s:\n--- got\n%s--- expected\n%s", name, got, want);
	free(got);
}

START_TEST(test_pins_requirements_file)
{
	expect_scan(MPSFIX_PINS_REQUIREMENTS, "requirements.txt",
		    "# torch==1.0 in a comment\n"
		    "numpy==1.26  # torch==1.1\n"
		    "torchvision==0.16.0\n"
		    "torch==2.1.0 --hash=sha256:abc \\\n"
		    "    --hash=sha256:def\n"
		    "-r other.txt\n"
		    "--index-url https://download.pytorch.org/whl/cpu\n"
		    "-e git+https://github.com/x/torch-thing#egg=torch-thing\n"
		    "torch>=2.0 ; sys_platform == \"darwin\"\r\n"
		    "torch==oops\n"
		    "torch\n"
		    "torch#==1.2\n"
		    "torch>=1.13 \\\n"
		    "  ,<2.0",
		    "requirements.txt:4 2.1\n"
		    "requirements.txt:9 >=2.0\n"
		    "requirements.txt:13 >=1.13,<2.0\n"
		    "! requirements.txt:10: torch pin 'torch==oops' ignored: 'oops' is not a version\n"
		    "! requirements.txt:12: torch pin 'torch#==1.2' ignored: '#==1.2' has no operator "
		    "(operators < <= > >= == === ~= !=)\n");
	expect_scan(MPSFIX_PINS_REQUIREMENTS, "r.txt", "", "");
	expect_scan(MPSFIX_PINS_REQUIREMENTS, "r.txt", "torch==2.2", "r.txt:1 2.2\n");
}
END_TEST

/* Whether a project names torch at all (targets.c passes over the folders that do not). */
START_TEST(test_pins_names_torch)
{
	static const struct {
		mpsfix_pins_format format;
		const char *text;
		bool names;
	} cases[] = {
		{MPSFIX_PINS_REQUIREMENTS, "numpy\ntorchvision==0.16\ntorch-geometric\n", false},
		{MPSFIX_PINS_REQUIREMENTS, "torch ; sys_platform == 'darwin'\n", true},
		{MPSFIX_PINS_REQUIREMENTS, "Torch[opt]\n", true},
		{MPSFIX_PINS_REQUIREMENTS, "torch==oops\n", true},
		{MPSFIX_PINS_REQUIREMENTS, "torch!=2.1\n", true},
		{MPSFIX_PINS_PYPROJECT, "[project.optional-dependencies]\ngpu = [\"torch\"]\n", true},
		{MPSFIX_PINS_PYPROJECT, "[tool.poetry.dependencies]\ntorch = \"*\"\n", true},
		{MPSFIX_PINS_PYPROJECT, "[project]\nname = \"torch\"\n", false},
		{MPSFIX_PINS_SETUP_PY, "def setup(trainer):\n    trainer.fit()\n", false},
		{MPSFIX_PINS_SETUP_PY, "setup(install_requires=[deps[\"torch\"]])\n", false},
		{MPSFIX_PINS_CONDA_ENV, "dependencies:\n  - pytorch\n", true},
		{MPSFIX_PINS_CONDA_ENV, "dependencies:\n  - pytorch-lightning=2.1\n", false},
	};

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(cases); i++) {
		mpsfix_pins p = MPSFIX_PINS_INIT;

		mpsfix_pins_scan_buffer(&p, cases[i].format, "f", cases[i].text, strlen(cases[i].text));
		ck_assert_msg(p.names_torch == cases[i].names, "case %zu: '%s'", i, cases[i].text);
		mpsfix_pins_release(&p);
	}
}
END_TEST

START_TEST(test_pins_pyproject)
{
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[build-system]\n"
		    "requires = [\"setuptools\", \"torch==1.13\"]   # build time, not a pin\n"
		    "\n"
		    "[project]\n"
		    "name = \"torch-thing\"\n"
		    "description = \"\"\"\n"
		    "dependencies = [\"torch==9.9\"]\n"
		    "\"\"\"\n"
		    "dependencies = [\n"
		    "    \"numpy\",\n"
		    "    # \"torch==1.0\",\n"
		    "    \"torch>=2.1,<2.4; platform_system == 'Darwin'\",  # a comment with ]\n"
		    "    'torchvision==0.16',\n"
		    "]\n"
		    "optional-dependencies.cpu = ['torch==2.0.1']\n"
		    "\n"
		    "[project.optional-dependencies]\n"
		    "gpu = [\"torch[cuda]==2.2.0\", \"torch-geometric==2.4\"]\n"
		    "\n"
		    "[project.urls]\n"
		    "torch = \"https://pytorch.org\"\n"
		    "\n"
		    "[dependency-groups]\n"
		    "dev = [\"torch ~= 2.3.0\", {include-group = \"test\"}]\n"
		    "\n"
		    "[tool.uv]\n"
		    "constraint-dependencies = [\"torch<2.6\"]\n"
		    "\n"
		    "[[tool.uv.index]]\n"
		    "name = \"torch\"\n",
		    "pyproject.toml:12 >=2.1,<2.4\n"
		    "pyproject.toml:24 2.3\n"
		    "pyproject.toml:27 <2.6\n");
	/* the optional dependencies count when nothing else names torch; their warnings too */
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[project]\n"
		    "dependencies = [\"numpy\", \"torchvision==0.16\"]\n"
		    "optional-dependencies.cpu = ['torch==2.0.1']\n"
		    "[project.optional-dependencies]\n"
		    "gpu = [\"torch[cuda]>=2.2.0\", \"torch==x\"]\n",
		    "pyproject.toml:3 2.0 (optional)\n"
		    "pyproject.toml:5 >=2.2 (optional)\n"
		    "! pyproject.toml:5: torch pin 'torch==x' ignored: 'x' is not a version\n");
	/* torch without a version names torch: the extras do not count, nor their warnings */
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[project]\n"
		    "dependencies = [\"torch ; sys_platform == 'darwin'\"]\n"
		    "[project.optional-dependencies]\n"
		    "gpu = [\"torch==2.2.0\", \"torch==x\"]\n",
		    "");
	/* so does a torch pin that cannot be read (a warning) */
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[project]\n"
		    "dependencies = [\"torch==y\"]\n"
		    "[project.optional-dependencies]\n"
		    "gpu = [\"torch==2.2.0\"]\n",
		    "! pyproject.toml:2: torch pin 'torch==y' ignored: 'y' is not a version\n");
	/* and Poetry's torch = "*" */
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[project.optional-dependencies]\n"
		    "gpu = [\"torch==2.2.0\"]\n"
		    "[tool.poetry.dependencies]\n"
		    "torch = \"*\"\n",
		    "");
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[tool.poetry.dependencies]\n"
		    "python = \"^3.10\"\n"
		    "torch = { version = \"^2.0\", source = \"pytorch\" }\n"
		    "Torch-Geometric = \"2.4\"\n"
		    "torchvision = \"0.16\"\n"
		    "\n"
		    "[tool.poetry.group.dev.dependencies]\n"
		    "torch = [\n"
		    "  { version = \"2.3.0\", markers = \"sys_platform == 'darwin'\" },\n"
		    "  { url = \"https://x/torch-2.0.1-cp311-none-linux_x86_64.whl\", markers = \"sys_platform == 'linux'\" },\n"
		    "]\n"
		    "[tool.poetry.dev-dependencies]\n"
		    "'torch' = '~2.1'\n"
		    "[tool.poetry.group.mac.dependencies]\n"
		    "torch = \"*\"\n",
		    "pyproject.toml:3 >=2.0,<3.0\n"
		    "pyproject.toml:9 2.3\n"
		    "pyproject.toml:10 2.0\n"
		    "pyproject.toml:13 2.1\n");
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[tool.poetry.dependencies.torch]\n"
		    "version = \">=2.1,<2.5\"\n"
		    "source = \"torch-cpu\"\n",
		    "pyproject.toml:2 >=2.1,<2.5\n");
	/* broken TOML: the pins before the problem count, and a warning names the line */
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[project]\n"
		    "dependencies = [\"torch==2.1\",\n"
		    "  \"numpy\"\n"
		    "  \"scipy\"]\n",
		    "pyproject.toml:2 2.1\n"
		    "! pyproject.toml:4: not read for torch pins: expected ',' or ']' in an array\n");
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[project]\ndependencies = [\"torch==2.1\n",
		    "! pyproject.toml:2: not read for torch pins: a string is not closed on its line\n");
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml", "[project\n",
		    "! pyproject.toml:1: not read for torch pins: a table header is not closed\n");
	expect_scan(MPSFIX_PINS_PYPROJECT, "pyproject.toml",
		    "[project]\ndependencies = [\"torch==x\"]\n",
		    "! pyproject.toml:2: torch pin 'torch==x' ignored: 'x' is not a version\n");
}
END_TEST

/* Nesting is bounded: a hostile file cannot exhaust the stack. */
START_TEST(test_pins_pyproject_deep)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *got;

	mpsfix_buf_adds(&b, "[project]\ndependencies = ");
	for (int i = 0; i < 100000; i++)
		mpsfix_buf_addc(&b, '[');
	got = scan_text(MPSFIX_PINS_PYPROJECT, "pyproject.toml", b.data);
	ck_assert_str_eq(got, "! pyproject.toml:2: not read for torch pins: values nested too deeply\n");
	free(got);
	mpsfix_buf_release(&b);
}
END_TEST

/* mpsfix_toml_read_values: "keys = kind text @line" for each value. */
static void add_value(void *payload, const mpsfix_toml_path *path, const mpsfix_toml_value *v, uint32_t line)
{
	static const char *const kinds[] = {"string", "integer", "other"};
	mpsfix_buf *b = payload;

	for (size_t i = 0; i < path->len; i++)
		mpsfix_buf_printf(b, "%s%s", i ? "." : "", path->keys[i]);
	if (v->kind == MPSFIX_TOML_INTEGER)
		mpsfix_buf_printf(b, " = integer %lld (%s) @%u\n", (long long)v->integer, v->text, line);
	else
		mpsfix_buf_printf(b, " = %s %s @%u\n", kinds[v->kind], v->text, line);
}

static char *toml_values(const char *text)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	uint32_t line = 0;

	if (mpsfix_toml_read_values(text, strlen(text), add_value, &b, &line) < 0)
		mpsfix_buf_printf(&b, "! %u: %s\n", line, mpsfix_error_last()->message);
	mpsfix_buf_addc(&b, '\0');
	return mpsfix_buf_detach(&b, NULL);
}

/* Every value is reported: strings, integers (with their value), and the others as written. */
START_TEST(test_toml_values)
{
	char *got = toml_values("[tool.ruff]\n"
				"line-length = 120  # a comment\n"
				"lint.select = [\"E\", 1_000, -7]\n"
				"[tool.black]\n"
				"line-length = +99\n"
				"fmt = { hex = 0xff, oct = 0o17, bin = 0b101, big = 9223372036854775807 }\n"
				"min = -9223372036854775808\n"
				"over = 9223372036854775808\n"
				"float = 1e2\n"
				"half = 88.5\n"
				"yes = true\n"
				"lead = 0120\n"
				"under = 1__0\n"
				"tail = 10_\n"
				"bare = 0x\n"
				"signed-hex = -0x10\n"
				"zero = 0\n"
				"date = 1979-05-27\n");

	ck_assert_str_eq(got, "tool.ruff.line-length = integer 120 (120) @2\n"
			      "tool.ruff.lint.select = string E @3\n"
			      "tool.ruff.lint.select = integer 1000 (1_000) @3\n"
			      "tool.ruff.lint.select = integer -7 (-7) @3\n"
			      "tool.black.line-length = integer 99 (+99) @5\n"
			      "tool.black.fmt.hex = integer 255 (0xff) @6\n"
			      "tool.black.fmt.oct = integer 15 (0o17) @6\n"
			      "tool.black.fmt.bin = integer 5 (0b101) @6\n"
			      "tool.black.fmt.big = integer 9223372036854775807 (9223372036854775807) @6\n"
			      "tool.black.min = integer -9223372036854775808 (-9223372036854775808) @7\n"
			      "tool.black.over = other 9223372036854775808 @8\n"
			      "tool.black.float = other 1e2 @9\n"
			      "tool.black.half = other 88.5 @10\n"
			      "tool.black.yes = other true @11\n"
			      "tool.black.lead = other 0120 @12\n"
			      "tool.black.under = other 1__0 @13\n"
			      "tool.black.tail = other 10_ @14\n"
			      "tool.black.bare = other 0x @15\n"
			      "tool.black.signed-hex = other -0x10 @16\n"
			      "tool.black.zero = integer 0 (0) @17\n"
			      "tool.black.date = other 1979-05-27 @18\n");
	free(got);
	/* the values before the first problem are reported, then where it is */
	got = toml_values("a = 1\nb = [2,\n  3 }\n");
	ck_assert_str_eq(got, "a = integer 1 (1) @1\nb = integer 2 (2) @2\nb = integer 3 (3) @3\n"
			      "! 3: expected ',' or ']' in an array\n");
	free(got);
}
END_TEST

START_TEST(test_pins_setup_cfg)
{
	expect_scan(MPSFIX_PINS_SETUP_CFG, "setup.cfg",
		    "[metadata]\n"
		    "name = torch\n"
		    "install_requires = torch==1.0\n"
		    "\n"
		    "[options]\n"
		    "python_requires = >=3.8\n"
		    "install_requires =\n"
		    "    numpy\n"
		    "    # torch==1.0\n"
		    "\n"
		    "    torch>=2.0,<2.5  # inline comment\n"
		    "    torchvision\n"
		    "packages = find:\n"
		    "\n"
		    "[options.extras_require]\n"
		    "mac = torch==2.1.0; sys_platform == \"darwin\"\n"
		    "linux =\n"
		    "    torch==2.2.0; sys_platform == \"linux\"\n",
		    "setup.cfg:11 >=2.0,<2.5\n");
	expect_scan(MPSFIX_PINS_SETUP_CFG, "setup.cfg",
		    "[options]\ninstall-requires = numpy; torch==2.3\n", "setup.cfg:2 2.3\n");
	/* [options.extras_require] when install_requires does not name torch */
	expect_scan(MPSFIX_PINS_SETUP_CFG, "setup.cfg",
		    "[options]\n"
		    "install_requires =\n"
		    "    numpy\n"
		    "[options.extras_require]\n"
		    "mac = torch==2.1.0; sys_platform == \"darwin\"\n"
		    "linux =\n"
		    "    torch==2.2.0; sys_platform == \"linux\"\n",
		    "setup.cfg:5 2.1 (optional)\n"
		    "setup.cfg:7 2.2 (optional)\n");
}
END_TEST

START_TEST(test_pins_setup_py)
{
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "from setuptools import setup\n"
		    "# install_requires=[\"torch==1.0\"]\n"
		    "REQS = [\"torch==1.1\"]   # optional: install_requires names torch\n"
		    "setup(\n"
		    "    name=\"x\",\n"
		    "    description=\"install_requires=['torch==1.2']\",\n"
		    "    long_description='''\n"
		    "install_requires = [\"torch==1.3\"]\n"
		    "''',\n"
		    "    install_requires=[\n"
		    "        \"numpy>=1.20\",\n"
		    "        r'torch>=2.0, <2.3',  # comment ]\n"
		    "        \"torchvision\",\n"
		    "    ],\n"
		    "    extras_require={\n"
		    "        \"mac\": [\"torch==2.1.0\"],\n"
		    "        \"torch\": [],\n"
		    "    },\n"
		    "    tests_require=[\"torch==1.4\"],\n"
		    ")\n",
		    "setup.py:12 >=2.0,<2.3\n");
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "setup(install_requires=requirements, extras_require=dict(mac=[\"torch==2.2\"]))\n"
		    "config = {\"install_requires\": (\"torch>=2.4\",)}\n"
		    "setup(install_requires=[f\"torch=={TORCH}\"])\n",
		    "setup.py:2 >=2.4\n"
		    "! setup.py:3: torch pin 'torch=={TORCH}' ignored: '{TORCH}' is not a version\n");
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "setup(install_requires=requirements, extras_require=dict(mac=[\"torch==2.2\"]))\n",
		    "setup.py:1 2.2 (optional)\n");
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py", "setup(install_requires=[\"torch==2.1\n",
		    "! setup.py:1: not read for torch pins: a string is not closed\n");
}
END_TEST

/* setup.py: requirements held in variables, extras, and the module's lists of requirements */
START_TEST(test_pins_setup_py_variables)
{
	/* install_requires through variables, however they grow */
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "import os\n"
		    "BASE = [\"numpy\"]\n"
		    "REQUIRED = BASE + [\n"
		    "    \"torch>=2.1\",\n"
		    "]\n"
		    "if os.name == \"posix\":\n"
		    "    REQUIRED.append(\"torch<2.5\")\n"
		    "REQUIRED += (\"scipy\",)\n"
		    "EXTRAS = {\"mac\": [\"torch==2.0\"]}\n"
		    "setup(name=\"x\", install_requires=list(REQUIRED), extras_require=EXTRAS)\n",
		    "setup.py:4 >=2.1\n"
		    "setup.py:7 <2.5\n");
	/* extras_require through variables, a dict filled key by key */
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "EXTRAS = {}\n"
		    "def gpu():\n"
		    "    GPU = [\"torch==2.2.0\"]\n"
		    "    return GPU\n"
		    "if True:\n"
		    "    MAC: list = [\"torch==2.1.*\"]\n"
		    "EXTRAS[\"mac\"] = MAC\n"
		    "EXTRAS[\"all\"] = EXTRAS[\"mac\"] + [\"x\"]\n"
		    "setup(install_requires=[\"numpy\"], extras_require=EXTRAS)\n",
		    "setup.py:6 2.1 (optional)\n");
	/* a table of versions that helpers pick from (diffusers' _deps): install_requires uses it */
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "_deps = [\n"
		    "    \"numpy\",\n"
		    "    \"torch>=2.6\",\n"
		    "    \"torchvision\",\n"
		    "]\n"
		    "deps = {b: a for a, b in (re.findall(r\"^(([^!=<>~]+)(?:[!=<>~].*)?$)\", x)[0] for x in _deps)}\n"
		    "def deps_list(*pkgs):\n"
		    "    return [deps[pkg] for pkg in pkgs]\n"
		    "extras = {}\n"
		    "extras[\"torch\"] = deps_list(\"torch\")\n"
		    "install_requires = [deps[\"numpy\"]]\n"
		    "setup(install_requires=list(install_requires), extras_require=extras)\n",
		    "setup.py:3 >=2.6\n");
	/* ... a table no one names is read when nothing else names torch; a subscript is a key */
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "_deps = (\"torch>=2.0\", \"torch==x\")\n"
		    "def f():\n"
		    "    local = [\"torch==1.0\"]\n"
		    "setup(install_requires=[deps[\"torch\"]], tests_require=[\"torch==1.4\"])\n",
		    "setup.py:1 >=2.0 (optional)\n"
		    "! setup.py:1: torch pin 'torch==x' ignored: 'x' is not a version\n");
	/* ... and not when install_requires names torch, even without a version */
	expect_scan(MPSFIX_PINS_SETUP_PY, "setup.py",
		    "_deps = [\"torch>=2.0\", \"torch==x\"]\n"
		    "setup(install_requires=[\"torch\"], extras_require={\"a\": [\"torch==2.1\"]})\n",
		    "");
}
END_TEST

/* A hostile setup.py takes bounded time and memory. */
START_TEST(test_pins_setup_py_hostile)
{
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char *got;

	/* every key's value reaches the end of the statement: quadratic without a bound */
	mpsfix_buf_adds(&b, "x = ");
	for (int i = 0; i < 200000; i++)
		mpsfix_buf_adds(&b, "install_requires = ");
	mpsfix_buf_adds(&b, "['torch==2.1']\n");
	got = scan_text(MPSFIX_PINS_SETUP_PY, "setup.py", b.data);
	ck_assert_str_eq(got, "setup.py:1 2.1\n"
			      "! setup.py: not read to the end for torch pins: too complex\n");
	free(got);
	mpsfix_buf_clear(&b);
	/* too many tokens: what comes before the end counts */
	mpsfix_buf_adds(&b, "setup(install_requires=['torch==2.2'])\n");
	for (int i = 0; i < 600000; i++)
		mpsfix_buf_adds(&b, "a,");
	got = scan_text(MPSFIX_PINS_SETUP_PY, "setup.py", b.data);
	ck_assert_str_eq(got, "setup.py:1 2.2\n! setup.py: not read for torch pins: too long\n");
	free(got);
	mpsfix_buf_clear(&b);
	/* closers never opened, brackets never closed */
	mpsfix_buf_adds(&b, "]]) install_requires = ([[\"torch<2.3\"");
	got = scan_text(MPSFIX_PINS_SETUP_PY, "setup.py", b.data);
	ck_assert_str_eq(got, "setup.py:1 <2.3\n");
	free(got);
	mpsfix_buf_release(&b);
	{
		/* a NUL is not the end */
		static const char nul[] = "x = 1\0\nsetup(install_requires=['torch==2.4'])\n";
		mpsfix_pins p = MPSFIX_PINS_INIT;

		mpsfix_pins_scan_buffer(&p, MPSFIX_PINS_SETUP_PY, "setup.py", nul, sizeof(nul) - 1);
		ck_assert_uint_eq(p.len, 1);
		ck_assert_uint_eq(p.items[0].line, 2);
		mpsfix_pins_release(&p);
	}
}
END_TEST

START_TEST(test_pins_conda_env)
{
	expect_scan(MPSFIX_PINS_CONDA_ENV, "environment.yml",
		    "name: mps\n"
		    "channels: [pytorch, conda-forge]\n"
		    "dependencies:\n"
		    "  - python=3.10\n"
		    "  - pytorch::pytorch=2.1.0=py3.10_0  # conda\n"
		    "  - torchvision=0.16\n"
		    "  - pytorch-lightning=2.1\n"
		    "  - pip\n"
		    "  - pip:\n"
		    "      - torch==2.1.2\n"
		    "      - -r requirements.txt\n"
		    "      - torchaudio\n",
		    "environment.yml:5 2.1\n"
		    "environment.yml:10 2.1\n");
	expect_scan(MPSFIX_PINS_CONDA_ENV, "environment.yml", "dependencies: [pytorch=oops]\n",
		    "! environment.yml:1: torch pin 'pytorch=oops' ignored: 'oops' is not a version\n");
	expect_scan(MPSFIX_PINS_CONDA_ENV, "environment.yml", "dependencies: [pytorch\n",
		    "! environment.yml:2:1: did not find expected ',' or ']' (while parsing a flow "
		    "sequence at 1:15) (not read for torch pins)\n");
}
END_TEST

/* --- a project on disk ----------------------------------------------------------------- */

static char tmpdir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void put(const char *rel, const char *text)
{
	char *path = mpsfix_xasprintf("%s/%s", tmpdir, rel);
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s", path);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
}

static void setup(void)
{
	char *dir;

	strcpy(tmpdir, "/tmp/mpsfix-pins-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	dir = mpsfix_xasprintf("%s/proj", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	free(dir);
	dir = mpsfix_xasprintf("%s/proj/requirements", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	free(dir);
}

static void teardown(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *find_text(const char *rel_root, int *rc)
{
	mpsfix_pins p = MPSFIX_PINS_INIT;
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char buf[MPSFIX_TORCH_RANGE_STRMAX];
	char *root = mpsfix_xasprintf("%s/%s", tmpdir, rel_root);

	*rc = mpsfix_pins_find(&p, root);
	for (size_t i = 0; i < p.len; i++)
		mpsfix_buf_printf(&b, "%s:%u %s\n", p.items[i].file, p.items[i].line,
				  mpsfix_torch_range_format(buf, p.items[i].range));
	for (size_t i = 0; i < p.nwarnings; i++) {
		const char *w = p.warnings[i], *at = strstr(w, tmpdir);

		/* messages with absolute paths: the temporary folder is "T" */
		if (at)
			mpsfix_buf_printf(&b, "! %.*sT%s\n", (int)(at - w), w, at + strlen(tmpdir));
		else
			mpsfix_buf_printf(&b, "! %s\n", w);
	}
	mpsfix_pins_release(&p);
	free(root);
	return mpsfix_buf_detach(&b, NULL);
}

START_TEST(test_pins_find_project)
{
	char *got, *fifo = mpsfix_xasprintf("%s/proj/requirements-fifo.txt", tmpdir);
	int rc;

	put("outside.txt", "torch==1.0\n");
	put("proj/requirements.txt", "numpy\n-r requirements/base.txt\n--constraint=constraints.txt\n");
	put("proj/requirements/base.txt", "torch>=2.0\n-r ../requirements.txt\n-rbase.txt\n");
	put("proj/constraints.txt", "torch==2.1.0\n");
	put("proj/requirements-dev.txt", "-r ../outside.txt\n-r nope.txt\n-r requirements.txt\n");
	put("proj/requirements_docker.txt", "torch==2.2.0\n");
	put("proj/requirements.txt.bak", "torch==1.5\n");
	put("proj/requirements/gpu.txt", "torch==2.3.0+cu121\n");
	put("proj/requirements/README", "torch==1.6\n");
	put("proj/pyproject.toml", "[project]\ndependencies = [\"torch<2.4\"]\n");
	put("proj/setup.cfg", "[options]\ninstall_requires =\n    torch>=1.13\n");
	put("proj/setup.py", "setup(install_requires=[\"torch~=2.0\"])\n");
	put("proj/environment.yml", "dependencies:\n  - pytorch=2.1\n");
	put("proj/environment.yaml", "dependencies:\n  - pytorch=2.5\n");
	ck_assert_int_eq(mkfifo(fifo, 0644), 0); /* never opened: not a regular file */
	got = find_text("proj", &rc);
	ck_assert_int_eq(rc, 0);
	/* each requirement file's set reads what it includes: requirements-dev.txt's
	   (through requirements.txt), requirements.txt's, requirements/base.txt's */
	ck_assert_str_eq(got,
			 "requirements/base.txt:1 >=2.0\n"
			 "constraints.txt:1 2.1\n"
			 "requirements/base.txt:1 >=2.0\n"
			 "constraints.txt:1 2.1\n"
			 "requirements_docker.txt:1 2.2\n"
			 "requirements/base.txt:1 >=2.0\n"
			 "constraints.txt:1 2.1\n"
			 "requirements/gpu.txt:1 2.3\n"
			 "pyproject.toml:2 <2.4\n"
			 "setup.cfg:3 >=1.13\n"
			 "setup.py:1 >=2.0,<3.0\n"
			 "environment.yml:2 2.1\n"
			 "environment.yaml:2 2.5\n"
			 "! requirements-dev.txt:1: the included file '../outside.txt' is outside the "
			 "project folder; its torch pins are not read\n"
			 "! requirements-dev.txt:2: cannot read the included file 'nope.txt': No such "
			 "file or directory\n");
	free(got);
	free(fifo);
}
END_TEST

START_TEST(test_pins_find_nothing)
{
	char *got;
	int rc;

	got = find_text("proj", &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(got, "");
	free(got);
	got = find_text("missing", &rc);
	ck_assert_int_eq(rc, MPSFIX_ERROR);
	ck_assert_str_eq(got, "");
	ck_assert_ptr_nonnull(strstr(mpsfix_error_last()->message, "cannot read the folder for torch pins"));
	free(got);
}
END_TEST

START_TEST(test_pins_find_unreadable)
{
	char *path = mpsfix_xasprintf("%s/proj/requirements.txt", tmpdir), *got;
	int rc;

	put("proj/requirements.txt", "torch==2.1\n");
	put("proj/setup.py", "setup(install_requires=['torch==2.2'])\n");
	ck_assert_int_eq(chmod(path, 0), 0);
	if (access(path, R_OK) == 0) {
		/* root reads anything: make it unreadable another way, a folder */
		ck_assert_int_eq(chmod(path, 0644), 0);
		ck_assert_int_eq(unlink(path), 0);
		ck_assert_int_eq(mkdir(path, 0755), 0);
		got = find_text("proj", &rc);
		ck_assert_str_eq(got, "setup.py:1 2.2\n"); /* a folder is skipped quietly */
	} else {
		got = find_text("proj", &rc);
		ck_assert_str_eq(got, "setup.py:1 2.2\n"
				      "! cannot open 'T/proj/requirements.txt': Permission denied "
				      "(looking for torch pins in requirements.txt)\n");
	}
	ck_assert_int_eq(rc, 0);
	free(got);
	free(path);
}
END_TEST

START_TEST(test_pins_find_symlinks)
{
	char *link = mpsfix_xasprintf("%s/proj/requirements-shared.txt", tmpdir), *got;
	int rc;

	/* a requirements file linked from outside is read (it is the project's own
	 * name), for its own set and for requirements.txt's, which includes it */
	put("shared.txt", "torch==2.4.1\n");
	ck_assert_int_eq(symlink("../shared.txt", link), 0);
	put("proj/requirements.txt", "-r requirements-shared.txt\n");
	got = find_text("proj", &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(got, "requirements-shared.txt:1 2.4\nrequirements-shared.txt:1 2.4\n");
	free(got);
	/* a link that is only included: outside the root, not followed */
	ck_assert_int_eq(unlink(link), 0);
	free(link);
	link = mpsfix_xasprintf("%s/proj/shared-link.txt", tmpdir);
	ck_assert_int_eq(symlink("../shared.txt", link), 0);
	put("proj/requirements.txt", "-r shared-link.txt\n");
	got = find_text("proj", &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(got, "! requirements.txt:1: the included file 'shared-link.txt' is "
			      "outside the project folder; its torch pins are not read\n");
	free(got);
	free(link);
}
END_TEST

START_TEST(test_pins_present)
{
	char *root = mpsfix_xasprintf("%s/proj", tmpdir), *sub = mpsfix_xasprintf("%s/proj/sub", tmpdir);
	static const char *const names[] = {"requirements-dev.txt", "pyproject.toml", "setup.cfg",
					    "setup.py", "environment.yml", "environment.yaml"};

	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert(mpsfix_pins_present(root)); /* the requirements folder */
	ck_assert(!mpsfix_pins_present(sub));
	put("proj/sub/requirements.in", "torch\n");
	put("proj/sub/README.md", "requirements.txt\n");
	ck_assert(!mpsfix_pins_present(sub));
	ck_assert(!mpsfix_pins_present("/nonexistent/folder"));
	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(names); i++) {
		char *rel = mpsfix_xasprintf("proj/sub/%s", names[i]), *path = mpsfix_xasprintf("%s/%s", tmpdir, rel);

		put(rel, "");
		ck_assert_msg(mpsfix_pins_present(sub), "%s", names[i]);
		ck_assert_int_eq(unlink(path), 0);
		free(rel);
		free(path);
	}
	free(root);
	free(sub);
}
END_TEST

Suite *mpsfix_suite_pins(void)
{
	Suite *s = suite_create("pins");
	TCase *tc = tcase_create("parse");
	TCase *fs = tcase_create("project");

	tcase_add_loop_test(tc, test_pins_requirement, 0, (int)MPSFIX_ARRAY_SIZE(requirements));
	tcase_add_loop_test(tc, test_pins_conda_spec, 0, (int)MPSFIX_ARRAY_SIZE(conda));
	tcase_add_loop_test(tc, test_pins_implied, 0, (int)MPSFIX_ARRAY_SIZE(implied));
	tcase_add_test(tc, test_pins_implied_in_list);
	tcase_add_test(tc, test_pins_requirements_file);
	tcase_add_test(tc, test_pins_names_torch);
	tcase_add_test(tc, test_pins_pyproject);
	tcase_add_test(tc, test_pins_pyproject_deep);
	tcase_add_test(tc, test_toml_values);
	tcase_add_test(tc, test_pins_setup_cfg);
	tcase_add_test(tc, test_pins_setup_py);
	tcase_add_test(tc, test_pins_setup_py_variables);
	tcase_add_test(tc, test_pins_setup_py_hostile);
	tcase_add_test(tc, test_pins_conda_env);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(fs, setup, teardown);
	tcase_add_test(fs, test_pins_find_project);
	tcase_add_test(fs, test_pins_find_nothing);
	tcase_add_test(fs, test_pins_find_unreadable);
	tcase_add_test(fs, test_pins_find_symlinks);
	tcase_add_test(fs, test_pins_present);
	suite_add_tcase(s, fs);
	return s;
}
