#!/bin/sh
# Fetch a pinned npm package, verify it against the sha512 integrity its pin
# records, and unpack the paths the pin lists under grammars/NAME/.
#
#   sh grammars/fetch.sh [PIN]     PIN: a file in grammars/, default
#                                  tree-sitter-python.pin (the grammar);
#                                  tree-sitter.pin is the runtime
#
# A pin holds name=, version=, integrity= (npm's sha512-<base64>) and files=
# (paths inside the package, blank-separated; default: src LICENSE).
# A verified tarball in grammars/cache/ makes later builds work offline.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pin="$here/${1:-tree-sitter-python.pin}"

die() { echo "grammars/fetch.sh: $*" >&2; exit 1; }

[ -f "$pin" ] || die "no pin file $pin"
name=$(sed -n 's/^name=//p' "$pin")
version=$(sed -n 's/^version=//p' "$pin")
integrity=$(sed -n 's/^integrity=//p' "$pin")
files=$(sed -n 's/^files=//p' "$pin")
[ -n "$files" ] || files="src LICENSE"
[ -n "$name" ] && [ -n "$version" ] && [ -n "$integrity" ] ||
	die "$pin: needs name=, version= and integrity="
cache="$here/cache"
tarball="$cache/$name-$version.tgz"
dest="$here/$name"

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

unpacked() {
	[ -f "$dest/.verified" ] && [ "$(cat "$dest/.verified")" = "$integrity" ] || return 1
	for f in $files; do
		[ -e "$dest/$f" ] || return 1
	done
}

if unpacked; then
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
members=
for f in $files; do
	members="$members package/$f"
done
# shellcheck disable=SC2086 # the members are blank-separated on purpose
tar -xzf "$tarball" -C "$dest.tmp" $members
mv "$dest.tmp/package" "$dest"
rmdir "$dest.tmp"
printf '%s' "$integrity" > "$dest/.verified"
echo "$name@$version verified and unpacked in grammars/$name" >&2
