/* check_fix.c: fixes written with the file's own names for modules, and the
 * `import` lines they add. */
#include <stdlib.h>
#include <string.h>

#include "fix_floor.h"
#include "testutil.h"
#include "tests.h"

#define HEAD "id: t\ncode: MPS999\nseverity: error\nmessage: m\ntorch: all\n"

static const char cuda_rule[] =
	HEAD
	"match: 'f($X)'\n"
	"fix:\n"
	"  safety: safe\n"
	"  template: 'torch.cuda.is_available()'\n";

/* The fixed text, or "MANUAL: reason" (malloc'd). */
static char *run(const char *yaml, const char *code)
{
	return tu_fix_yaml(yaml, code);
}

static const struct {
	const char *code, *want;
} cases[] = {
	/* the file's alias */
	{"import torch as th\nx = f(1)\n", "import torch as th\nx = th.cuda.is_available()\n"},
	{"import torch.amp\nx = f(1)\n", "import torch.amp\nx = torch.cuda.is_available()\n"},
	{"from torch import cuda\nx = f(1)\n", "from torch import cuda\nx = cuda.is_available()\n"},
	{"import torch as th\nfrom torch import cuda\nx = f(1)\n",
	 "import torch as th\nfrom torch import cuda\nx = th.cuda.is_available()\n"},
	{"def g():\n    import torch as T\n    return f(1)\n",
	 "def g():\n    import torch as T\n    return T.cuda.is_available()\n"},
	/* `import torch` added where isort sorts it */
	{"x = f(1)\n", "import torch\n\nx = torch.cuda.is_available()\n"},
	{"import os\nimport sys\n\nx = f(1)\n",
	 "import os\nimport sys\n\nimport torch\n\nx = torch.cuda.is_available()\n"},
	{"\"\"\"Doc.\"\"\"\nx = f(1)\n", "\"\"\"Doc.\"\"\"\nimport torch\n\nx = torch.cuda.is_available()\n"},
	{"\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nx = f(1)\n",
	 "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nimport torch\n\nx = torch.cuda.is_available()\n"},
	{"#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nx = f(1)\n",
	 "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nimport torch\n\nx = torch.cuda.is_available()\n"},
	{"import os\r\n\r\nx = f(1)\r\n", "import os\r\n\r\nimport torch\r\n\r\nx = torch.cuda.is_available()\r\n"},
	{"import numpy\r\nimport yaml\r\n\r\nx = f(1)\r\n",
	 "import numpy\r\nimport torch\r\nimport yaml\r\n\r\nx = torch.cuda.is_available()\r\n"},
	/* two fixes add the same import once */
	{"x = f(1)\ny = f(2)\n", "import torch\n\nx = torch.cuda.is_available()\ny = torch.cuda.is_available()\n"},
	{"import numpy\n\nx = f(1)\ny = f(2)\n",
	 "import numpy\nimport torch\n\nx = torch.cuda.is_available()\ny = torch.cuda.is_available()\n"},
	{"import yaml\n\nx = f(1)\ny = f(2)\n",
	 "import torch\nimport yaml\n\nx = torch.cuda.is_available()\ny = torch.cuda.is_available()\n"},
	{"def g():\n    import torch\n\ndef h():\n    return f(1)\n",
	 "import torch\n\n\ndef g():\n    import torch\n\ndef h():\n    return torch.cuda.is_available()\n"},
	/* an import below the code does not count for it */
	{"x = f(1)\nimport os\n", "import torch\n\nx = torch.cuda.is_available()\nimport os\n"},
	/* `torch` means something else */
	{"torch = None\nx = f(1)\n", "MANUAL: `torch` means something else here, so the fix cannot write `torch.cuda.is_available`"},
	{"def g(torch):\n    return f(1)\n",
	 "MANUAL: `torch` means something else here, so the fix cannot write `torch.cuda.is_available`"},
};

START_TEST(test_spelling_and_imports)
{
	char *got = run(cuda_rule, cases[_i].code);

	ck_assert_msg(!strcmp(got, cases[_i].want), "for\n%s\ngot\n%s\nwant\n%s", cases[_i].code, got,
		      cases[_i].want);
	free(got);
}
END_TEST

