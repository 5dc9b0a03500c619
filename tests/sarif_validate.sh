#!/bin/sh
# sarif_validate.sh [FILE...]: validate SARIF logs against the OASIS SARIF
# 2.1.0 JSON schema (the copy @microsoft/jest-sarif ships) with ajv.
# Without FILE, validates `$MPSFIX check --format sarif fixtures/demo`
# (MPSFIX defaults to build/mpsfix).  The first run installs the pinned npm
# packages into tests/.sarif-validate/ (git-ignored); needs node and npm.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/tests/.sarif-validate"
schema="$dir/sarif-schema-2.1.0.json"
mpsfix=${MPSFIX:-$top/build/mpsfix}

if [ ! -f "$dir/ready" ]; then
	mkdir -p "$dir"
	(
		cd "$dir"
		echo '{"private": true}' > package.json
		npm install --no-audit --no-fund --silent ajv@8.17.1 ajv-draft-04@1.0.0 ajv-formats@3.0.1
		npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 > /dev/null
		tar -xzf microsoft-jest-sarif-1.0.0-beta.0.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json
		mv package/lib/schemas/sarif-2.1.0-rtm.5.json "$schema"
		rm -rf package microsoft-jest-sarif-1.0.0-beta.0.tgz
	)
	touch "$dir/ready"
fi

tmp=
cleanup() { [ -z "$tmp" ] || rm -f "$tmp"; }
trap cleanup EXIT
if [ $# -eq 0 ]; then
	tmp=$(mktemp)
	status=0
	(cd "$top" && "$mpsfix" check --format sarif fixtures/demo) > "$tmp" || status=$?
	if [ "$status" -gt 1 ]; then
		echo "sarif_validate: $mpsfix exited with $status" >&2
		exit 1
	fi
	set -- "$tmp"
fi

files=
for f in "$@"; do
	case $f in
	/*) files="$files $f" ;;
	*) files="$files $PWD/$f" ;;
	esac
done

# shellcheck disable=SC2086
cd "$dir" && node -e '
const Ajv = require("ajv-draft-04");
const addFormats = require("ajv-formats");
const fs = require("fs");
const ajv = new Ajv({allErrors: true, strict: false, unicodeRegExp: false});
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[1], "utf8")));
let failed = 0;
for (const file of process.argv.slice(2)) {
	if (validate(JSON.parse(fs.readFileSync(file, "utf8")))) {
		console.log(`${file}: valid SARIF 2.1.0`);
	} else {
		failed++;
		for (const e of validate.errors)
			console.log(`${file}: ${e.instancePath || "/"} ${e.message}`);
	}
}
process.exit(failed ? 1 : 0);
' "$schema" $files
