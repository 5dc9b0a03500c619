# mpsfix: see README.md.  `make` builds build/mpsfix; `make check` runs every test.
VERSION   = 0.1.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share/mpsfix
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
O        ?= build
CC       ?= cc
PKG_CONFIG ?= pkg-config

CFLAGS   ?= -O2 -g
# Warnings are errors only where mpsfix is developed: `make DEVELOPER=1` and CI
# (.ci/run exports DEVELOPER=1).  A user's plain `make` never fails on a
# warning that a newer compiler adds.
WARNINGS  = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
ifneq ($(DEVELOPER),)
WARNINGS += -Werror
endif
PKGS      = libgit2 yaml-0.1 jansson
GRAMMAR   = grammars/tree-sitter-python
GRAMMAR_SRC = $(GRAMMAR)/src
# the pinned grammar's version, baked into the binary (mpsfix --version)
GRAMMAR_VERSION := $(shell sed -n 's/^version=//p' grammars/tree-sitter-python.pin)

# The feature macros of each system: POSIX 2008, plus what each libc hides
# behind its own macro (flock, DT_* on macOS; realpath is XSI).  `make compat`
# builds with Darwin's set against glibc, so what macOS hides shows up on
# Linux too.
UNAME_S  := $(shell uname -s 2>/dev/null || echo unknown)
DARWIN_FEATURES = -D_XOPEN_SOURCE=700 -D_DARWIN_C_SOURCE
ifeq ($(UNAME_S),Darwin)
FEATURES  = -D_POSIX_C_SOURCE=200809L $(DARWIN_FEATURES)
else ifneq ($(filter FreeBSD NetBSD OpenBSD DragonFly,$(UNAME_S)),)
# the BSDs show POSIX 2008 and their own interfaces when no macro is set
FEATURES  =
else
FEATURES  = -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
endif

# The tree-sitter runtime: by default the pinned one (grammars/tree-sitter.pin,
# fetched with npm like the grammar), compiled here and linked statically;
# TREE_SITTER=system links pkg-config's tree-sitter, which must be 0.25 or newer
# (the parse-options API; Debian bookworm's 0.20.7 is refused).
TREE_SITTER ?= pinned
TS_PIN     = grammars/tree-sitter.pin
TS_DIR     = grammars/tree-sitter
TS_LIB_DIR = $(TS_DIR)/vendor/tree-sitter/lib
TS_MIN     = 0.25
ifeq ($(TREE_SITTER),system)
PKGS      += tree-sitter
TS_VERSION := $(shell $(PKG_CONFIG) --modversion tree-sitter 2>/dev/null)
TS_ORIGIN  = system
TS_STAMP   =
TS_RUNTIME =
else ifeq ($(TREE_SITTER),pinned)
TS_VERSION := $(shell sed -n 's/^version=//p' $(TS_PIN))
TS_ORIGIN  = pinned
TS_STAMP   = $(TS_DIR)/.verified
TS_RUNTIME = $(O)/libtree-sitter.a
TS_INCLUDE = -I$(TS_LIB_DIR)/include
else
$(error TREE_SITTER=$(TREE_SITTER): use TREE_SITTER=pinned (the default) or TREE_SITTER=system)
endif

# the feature macros go with our code only (CPPFLAGS): the runtime has its own
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
override CFLAGS += -std=c11 -pthread
override CPPFLAGS += $(FEATURES) $(SRC_INCLUDES) $(TS_INCLUDE) $(PKG_CFLAGS)
LDLIBS   += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -pthread
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check 2>/dev/null)
# The suites' scratch folders (tests/test-lib.sh's, Check's, Python's
# tempfile) are made where TMPDIR says.  Unset, it is /dev/shm where that is
# a folder we may write with 2 GB free (in memory: on a disk mounted with
# `discard`, as our machines' are, copying the fixture trees took 1.9 s
# where /dev/shm takes 0.05 s), else /tmp.  .ci/run says the same.
ifeq ($(origin TMPDIR),undefined)
TEST_TMPDIR := $(shell d=/dev/shm; [ -d $$d ] && [ -w $$d ] && \
	[ "$$(df -Pk $$d 2>/dev/null | awk 'NR == 2 { print $$4 }')" -ge 2097152 ] 2>/dev/null && echo $$d)
ifneq ($(TEST_TMPDIR),)
export TMPDIR := $(TEST_TMPDIR)
endif
endif