/* A dotted name in a pattern matches through imports, never a shadowing local. */
START_TEST(test_qualified_patterns)
{
	static const char rule[] =
		HEAD
		"match: 'torch.amp.GradScaler($$$A)'\n";
	static const struct {
		const char *code;
		size_t n;
	} q[] = {
		{"import torch\ns = torch.amp.GradScaler('mps')\n", 1},
		{"import torch as th\ns = th.amp.GradScaler('mps')\n", 1},
		{"import torch.amp\ns = torch.amp.GradScaler('mps')\n", 1},
		{"from torch import amp\ns = amp.GradScaler('mps')\n", 1},
		{"from torch.amp import GradScaler\ns = GradScaler('mps')\n", 1},
		{"from torch.amp import GradScaler as GS\ns = GS('mps')\n", 1},
		{"from torch.cuda.amp import GradScaler\ns = GradScaler('mps')\n", 0},
		{"from torch.amp import GradScaler\nclass GradScaler: pass\ns = GradScaler('mps')\n", 0},
		{"import torch\ndef f(torch):\n    return torch.amp.GradScaler('mps')\n", 0},
		{"from torch.amp import *\ns = GradScaler('mps')\n", 0},
		{"s = torch.amp.GradScaler('mps')\n", 1}, /* bound nowhere: as spelled */
		{"import torch\ntorch = other\ns = torch.amp.GradScaler('mps')\n", 0},
		{"try:\n    import torch\nexcept ImportError:\n    torch = None\ns = torch.amp.GradScaler('mps')\n", 1},
	};

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		mpsfix_rule *r = NULL;
		mpsfix_result res = MPSFIX_RESULT_INIT;

		ck_assert_int_eq(mpsfix_rule_load_buffer(&r, tu_parser(), "t.yml", rule, strlen(rule)), 0);
		free(tu_run(r, q[i].code, strlen(q[i].code), false, &res));
		ck_assert_msg(res.len == q[i].n, "%s: %zu findings", q[i].code, res.len);
		if (i == 9)
			ck_assert_msg(res.nwarnings == 1 && strstr(res.warnings[0], "from torch.amp import *"),
				      "%s", res.nwarnings ? res.warnings[0] : "no warning");
		mpsfix_result_release(&res);
		mpsfix_rule_free(r);
	}
}
END_TEST

/* A fix of several edits: a statement removed and inserted before `import torch`. */
START_TEST(test_move_statement)
{
	static const char rule[] =
		HEAD
		"match: 'os.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = $V'\n"
		"fix:\n"
		"  safety: safe\n"
		"  edits:\n"
		"    - remove: match\n"
		"    - before-import: torch\n"
		"      template: 'os.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = $V'\n";
	static const struct {
		const char *code, *want;
	} mv[] = {
		{"\"\"\"Doc.\"\"\"\nimport os\nimport torch\n\nos.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = \"1\"\nx = 1\n",
		 "\"\"\"Doc.\"\"\"\nimport os\n\nos.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = \"1\"\n\nimport torch\n\nx = 1\n"},
		/* `os` is imported only after torch: an `import os` goes first, before the group */
		{"import torch\r\nimport os\r\nos.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = \"1\"\r\n",
		 "import os\r\n\r\nos.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = \"1\"\r\n\r\nimport torch\r\nimport os\r\n"},
		/* a comment on its line would be lost: all of the fix or nothing */
		{"import os\nimport torch\nos.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = \"1\"  # fallback\n",
		 "MANUAL: the fix would drop a comment"},
		/* the only statement of a block */
		{"import os\nimport torch\nif x:\n    os.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = \"1\"\n",
		 "MANUAL: removing the statement would leave an empty block"},
		{"import os\nos.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] = \"1\"\n",
		 "MANUAL: the file has no module-level import of torch to put the code before"},
	};

	for (size_t i = 0; i < sizeof(mv) / sizeof(mv[0]); i++) {
		mpsfix_rule *r = NULL;
		mpsfix_result res = MPSFIX_RESULT_INIT;
		char *text, *got;

		ck_assert_msg(mpsfix_rule_load_buffer(&r, tu_parser(), "t.yml", rule, strlen(rule)) == 0,
			      "%s", mpsfix_error_last()->message);
		/* one pass: the moved statement would match again where it lands */
		free(tu_run(r, mv[i].code, strlen(mv[i].code), false, &res));
		ck_assert_uint_eq(res.len, 1);
		if (res.items[0].fix == MPSFIX_FIX_MANUAL) {
			got = mpsfix_xasprintf("MANUAL: %s", res.items[0].reason);
		} else {
			mpsfix_buf b = MPSFIX_BUF_INIT;
			mpsfix_edits e = MPSFIX_EDITS_INIT;

			for (size_t k = 0; k < res.items[0].nedits; k++)
				mpsfix_edits_add(&e, res.items[0].edits[k].start, res.items[0].edits[k].end,
						 res.items[0].edits[k].text, res.items[0].edits[k].len, 0);
			ck_assert_int_eq(mpsfix_edits_apply(&b, &e, mv[i].code, strlen(mv[i].code), NULL, NULL), 0);
			got = mpsfix_buf_detach(&b, NULL);
			mpsfix_edits_release(&e);
		}
		text = got;
		ck_assert_msg(!strcmp(text, mv[i].want), "for\n%s\ngot\n%s\nwant\n%s", mv[i].code, text, mv[i].want);
		free(text);
		mpsfix_result_release(&res);
		mpsfix_rule_free(r);
	}
}
END_TEST

