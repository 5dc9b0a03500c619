#!/bin/sh
# Fetch the pinned tree-sitter-python package, verify it against the recorded
# sha512 integrity, and unpack parser.c/scanner.c under grammars/tree-sitter-python/.
# A verified tarball in grammars/cache/ makes later builds work offline.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pin="$here/tree-sitter-python.pin"
name=$(sed -n 's/^name=//p' "$pin")
version=$(sed -n 's/^version=//p' "$pin")
integrity=$(sed -n 's/^integrity=//p' "$pin")
cache="$here/cache"
tarball="$cache/$name-$version.tgz"
dest="$here/$name"

die() { echo "grammars/fetch.sh: $*" >&2; exit 1; }

# sha512 of a file in npm's integrity form (sha512-<base64>)
integrity_of() {
	if command -v openssl >/dev/null 2>&1; then
		printf 'sha512-%s' "$(openssl dgst -sha512 -binary "$1" | base64 | tr -d '\n')"
	elif command -v node >/dev/null 2>&1; then
		node -e 'const c=require("crypto"),f=require("fs");process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
	else
		die "need openssl or node to verify $1"
	fi
}

if [ -f "$dest/.verified" ] && [ "$(cat "$dest/.verified")" = "$integrity" ] &&
   [ -f "$dest/src/parser.c" ]; then
	exit 0
fi

mkdir -p "$cache"
if [ ! -f "$tarball" ]; then
	command -v npm >/dev/null 2>&1 ||
		die "npm is needed to fetch $name@$version (no cached $tarball); install Debian's npm"
	echo "fetching $name@$version with npm pack" >&2
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	if ! (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null); then
		rm -rf "$tmp"
		die "npm pack $name@$version failed"
	fi
	mv "$tmp/$name-$version.tgz" "$tarball.part"
	rm -rf "$tmp"
	got=$(integrity_of "$tarball.part")
	if [ "$got" != "$integrity" ]; then
		rm -f "$tarball.part"
		die "checksum mismatch for $name@$version: expected $integrity, got $got; refusing to build with it"
	fi
	mv "$tarball.part" "$tarball"
fi

got=$(integrity_of "$tarball")
[ "$got" = "$integrity" ] ||
	die "checksum mismatch for cached $tarball: expected $integrity, got $got; delete it to fetch again"

rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp"
tar -xzf "$tarball" -C "$dest.tmp" package/src package/LICENSE
mv "$dest.tmp/package" "$dest"
rmdir "$dest.tmp"
printf '%s' "$integrity" > "$dest/.verified"
echo "grammar $name@$version verified and unpacked in grammars/$name" >&2