# (make sanitize and make tsan multiply the suites' timeouts by TIMEOUT_SCALE=3:
# tests/test-lib.sh)
# tests/t0410-jobs.sh: how many times each -j 8 run is repeated to catch a
# race (make sanitize: 2, as make tsan, whose ThreadSanitizer sees races
# that ASan does not)
JOBS_REPEATS ?= 5
# tests/t0710-kill.sh in make check: runs killed, copies of the fixture inputs in its tree
KILL_RUNS ?= 15
KILL_COPIES ?= 10

ifdef SANITIZE
# (instrumented code runs several times slower: the parse time limit too, parse.h)
override CPPFLAGS += -DMPSFIX_PARSE_TIMEOUT_SCALE=4
override CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
override LDFLAGS += -fsanitize=$(SANITIZE)
endif

# src/ has a folder per part of the data flow (src/README.md); every folder
# is on the include path, so a file includes "rule.h", wherever it is
SRC_DIRS  = $(sort $(patsubst %/,%,$(dir $(wildcard src/*/*.[ch]))))
SRC_INCLUDES = $(addprefix -I,$(SRC_DIRS))
SRCS      = $(sort $(wildcard src/*/*.c))
LIB_SRCS  = $(filter-out src/cmd/main.c,$(SRCS))
LIB_OBJS  = $(LIB_SRCS:src/%.c=$(O)/src/%.o)
TEST_SRCS = $(sort $(wildcard tests/check_*.c)) tests/testutil.c
TEST_OBJS = $(TEST_SRCS:tests/%.c=$(O)/tests/%.o)
GRAMMAR_LIB = $(O)/libtree-sitter-python.a
# what every program links for parsing: the grammar, and the pinned runtime
PARSER_LIBS = $(GRAMMAR_LIB) $(TS_RUNTIME)
# the fetched sources every compile needs first
FETCHED_SRCS = $(GRAMMAR)/.verified $(TS_STAMP)

# make check: the test suites, each a target of its own (see "tests" below):
# the Check run, the rule examples, the shell suites tests/tNNNN-topic.sh, the
# bench generator's test, the fuzz replays and the semantic tests
CHECK_SUITES = unit-tests rule-examples t0000 t0010 t0100 t0110 t0130 t0200 t0300 t0310 t0400 t0410 \
	t0500 t0510 t0520 t0600 t0610 t0700 t0710 t0720 t0800 bench-test fuzz-replay semantics \
	lint-fixes

.PHONY: all check demo bench bench-notebooks bench-smoke lint-fixes install uninstall sanitize tsan tsan-tests deps clean distclean grammar FORCE \
	fuzz fuzz-targets replay-targets valgrind compat compat-api compat-posix $(CHECK_SUITES) torch-python sanitize-suites
.DELETE_ON_ERROR:

# A fresh machine lacks the libraries: `make demo`/`make check` install them
# first (as root; otherwise they print the apt-get line) and then start again,
# so that the flags above are read with the libraries in place.
# npm is needed only while a pinned tarball is not in grammars/cache yet, or,
# for make lint-fixes, while the pinned ruff is not in tests/ruff/node_modules.
NO_SETUP_GOALS = deps clean distclean
PINNED_TGZ = grammars/cache/tree-sitter-python-$(GRAMMAR_VERSION).tgz \
	$(if $(TS_STAMP),grammars/cache/tree-sitter-$(TS_VERSION).tgz)
RUFF_DIR = tests/ruff
RUFF_STAMP = $(RUFF_DIR)/node_modules/.installed
# (check needs the pinned ruff once lint-fixes is one of CHECK_SUITES)
RUFF_GOALS = lint-fixes $(if $(filter lint-fixes,$(CHECK_SUITES)),check)
NEEDS_NPM := $(strip $(filter-out $(wildcard $(PINNED_TGZ)),$(PINNED_TGZ)) \
	$(if $(filter $(RUFF_GOALS),$(MAKECMDGOALS)),$(filter-out $(wildcard $(RUFF_STAMP)),$(RUFF_STAMP))))
# Check (the C test framework) only for the goals that build the tests.
TEST_GOALS = check unit-tests sanitize tsan tsan-tests valgrind compat compat-api compat-posix \
	$(O)/check_all
NEEDS_CHECK := $(if $(filter $(TEST_GOALS),$(MAKECMDGOALS)),check)
MISSING := $(strip $(shell $(PKG_CONFIG) --exists $(PKGS) $(NEEDS_CHECK) 2>/dev/null || echo libraries) \
	$(if $(NEEDS_NPM),$(if $(shell command -v npm 2>/dev/null),,npm)))

# TREE_SITTER=system: refuse a runtime without the parse-options API, before
# anything is built or installed.
ifeq ($(TREE_SITTER),system)
ifneq ($(filter-out $(NO_SETUP_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell $(PKG_CONFIG) --atleast-version=$(TS_MIN) tree-sitter 2>/dev/null && echo ok),)
$(error TREE_SITTER=system needs tree-sitter $(TS_MIN) or newer from $(PKG_CONFIG); \
	$(if $(filter 0.6.3,$(TS_VERSION)),it reports 0.6.3 (Debian bookworm's libtree-sitter 0.20.7), \
	$(if $(TS_VERSION),it reports $(TS_VERSION),it finds none)). \
	Build with the pinned runtime (a plain make), or install a newer tree-sitter \
	(Homebrew: brew install tree-sitter) and point PKG_CONFIG_PATH at it)
endif
endif
endif

ifeq ($(MISSING),)
all: $(O)/mpsfix

# --- the pinned grammar and runtime -------------------------------------------
$(GRAMMAR)/.verified: grammars/tree-sitter-python.pin grammars/fetch.sh
	sh grammars/fetch.sh
	@touch $@

$(TS_DIR)/.verified: $(TS_PIN) grammars/fetch.sh
	sh grammars/fetch.sh tree-sitter.pin
	@touch $@

grammar: $(FETCHED_SRCS)

# the runtime is third-party code: its own feature macros (those of its
# Makefile), none of our warnings; compiled as one unit (lib.c).  Under
# ThreadSanitizer it stays uninstrumented, as a system library would be (a
# parser and its trees never leave their thread; instrumented, a 10 MB file
# takes longer than the parse timeout).
$(O)/tree-sitter/lib.o: $(TS_DIR)/.verified
	@mkdir -p $(@D)
	$(CC) $(filter-out -fsanitize=thread,$(CFLAGS)) -D_POSIX_C_SOURCE=200112L -D_DEFAULT_SOURCE -D_BSD_SOURCE \
		-D_DARWIN_C_SOURCE -w -I$(TS_LIB_DIR)/src -I$(TS_LIB_DIR)/src/wasm -I$(TS_LIB_DIR)/include \
		-c $(TS_LIB_DIR)/src/lib.c -o $@

$(O)/libtree-sitter.a: $(O)/tree-sitter/lib.o
	$(AR) rcs $@ $^

$(GRAMMAR_SRC)/parser.c $(GRAMMAR_SRC)/scanner.c: $(GRAMMAR)/.verified

# generated code: no -Werror, no warnings of ours
$(O)/grammar/%.o: $(GRAMMAR_SRC)/%.c | $(GRAMMAR)/.verified
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -w -I$(GRAMMAR_SRC) -c $< -o $@

$(GRAMMAR_LIB): $(O)/grammar/parser.o $(O)/grammar/scanner.o
	$(AR) rcs $@ $^

# --- our code -----------------------------------------------------------------
# what the sources are told at compile time (make compat uses it too)
DEFINES = -DMPSFIX_VERSION='"$(VERSION)"' -DMPSFIX_RULES_DIR='"$(DATADIR)/rules"' \
	-DMPSFIX_GRAMMAR_VERSION='"$(GRAMMAR_VERSION)"' \
	-DMPSFIX_TREE_SITTER='"$(TS_VERSION) ($(TS_ORIGIN))"'

$(O)/src/%.o: src/%.c | $(FETCHED_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARNINGS) $(CPPFLAGS) $(DEFINES) -MMD -MP -c $< -o $@

$(O)/src/engine/parse.o $(O)/src/cmd/version.o: grammars/tree-sitter-python.pin
# the runtime they were compiled against: rebuilt when TREE_SITTER changes
$(O)/tree-sitter-origin: FORCE
	@mkdir -p $(@D)
	@echo '$(TS_VERSION) $(TS_ORIGIN)' | cmp -s - $@ || echo '$(TS_VERSION) $(TS_ORIGIN)' >$@
$(LIB_OBJS) $(O)/src/cmd/main.o $(TEST_OBJS): $(O)/tree-sitter-origin

# settings.o has $(DATADIR) compiled in: rebuilt when it changes (make PREFIX=/usr install)
$(O)/datadir: FORCE
	@mkdir -p $(@D)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' >$@
$(O)/src/cmd/settings.o: $(O)/datadir
# version.o has $(VERSION) compiled in: rebuilt when it changes
$(O)/version: FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(O)/src/cmd/version.o: $(O)/version
FORCE:

$(O)/tests/%.o: tests/%.c | $(FETCHED_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARNINGS) $(CPPFLAGS) -MMD -MP -c $< -o $@

$(O)/libmpsfix.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(O)/mpsfix: $(O)/src/cmd/main.o $(O)/libmpsfix.a $(PARSER_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(O)/check_all: $(TEST_OBJS) $(O)/libmpsfix.a $(PARSER_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CHECK_LIBS) $(LDLIBS) -o $@

# tests/t0700-adversarial.sh, t0300-git.sh: a library that changes a file while
# mpsfix works on it, or refuses to write one
$(O)/tests/preload_change.so: tests/preload_change.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) $(WARNINGS) -fPIC -shared $< -o $@ -ldl

# --- fuzz targets (tests/fuzz/) -------------------------------------------------
# Each target is linked twice: with replay.c, a main() that runs the inputs it
# is given once (make check replays the seeds and regressions with $(CC)), and,
# in the fuzz build (clang, FUZZING=1), with libFuzzer.
FUZZ_TARGETS = rule pattern pipeline notebook
FUZZ_SECONDS ?= 10
FUZZ_O ?= build-fuzz
FUZZ_CC ?= clang

$(O)/fuzz/%.o: tests/fuzz/%.c | $(FETCHED_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARNINGS) $(CPPFLAGS) -DMPSFIX_FUZZ_RULES='"$(CURDIR)/rules"' \
		-MMD -MP -c $< -o $@

$(O)/fuzz/replay-%: $(O)/fuzz/fuzz_%.o $(O)/fuzz/fuzz_common.o $(O)/fuzz/replay.o \
		$(O)/libmpsfix.a $(PARSER_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

ifdef FUZZING
$(O)/fuzz/fuzz-%: $(O)/fuzz/fuzz_%.o $(O)/fuzz/fuzz_common.o $(O)/libmpsfix.a $(PARSER_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer $^ $(LDLIBS) -o $@
endif

# kept between builds (make would delete them as intermediate files)
.SECONDARY: $(FUZZ_TARGETS:%=$(O)/fuzz/fuzz_%.o) $(O)/fuzz/fuzz_common.o $(O)/fuzz/replay.o

fuzz-targets: $(FUZZ_TARGETS:%=$(O)/fuzz/fuzz-%)
replay-targets: $(FUZZ_TARGETS:%=$(O)/fuzz/replay-%)

# make fuzz FUZZ_SECONDS=N: each target for N seconds, ASan and UBSan on
fuzz:
	$(MAKE) O=$(FUZZ_O) CC=$(FUZZ_CC) SANITIZE=address,undefined FUZZING=1 \
		CFLAGS='-O1 -g -fsanitize=fuzzer-no-link' fuzz-targets
	sh tests/fuzz/run.sh $(FUZZ_O) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# the inputs each replay-TARGET runs in make check: the seeds and the regressions
REPLAY_rule = rules fixtures/bad-rules $(wildcard fixtures/engine/*/rule.yml) tests/fuzz/corpus/rule \
	$(wildcard tests/fuzz/regressions/rule)
REPLAY_pattern = tests/fuzz/corpus/pattern $(wildcard tests/fuzz/regressions/pattern)
REPLAY_pipeline = fixtures/rules fixtures/engine fixtures/bad fixtures/bad-fixed fixtures/demo \
	fixtures/cli/project fixtures/cli/amp-trainer/project tests/fuzz/corpus/pipeline $(wildcard tests/fuzz/regressions/pipeline)
REPLAY_notebook = fixtures/notebook tests/fuzz/corpus/notebook $(wildcard tests/fuzz/regressions/notebook)

-include $(wildcard $(O)/src/*/*.d $(O)/tests/*.d $(O)/fuzz/*.d)

# --- compile checks: the newest headers, and a strict libc (make compat) -------
# (a) every source against Homebrew's current tree-sitter (0.26) and libgit2
#     (1.9) headers, nothing deprecated (GIT_DEPRECATE_HARD);
# (b) every source with clang in strict POSIX mode plus Darwin's macros: on
#     glibc that hides what macOS hides (flock, DT_*, ...), so anything beyond
#     POSIX 2008 must be behind a guard.
# -fsyntax-only -Werror; nothing is linked.  .ci/run runs it.
COMPAT    ?= ../shared/compat
COMPAT_TS  = $(COMPAT)/tree-sitter-0.26.12/lib/include
COMPAT_GIT2 = $(COMPAT)/libgit2-1.9.7/include
COMPAT_CC ?= clang
COMPAT_SRCS = $(SRCS) $(sort $(wildcard tests/*.c tests/fuzz/*.c))
# (pkg-config asked once, only when a compat goal is made)
ifneq ($(filter compat%,$(MAKECMDGOALS)),)
COMPAT_CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
endif
COMPAT_COMMON = -fsyntax-only -Werror $(WARNINGS) -std=c11 -pthread $(SRC_INCLUDES) $(DEFINES) \
	-DMPSFIX_FUZZ_RULES='"$(CURDIR)/rules"' $(COMPAT_CHECK_CFLAGS)
# the compat headers come first, ahead of any folder pkg-config names
COMPAT_API_FLAGS = $(COMPAT_COMMON) $(FEATURES) -I$(COMPAT_TS) -I$(COMPAT_GIT2) -DGIT_DEPRECATE_HARD \
	$(PKG_CFLAGS)
COMPAT_POSIX_FLAGS = $(COMPAT_COMMON) -D_POSIX_C_SOURCE=200809L $(DARWIN_FEATURES) $(TS_INCLUDE) \
	$(PKG_CFLAGS)

compat: compat-api compat-posix
compat-api: $(COMPAT_SRCS:%=$(O)/compat-api/%.ok)
compat-posix: $(COMPAT_SRCS:%=$(O)/compat-posix/%.ok)

$(O)/compat-api/%.ok: % FORCE | compat-headers
	@mkdir -p $(@D)
	$(CC) $(COMPAT_API_FLAGS) $<
	@touch $@

$(O)/compat-posix/%.ok: % FORCE | $(FETCHED_SRCS)
	@mkdir -p $(@D)
	$(COMPAT_CC) $(COMPAT_POSIX_FLAGS) $<
	@touch $@

compat-headers:
	@test -f '$(COMPAT_TS)/tree_sitter/api.h' && test -f '$(COMPAT_GIT2)/git2.h' || { \
		echo "make compat: no tree-sitter 0.26.12 and libgit2 1.9.7 headers under $(COMPAT) (set COMPAT=DIR)" >&2; \
		exit 2; }
.PHONY: compat-headers

# --- tests --------------------------------------------------------------------
# make check runs every suite of CHECK_SUITES (above), each a target of its
# own: make t0100 runs tests/t0100-cli.sh against $(O)/mpsfix, make unit-tests
# the Check suites.  make -j2 check runs them side by side (each shell suite
# works in a scratch folder of its own: tests/test-lib.sh), and prints each
# suite's output whole when it ends.
ifneq ($(filter check sanitize-suites $(CHECK_SUITES),$(MAKECMDGOALS)),)
ifneq ($(filter output-sync,$(.FEATURES)),)
MAKEFLAGS += --output-sync=target
endif
endif

# (the slowest first: the semantic tests, -j and the command line, so that
# make -j2 check ends sooner)
check: semantics t0410 t0100 $(CHECK_SUITES)

unit-tests: $(O)/check_all $(O)/mpsfix
	@echo "== unit and fixture tests (Check)"
	MPSFIX_TOP=$(CURDIR) $(O)/check_all

rule-examples: $(O)/mpsfix
	@echo "== rule examples (mpsfix test)"
	$(O)/mpsfix test rules

t0000: $(O)/mpsfix
	@echo "== the build: pinned runtime, warnings, TREE_SITTER=system"
	sh tests/t0000-build.sh $(O)

t0010:
	@echo "== the layout of src/: folders, file sizes, no include cycle, libgit2 in git/"
	sh tests/t0010-layout.sh

t0100: $(O)/mpsfix
	@echo "== command-line tests"
	sh tests/t0100-cli.sh $(O)/mpsfix

t0110: $(O)/mpsfix
	@echo "== command line for CI and review"
	sh tests/t0110-cli-lint.sh $(O)/mpsfix

t0130: $(O)/mpsfix
	@echo "== Jupyter notebooks"
	sh tests/t0130-notebook.sh $(O)/mpsfix

t0200: $(O)/mpsfix
	@echo "== torch targeting, rules and explain"
	sh tests/t0200-target.sh $(O)/mpsfix

t0300: $(O)/mpsfix $(O)/tests/preload_change.so
	@echo "== git: commit, patch"
	sh tests/t0300-git.sh $(O)/mpsfix $(O)/tests/preload_change.so

t0310: $(O)/mpsfix
	@echo "== review on a terminal (tmux)"
	sh tests/t0310-review-tmux.sh $(O)/mpsfix

t0400: $(O)/mpsfix
	@echo "== prefilter: every fixture with and without it"
	sh tests/t0400-prefilter.sh $(O)/mpsfix

t0410: $(O)/mpsfix
	@echo "== -j 1 and -j 2, 3, 8 print and write the same"
	sh tests/t0410-jobs.sh $(O)/mpsfix $(JOBS_REPEATS)

t0500: $(O)/mpsfix
	@echo "== option table, --help and man pages"
	sh tests/t0500-man.sh $(O)/mpsfix

t0510: $(O)/mpsfix
	@echo "== bash completion"
	bash tests/t0510-completion.sh $(O)/mpsfix

t0520: $(O)/mpsfix
	@echo "== every command of README.md"
	sh tests/t0520-readme.sh $(O)/mpsfix

t0600: $(O)/mpsfix
	@echo "== make install and uninstall (PREFIX, DESTDIR)"
	sh tests/t0600-install.sh $(O)

t0610: $(O)/mpsfix
	@echo "== pre-commit hook and GitHub Actions examples"
	sh tests/t0610-examples.sh $(O)/mpsfix

bench-test: $(O)/mpsfix
	@echo "== bench corpus generator: deterministic, parses, mpsfix finds exactly the planted sites"
	/usr/bin/python3 bench/test_gen.py --mpsfix $(O)/mpsfix --out $(O)/bench-test

fuzz-replay: replay-targets
	@echo "== fuzz targets on their seeds and regressions"
	$(foreach t,$(FUZZ_TARGETS),$(O)/fuzz/replay-$(t) $(REPLAY_$(t)) &&) true

t0700: $(O)/mpsfix $(O)/tests/preload_change.so
	@echo "== adversarial input"
	sh tests/t0700-adversarial.sh $(O)/mpsfix $(O)/tests/preload_change.so

t0710: $(O)/mpsfix
	@echo "== fix killed with SIGKILL at random moments ($(KILL_RUNS) runs)"
	sh tests/t0710-kill.sh $(O)/mpsfix $(KILL_RUNS) $(KILL_COPIES)

t0720: $(O)/mpsfix
	@echo "== commit killed with SIGKILL at random moments (8 runs)"
	sh tests/t0720-kill-commit.sh $(O)/mpsfix 8 4

# The semantic tests run fixed scripts under Debian's torch (python3-torch, for
# /usr/bin/python3); without it they install it first, as the build's
# dependencies are (root), or print the apt-get line.
TORCH_PYTHON ?= /usr/bin/python3
torch-python:
	@$(TORCH_PYTHON) -c 'import torch' 2>/dev/null || { \
		echo "mpsfix: the semantic tests need python3-torch: running make deps first"; \
		$(MAKE) --no-print-directory deps; }

t0800: $(O)/mpsfix torch-python
	@echo "== the semantic test harness"
	MPSFIX_TORCH_PYTHON=$(TORCH_PYTHON) sh tests/t0800-semantics.sh $(O)/mpsfix

semantics: t0800 $(O)/mpsfix torch-python
	@echo "== semantic tests (fixed scripts compute what the originals did, torch on the CPU; fixes with an MPS branch take it where MPS is available)"
	$(TORCH_PYTHON) tests/semantics/run.py --mpsfix $(O)/mpsfix

# make lint-fixes (issue 18, item 7): ruff checks what mpsfix writes.  The
# pinned ruff, @astral-sh/ruff-wasm-nodejs (WebAssembly, run by node), is
# installed once with `npm ci` (checksums from tests/ruff/package-lock.json)
# into the git-ignored tests/ruff/node_modules; later runs are offline.
# tests/ruff/lint_fixes.py runs compare.js's self-test (tests/ruff/selftest/),
# then compares every fixture's expected.py with its input.py, every rule
# example's output with its input and the fixed demo with fixtures/demo: a
# fixed text must have no ruff I001 or E501 diagnostic (at the line length of
# the fixture's configuration files, default 88) that its input did not have.
# RUFF_SELECT=E,F,W,I compares those codes too, for a report.
# One of CHECK_SUITES: a fix that writes a long line or misplaces an import fails make check.
RUFF_SELECT ?=
RUFF_SELECT_OPT = $(if $(RUFF_SELECT),--select '$(RUFF_SELECT)')
$(RUFF_STAMP): $(RUFF_DIR)/package.json $(RUFF_DIR)/package-lock.json
	cd $(RUFF_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

lint-fixes: $(O)/mpsfix $(RUFF_STAMP)
	@echo "== ruff over what mpsfix writes: no new I001 or E501 in fixtures, rule examples, the fixed demo"
	/usr/bin/python3 tests/ruff/lint_fixes.py --mpsfix $(O)/mpsfix --out $(O)/lint-fixes $(RUFF_SELECT_OPT)

# make sanitize: the suites again, built with ASan and UBSan, but those
# whose subject is not our code running on an input: the build (t0000), the
# layout of src/ (t0010), ruff's verdicts (lint-fixes), and the two whose time
# goes to Python importing torch (t0800, the harness's own test: 250 s on our
# machines, and semantics), the same with our code sanitized or not.  Every
# fix the semantic scripts get still runs under the sanitizers: t0400 fixes
# tests/semantics and fixtures/semantics, with and without the prefilter.
SANITIZE_SUITES = $(filter-out t0000 t0010 lint-fixes t0800 semantics,$(CHECK_SUITES))
sanitize:
	TIMEOUT_SCALE=3 $(MAKE) O=build-san SANITIZE=address,undefined CFLAGS='-O1 -g' JOBS_REPEATS=2 \
		sanitize-suites

# (the slowest first, as for check)
sanitize-suites: t0410 t0400 t0100 $(SANITIZE_SUITES)

# ThreadSanitizer (clang) over the pool's tests and the command line on threads
TSAN_CC ?= clang
# (the tests run in a sub-make that has the flags, as for sanitize: the make
# install of t0100-cli.sh rebuilds main.o with them)
tsan:
	TIMEOUT_SCALE=3 $(MAKE) O=build-tsan CC=$(TSAN_CC) SANITIZE=thread CFLAGS='-O1 -g' tsan-tests

tsan-tests: $(O)/mpsfix $(O)/check_all
	TSAN_OPTIONS='halt_on_error=1 exitcode=66 second_deadlock_stack=1' CK_RUN_SUITE=pool \
		MPSFIX_TOP=$(CURDIR) $(O)/check_all
	TSAN_OPTIONS='halt_on_error=1 exitcode=66' CK_RUN_SUITE=pattern CK_RUN_CASE=threads \
		MPSFIX_TOP=$(CURDIR) $(O)/check_all
	TSAN_OPTIONS='halt_on_error=1 exitcode=66' sh tests/t0410-jobs.sh $(O)/mpsfix 2
	TSAN_OPTIONS='halt_on_error=1 exitcode=66' MPSFIX_JOBS=4 sh tests/t0100-cli.sh $(O)/mpsfix

# memcheck (valgrind) over the Check suites, the fuzz replays and the command line
valgrind: $(O)/check_all $(O)/mpsfix replay-targets
	sh tests/valgrind.sh $(O)

# --- benchmark (issue 7; not part of make check) -------------------------------
# make bench: corpora of BENCH_SIZES MB under $(O)/bench, the pinned ast-grep
# (npm ci in bench/), BENCH_ROUNDS alternated rounds after BENCH_WARMUP warm-ups
# (a number, or by size: BENCH_ROUNDS=70=5,700=3); see bench/run.py.
BENCH_SIZES ?= 70 700
BENCH_ROUNDS ?= 5
BENCH_WARMUP ?= 1
bench: $(O)/mpsfix
	@test -x /usr/bin/time || { if [ "$$(id -u)" = 0 ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends time; \
	else echo "make bench: needs /usr/bin/time: sudo apt-get install time"; exit 1; fi; }
	/usr/bin/python3 bench/run.py --mpsfix $(O)/mpsfix --out $(O)/bench --sizes '$(BENCH_SIZES)' \
		--rounds '$(BENCH_ROUNDS)' --warmup '$(BENCH_WARMUP)'

# make bench-notebooks: mpsfix check over NOTEBOOKS_COUNT generated notebooks of
# NOTEBOOKS_MB MB each, mostly outputs (issue 20); see bench/notebooks.py
NOTEBOOKS_COUNT ?= 1000
NOTEBOOKS_MB ?= 1
bench-notebooks: $(O)/mpsfix
	@test -x /usr/bin/time || { if [ "$$(id -u)" = 0 ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends time; \
	else echo "make bench-notebooks: needs /usr/bin/time: sudo apt-get install time"; exit 1; fi; }
	/usr/bin/python3 bench/notebooks.py --mpsfix $(O)/mpsfix --out $(O)/bench-notebooks \
		--count $(NOTEBOOKS_COUNT) --size-mb $(NOTEBOOKS_MB)

# the generator's own tests (no network), then the whole pipeline at 1 MB
bench-smoke: $(O)/mpsfix
	/usr/bin/python3 bench/test_gen.py --mpsfix $(O)/mpsfix --out $(O)/bench-smoke
	/usr/bin/python3 bench/run.py --mpsfix $(O)/mpsfix --out $(O)/bench-smoke --sizes 1 --rounds 2

demo: $(O)/mpsfix
	@echo "\$$ mpsfix diff fixtures/demo"
	@MPSFIX_RULES_DIR=$(CURDIR)/rules $(O)/mpsfix diff fixtures/demo; status=$$?; \
		if [ $$status -gt 1 ]; then exit $$status; fi

# --- install ------------------------------------------------------------------
# POSIX install(1) flags only (-d, -m): BSD/macOS install takes them too.  The
# binary finds its rules at run time in ../share/mpsfix/rules next to itself
# (DESTDIR staging and relocated prefixes work), else in $(DATADIR)/rules as
# compiled in.  uninstall removes exactly the files install wrote, and the
# $(DATADIR) folder, which is mpsfix's own; shared folders stay (tests/t0600-install.sh).
INSTALL_RULES = $(sort $(wildcard rules/*.yml))

install: $(O)/mpsfix
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(DATADIR)/rules' \
		'$(DESTDIR)$(MANDIR)/man1' '$(DESTDIR)$(MANDIR)/man5' '$(DESTDIR)$(BASHCOMPDIR)'
	install -m 755 $(O)/mpsfix '$(DESTDIR)$(BINDIR)/mpsfix'
	install -m 644 $(INSTALL_RULES) '$(DESTDIR)$(DATADIR)/rules/'
	install -m 644 man/mpsfix.1 '$(DESTDIR)$(MANDIR)/man1/mpsfix.1'
	install -m 644 man/mpsfix-rules.5 '$(DESTDIR)$(MANDIR)/man5/mpsfix-rules.5'
	install -m 644 completion/mpsfix.bash '$(DESTDIR)$(BASHCOMPDIR)/mpsfix'

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/mpsfix' '$(DESTDIR)$(MANDIR)/man1/mpsfix.1' \
		'$(DESTDIR)$(MANDIR)/man5/mpsfix-rules.5' '$(DESTDIR)$(BASHCOMPDIR)/mpsfix'
	rm -f $(INSTALL_RULES:rules/%='$(DESTDIR)$(DATADIR)/rules/%')
	rmdir '$(DESTDIR)$(DATADIR)/rules' '$(DESTDIR)$(DATADIR)' 2>/dev/null || true

else
ifeq ($(filter $(NO_SETUP_GOALS),$(MAKECMDGOALS)),)
.DEFAULT_GOAL := all
all check $(CHECK_SUITES) demo bench bench-notebooks bench-smoke lint-fixes install sanitize tsan grammar fuzz valgrind compat: fresh-machine
	@:
fresh-machine:
ifeq ($(UNAME_S),Darwin)
	@echo "mpsfix: missing build dependencies ($(MISSING)): brew install $(BREW_PACKAGES)$(if $(NEEDS_CHECK), $(BREW_TEST_PACKAGES))" >&2
	@exit 2
endif
	@if [ -n "$(MPSFIX_DEPS_TRIED)" ]; then \
		echo "mpsfix: still missing after make deps: $(MISSING) (is $(PKG_CONFIG) working?)" >&2; exit 2; \
	fi
	@echo "mpsfix: missing build dependencies ($(MISSING)): running make deps first"
	@if [ "$$(id -u)" != 0 ]; then \
		echo "mpsfix: not root; run 'sudo make deps' (or the apt-get line it prints), then make again" >&2; \
		$(MAKE) --no-print-directory deps; exit 2; \
	fi
	$(MAKE) --no-print-directory deps
	$(MAKE) --no-print-directory MPSFIX_DEPS_TRIED=1 $(or $(MAKECMDGOALS),all)
.PHONY: fresh-machine
endif
endif

# --- set-up -------------------------------------------------------------------
DEBIAN_PACKAGES = build-essential pkg-config libgit2-dev libyaml-dev \
	libjansson-dev check git ca-certificates openssl groff-base python3-torch python3-yaml tmux
# npm only when missing: a Node.js that bundles npm conflicts with Debian's npm
NPM_PACKAGE = $(if $(shell command -v npm 2>/dev/null),,npm)

# macOS: Homebrew's names (README.md, "macOS"); node brings npm
BREW_PACKAGES = libgit2 libyaml jansson pkgconf node
BREW_TEST_PACKAGES = check tmux groff

deps:
ifeq ($(UNAME_S),Darwin)
	@echo "on macOS: brew install $(BREW_PACKAGES); for make check also: brew install $(BREW_TEST_PACKAGES) (README.md, macOS)"
else
	@if [ "$$(id -u)" = 0 ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES) $(NPM_PACKAGE); \
	else \
		echo "run as root, or: sudo apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES) $(NPM_PACKAGE)"; \
	fi
endif

clean:
	rm -rf $(O) build-san build-tsan $(FUZZ_O)

distclean: clean
	rm -rf $(GRAMMAR) $(TS_DIR) grammars/cache
