#!/bin/sh
# The build as users and packagers meet it:
#   1. the binary carries the pinned tree-sitter runtime (no libtree-sitter
#      among its shared libraries) and names it in --version;
#   2. a plain make passes no -Werror to the compiler; DEVELOPER=1 does;
#   3. TREE_SITTER=system refuses a tree-sitter older than 0.25 (Debian
#      bookworm's 0.20.7) or none, before building anything; a TREE_SITTER
#      that is neither is refused too;
#   4. a runtime tarball that does not match its pin is refused.
# usage: sh tests/t0000-build.sh [BUILD-FOLDER]; prints 'N passed, N failed'.
. "$(dirname "$0")/test-lib.sh"
MAKEFLAGS= ; export MAKEFLAGS
pin_version=$(sed -n 's/^version=//p' grammars/tree-sitter.pin)

# --- 1. the pinned runtime, linked statically -------------------------------------
if command -v ldd >/dev/null 2>&1; then
	run ldd "$bin"
	libs="$out"
elif command -v otool >/dev/null 2>&1; then
	run otool -L "$bin"
	libs="$out"
else
	libs=""
fi
if [ -z "$libs" ]; then
	ok "shared libraries: no ldd or otool here, not checked"
else
	case $libs in
	*tree-sitter*) fail "no libtree-sitter among the shared libraries" "$libs" ;;
	*) ok "no libtree-sitter among the shared libraries" ;;
	esac
	case $libs in
	*libgit2*) ok "libgit2 is linked from the system" ;;
	*) fail "libgit2 is linked from the system" "$libs" ;;
	esac
fi
run "$bin" --version
case $out in
*"(system), runtime"*) # make TREE_SITTER=system check
	expect_out "--version names the system runtime" \
		"tree-sitter: $(pkg-config --modversion tree-sitter) (system), runtime for language ABI" ;;
*) expect_out "--version names the pinned runtime" "tree-sitter: $pin_version (pinned), runtime for language ABI" ;;
esac

# --- 2. warnings are errors only for developers -------------------------------------
run env -u DEVELOPER make -n O="$tmp/plain" "$tmp/plain/src/engine/parse.o"
expect_rc "make -n (plain)" 0
expect_out "a plain make compiles our code" "-c src/engine/parse.c"
expect_no_out "a plain make passes no -Werror" "-Werror"
run env -u DEVELOPER make -n DEVELOPER=1 O="$tmp/dev" "$tmp/dev/src/engine/parse.o"
expect_out "make DEVELOPER=1 passes -Werror" "-Werror"
run env -u DEVELOPER make -n DEVELOPER=1 O="$tmp/dev" "$tmp/dev/tree-sitter/lib.o"
expect_out "the runtime is compiled from its one unit" "lib/src/lib.c"
expect_no_out "the runtime is compiled without -Werror, even for developers" "-Werror"

# --- 3. TREE_SITTER=system ----------------------------------------------------------------
run make O="$tmp/system" TREE_SITTER=system "$tmp/system/mpsfix"
if pkg-config --atleast-version=0.25 tree-sitter 2>/dev/null; then
	expect_rc "TREE_SITTER=system with tree-sitter $(pkg-config --modversion tree-sitter) builds" 0
	run "$tmp/system/mpsfix" --version
	expect_out "--version names the system runtime" "(system), runtime for language ABI"
else
	expect_rc "TREE_SITTER=system with an old or no tree-sitter: refused" 2
	expect_err "TREE_SITTER=system: the reason" "TREE_SITTER=system needs tree-sitter 0.25 or newer from pkg-config"
	if pkg-config --exists tree-sitter 2>/dev/null; then
		expect_err "TREE_SITTER=system: the version found" "it reports $(pkg-config --modversion tree-sitter)"
	else
		expect_err "TREE_SITTER=system: none found" "it finds none"
	fi
	expect_err "TREE_SITTER=system: what to do instead" "Build with the pinned runtime (a plain make)"
	[ ! -e "$tmp/system" ] && ok "TREE_SITTER=system: nothing built" || fail "TREE_SITTER=system: nothing built"
