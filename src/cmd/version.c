/* version.c: the text of `mpsfix --version` (see version.h). */
#include "version.h"

#include <jansson.h>
#include <tree_sitter/api.h>
#include <yaml.h>

#include "git.h"
#include "parse.h"
#include "pathutil.h"

#ifndef MPSFIX_VERSION
#define MPSFIX_VERSION "0.0.0"
#endif

#ifndef MPSFIX_TREE_SITTER
#define MPSFIX_TREE_SITTER "unknown"
#endif

const char *mpsfix_version(void)
{
	return MPSFIX_VERSION;
}

const char *mpsfix_tree_sitter_version(void)
{
	return MPSFIX_TREE_SITTER;
}

/* jansson_version_str() exists from jansson 2.13 on; before, the header's. */
static const char *jansson_version(void)
{
#if JANSSON_VERSION_HEX >= 0x020d00
	return jansson_version_str();
#else
	return JANSSON_VERSION;
#endif
}

void mpsfix_version_text(mpsfix_buf *out, const char *rules_dir)
{
	const char *libgit2 = mpsfix_git_version();

	mpsfix_buf_printf(out, "mpsfix %s (tree-sitter-python %s, libgit2 %s)\n", mpsfix_version(),
			  mpsfix_grammar_version(), libgit2);
	mpsfix_buf_printf(out, "grammar:     tree-sitter-python %s, language ABI %u\n",
			  mpsfix_grammar_version(), (unsigned)ts_language_abi_version(mpsfix_language()));
	mpsfix_buf_printf(out, "tree-sitter: %s, runtime for language ABI %u to %u\n",
			  mpsfix_tree_sitter_version(),
			  (unsigned)TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
			  (unsigned)TREE_SITTER_LANGUAGE_VERSION);
	mpsfix_buf_printf(out, "libgit2:     %s\n", libgit2);
	mpsfix_buf_printf(out, "libyaml:     %s\n", yaml_get_version_string());
	mpsfix_buf_printf(out, "jansson:     %s\n", jansson_version());
	if (rules_dir)
		mpsfix_buf_printf(out, "rules:       %s%s\n", rules_dir,
				  mpsfix_path_is_dir(rules_dir) ? "" : " (not found)");
}