/* A call that repeats a keyword argument is a syntax error to CPython: no fix there. */
START_TEST(test_repeated_keyword)
{
	static const char rule[] =
		HEAD
		"match: '$X.to(\"mps\", $$$A, non_blocking=$NB)'\n"
		"fix:\n"
		"  safety: safe\n"
		"  remove: $NB\n";
	static const struct {
		const char *code, *want;
	} kw[] = {
		{"y = x.to(\"mps\", non_blocking=True, non_blocking=True)\n",
		 "MANUAL: inside a syntax error (keyword argument 'non_blocking' repeated)"},
		{"y = x.to(\"mps\", non_blocking=True, \"mps\", non_blocking=False)\n",
		 "MANUAL: inside a syntax error (keyword argument 'non_blocking' repeated)"},
		{"y = x.to(\"mps\", f(a=1, b=2, a=3), non_blocking=True)\n",
		 "MANUAL: inside a syntax error (keyword argument 'a' repeated)"},
		/* the same name in two calls is fine */
		{"y = x.to(\"mps\", f(a=1), a=2, non_blocking=True)\n", "y = x.to(\"mps\", f(a=1), a=2)\n"},
		{"y = x.to(\"mps\", ab=1, a=2, non_blocking=True)\n", "y = x.to(\"mps\", ab=1, a=2)\n"},
	};
	mpsfix_buf many = MPSFIX_BUF_INIT;
	char *got;

	for (size_t i = 0; i < MPSFIX_ARRAY_SIZE(kw); i++) {
		got = run(rule, kw[i].code);
		ck_assert_msg(!strcmp(got, kw[i].want), "for\n%s\ngot\n%s\nwant\n%s", kw[i].code, got, kw[i].want);
		free(got);
	}
	/* found among many: 300 distinct names in shuffled order, then one again */
	mpsfix_buf_adds(&many, "y = x.to(\"mps\"");
	for (int i = 0; i < 300; i++)
		mpsfix_buf_printf(&many, ", k%d=%d", (i * 7919) % 300, i);
	mpsfix_buf_adds(&many, ", non_blocking=True)\n");
	got = run(rule, many.data);
	ck_assert_msg(strncmp(got, "MANUAL", 6) != 0, "300 distinct names: %s", got);
	free(got);
	many.len -= strlen(", non_blocking=True)\n");
	mpsfix_buf_adds(&many, ", k150=0, non_blocking=True)\n");
	got = run(rule, many.data);
	ck_assert_str_eq(got, "MANUAL: inside a syntax error (keyword argument 'k150' repeated)");
	free(got);
	mpsfix_buf_release(&many);
}
END_TEST