fi
# a tree-sitter that pkg-config reports as 0.25: the pinned sources built and
# installed as a distribution would (header, library, tree-sitter.pc)
if [ -f "$build/tree-sitter/lib.o" ]; then
	ts=$tmp/ts
	mkdir -p "$ts/include/tree_sitter" "$ts/lib/pkgconfig"
	cp grammars/tree-sitter/vendor/tree-sitter/lib/include/tree_sitter/api.h "$ts/include/tree_sitter/"
	ar rcs "$ts/lib/libtree-sitter.a" "$build/tree-sitter/lib.o"
	printf 'prefix=%s\nName: tree-sitter\nDescription: test\nVersion: %s\nLibs: -L${prefix}/lib -ltree-sitter\nCflags: -I${prefix}/include\n' \
		"$ts" "$pin_version" >"$ts/lib/pkgconfig/tree-sitter.pc"
	run env PKG_CONFIG_PATH="$ts/lib/pkgconfig" make -j2 O="$tmp/system-new" TREE_SITTER=system "$tmp/system-new/mpsfix"
	expect_rc "TREE_SITTER=system with a tree-sitter $pin_version from pkg-config: builds" 0
	case $out in
	*grammars/tree-sitter/vendor*) fail "TREE_SITTER=system: the pinned runtime is not used" ;;
	*) ok "TREE_SITTER=system: the pinned runtime is not used" ;;
	esac
	run "$tmp/system-new/mpsfix" --version
	expect_out "TREE_SITTER=system: --version names the system runtime" "tree-sitter: $pin_version (system)"
	run env MPSFIX_RULES_DIR="$top/rules" "$tmp/system-new/mpsfix" diff fixtures/demo
	printf '%s\n' "$out" >"$tmp/system-demo.diff"
	same_files "TREE_SITTER=system: the demo diff" "$tmp/system-demo.diff" fixtures/demo.expected.diff
else
	ok "no pinned runtime object in $build: the system build is not tried"
fi
run make O="$tmp/other" TREE_SITTER=vendored
expect_rc "TREE_SITTER=vendored: refused" 2
expect_err "TREE_SITTER=vendored: the choices" "use TREE_SITTER=pinned (the default) or TREE_SITTER=system"

# --- 4. the runtime's checksum ----------------------------------------------------------
mkdir -p "$tmp/g/cache"
cp grammars/fetch.sh "$tmp/g/"
sed 's/^integrity=sha512-./integrity=sha512-X/' grammars/tree-sitter.pin >"$tmp/g/tree-sitter.pin"
if [ -f "grammars/cache/tree-sitter-$pin_version.tgz" ]; then
	cp "grammars/cache/tree-sitter-$pin_version.tgz" "$tmp/g/cache/"
	run sh "$tmp/g/fetch.sh" tree-sitter.pin
	[ "$rc" != 0 ] && ok "runtime checksum mismatch fails" || fail "runtime checksum mismatch fails"
	expect_err "runtime checksum mismatch is explained" "checksum mismatch for cached"
	[ ! -d "$tmp/g/tree-sitter" ] && ok "mismatched runtime is not unpacked" || fail "mismatched runtime is not unpacked"
	# the right checksum: unpacked, the core's one unit among the files
	cp grammars/tree-sitter.pin "$tmp/g/tree-sitter.pin"
	run sh "$tmp/g/fetch.sh" tree-sitter.pin
	expect_rc "runtime with its checksum: unpacked" 0
	[ -f "$tmp/g/tree-sitter/vendor/tree-sitter/lib/src/lib.c" ] &&
		[ -f "$tmp/g/tree-sitter/vendor/tree-sitter/lib/include/tree_sitter/api.h" ] &&
		ok "runtime: lib.c and api.h unpacked" || fail "runtime: lib.c and api.h unpacked"
	[ ! -e "$tmp/g/tree-sitter/prebuilds" ] && ok "runtime: the Node.js binaries are left in the tarball" ||
		fail "runtime: the Node.js binaries are left in the tarball"
else
	ok "runtime tarball not cached: checksum test not run"
fi

test_done