/* the oldest torch a fix runs on: the APIs it brings in, not those it keeps */
START_TEST(test_fix_floor)
{
	static const char src[] = "x = f(pin=v, s=torch.backends.mps.is_available())\n";
	static const struct {
		const char *old, *text; /* the replaced bytes of src (a substring), the new ones */
		mpsfix_torch_ver floor;
	} floors[] = {
		{"v", "not torch.backends.mps.is_available() and v", MPSFIX_TORCH_VER(1, 12)},
		{"torch.backends.mps.is_available()", "(torch.backends.mps.is_available())", MPSFIX_TORCH_OLDEST},
		{"v", "torch.accelerator.synchronize()", MPSFIX_TORCH_VER(2, 6)},
		{"v", "torch.backends.mps.x or torch.accelerator.y", MPSFIX_TORCH_VER(2, 6)},
		{"v", "torch.backends.mpsx", MPSFIX_TORCH_OLDEST},
		{"v", "xbackends.mps", MPSFIX_TORCH_OLDEST},
		{"v", "torch.mps.synchronize()", MPSFIX_TORCH_OLDEST}, /* guarded where the fixes call it */
		{"v", "not th.backends.mps.is_available() and v", MPSFIX_TORCH_VER(1, 12)},
		{"v", "backends.mps.is_available()", MPSFIX_TORCH_VER(1, 12)},
		{"v", "self.accelerator.device", MPSFIX_TORCH_OLDEST},
	};

	for (size_t i = 0; i < sizeof(floors) / sizeof(floors[0]); i++) {
		mpsfix_edits e = MPSFIX_EDITS_INIT;
		uint32_t at = (uint32_t)(strstr(src, floors[i].old) - src);
		const char *api;
		char *why;

		mpsfix_edits_add(&e, at, at + (uint32_t)strlen(floors[i].old), floors[i].text, strlen(floors[i].text), 1);
		mpsfix_edits_add(&e, 0, 1, "torch.accelerator", 17, 2); /* another fix's */
		ck_assert_msg(mpsfix_fix_floor(&e, 1, src, &api) == floors[i].floor, "case %zu", i);
		ck_assert_msg((api != NULL) == (floors[i].floor != MPSFIX_TORCH_OLDEST), "case %zu", i);
		why = mpsfix_fix_floor_reason(&e, 1, src, (mpsfix_torch_range){MPSFIX_TORCH_VER(1, 7), MPSFIX_TORCH_NEWEST});
		ck_assert_msg((why != NULL) == (floors[i].floor != MPSFIX_TORCH_OLDEST), "case %zu", i);
		free(why);
		why = mpsfix_fix_floor_reason(&e, 1, src, MPSFIX_TORCH_RANGE_MPS);
		ck_assert_msg(!why == (floors[i].floor <= MPSFIX_TORCH_FIRST_MPS), "case %zu", i);
		if (i == 0)
			ck_assert_ptr_null(why);
		free(why);
		mpsfix_edits_release(&e);
	}
	{
		mpsfix_edits e = MPSFIX_EDITS_INIT;
		char *why;

		mpsfix_edits_add(&e, 10, 11, "not torch.backends.mps.is_available() and v", 44, 0);
		why = mpsfix_fix_floor_reason(&e, 0, src, (mpsfix_torch_range){MPSFIX_TORCH_VER(1, 7), MPSFIX_TORCH_NEWEST});
		ck_assert_str_eq(why, "the fix calls torch.backends.mps, which torch has from 1.12, and the target torch "
				      ">=1.7 reaches below it");
		free(why);
		mpsfix_edits_release(&e);
	}
}
END_TEST

Suite *mpsfix_suite_fix(void)
{
	Suite *s = suite_create("fix");
	TCase *tc = tcase_create("names");

	tcase_add_loop_test(tc, test_spelling_and_imports, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_qualified_patterns);
	tcase_add_test(tc, test_move_statement);
	tcase_add_test(tc, test_repeated_keyword);
	tcase_add_test(tc, test_fix_floor);
	suite_add_tcase(s, tc);
	return s;
}
