#!/usr/bin/env node
/*
 * compare.js: which ruff diagnostics does a fixed file have that its input did
 * not?  Runs the pinned ruff (@astral-sh/ruff-wasm-nodejs, tests/ruff/
 * package-lock.json, installed by `npm ci` in tests/ruff) over both texts of
 * each pair and prints, for the fixed one, the new diagnostics as
 * PATH:ROW:COL: CODE MESSAGE.  Exits 1 when a pair has any, 2 on a usage or
 * read error, 0 otherwise.
 *
 *   node tests/ruff/compare.js [OPTIONS] INPUT FIXED LINE-LENGTH [INPUT FIXED LINE-LENGTH...]
 *   node tests/ruff/compare.js [OPTIONS] --pairs FILE      (FILE or - : JSON lines)
 *
 * A line of --pairs is {"input": PATH, "fixed": PATH, "line_length": N,
 * "label": TEXT, "isort": {ruff's lint.isort settings}}; label and isort are
 * optional.  Options:
 *   --select CODES  the codes compared, comma-separated codes or prefixes
 *                   (default I001,E501; E,F,W,I for a report)
 *   --json          one JSON object per pair instead of the text lines
 *   --quiet         no summary line on standard error
 *
 * How "new" is decided:
 * - E501 (line too long) is compared line by line: an over-long line of the
 *   fixed text is new unless the input has an over-long line with exactly the
 *   same text (line ending excluded; each input line covers one fixed line).
 *   A line the fix rewrote is new even where the input's line was long too:
 *   the fix wrote it, so it should keep within the limit.  Lines are always at
 *   hand, so E501 never falls back to counts.
 * - Every other code (I001 reports a whole import block, whose text a fix
 *   changes when it adds an import) is compared by counts: more diagnostics of
 *   a code in the fixed text than in the input are new ones.  Those printed
 *   are the fixed text's diagnostics of that code that have no twin (same
 *   message, same line text) in the input.
 * - ruff's invalid-syntax is always compared (by counts), whatever --select:
 *   a text ruff cannot parse has no honest I001 or E501 answer.
 * A leading byte-order mark is dropped before ruff reads a text, as ruff does
 * for a file; a text that is not UTF-8 is read as Latin-1 (both of a pair).
 */
'use strict';

const fs = require('fs');
const path = require('path');

let ruff;
try {
	ruff = require(path.join(__dirname, 'node_modules', '@astral-sh', 'ruff-wasm-nodejs'));
} catch (e) {
	process.stderr.write('compare.js: the pinned ruff is not installed: run `npm ci` in tests/ruff ' +
		'(make lint-fixes does)\n' + String(e.message) + '\n');
	process.exit(2);
}
const { Workspace, PositionEncoding } = ruff;

const DEFAULT_SELECT = ['I001', 'E501'];
const SYNTAX = 'invalid-syntax';

function usage(msg) {
	if (msg)
		process.stderr.write(`compare.js: ${msg}\n`);
	process.stderr.write('usage: compare.js [--select CODES] [--json] [--quiet] ' +
		'(INPUT FIXED LINE-LENGTH)... | --pairs FILE\n');
	process.exit(2);
}

function parseArgs(argv) {
	const opts = { select: DEFAULT_SELECT, json: false, quiet: false, pairs: [] };
	const rest = [];
	let pairsFile = null;
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--select' || a === '--pairs') {
			if (i + 1 >= argv.length)
				usage(`${a} needs a value`);
			if (a === '--select')
				opts.select = argv[++i].split(',').map(s => s.trim()).filter(Boolean);
			else
				pairsFile = argv[++i];
		} else if (a === '--json') {
			opts.json = true;
		} else if (a === '--quiet') {
			opts.quiet = true;
		} else if (a === '--help' || a === '-h') {
			usage();
		} else if (a.startsWith('--')) {
			usage(`unknown option ${a}`);
		} else {
			rest.push(a);
		}
	}
	if (rest.length % 3)
		usage('pairs come as INPUT FIXED LINE-LENGTH');
	for (let i = 0; i < rest.length; i += 3)
		opts.pairs.push({ input: rest[i], fixed: rest[i + 1], line_length: Number(rest[i + 2]) });
	if (pairsFile !== null) {
		const text = fs.readFileSync(pairsFile === '-' ? 0 : pairsFile, 'utf8');
		text.split('\n').forEach((line, n) => {
			if (!line.trim())
				return;
			let p;
			try {
				p = JSON.parse(line);
			} catch (e) {
				usage(`${pairsFile}:${n + 1}: not JSON: ${e.message}`);
			}
			opts.pairs.push(p);
		});
	}
	if (!opts.select.length)
		usage('--select needs at least one code');
	for (const p of opts.pairs) {
		if (typeof p.input !== 'string' || typeof p.fixed !== 'string')
			usage('a pair needs an input and a fixed path');
		if (!Number.isInteger(p.line_length) || p.line_length < 1 || p.line_length > 320)
			usage(`${p.fixed}: line length ${p.line_length} is not a whole number from 1 to 320`);
	}
	return opts;
}

/* The texts of a pair, decoded alike: UTF-8 if both are, else Latin-1. */
function readPair(p) {
	const raw = [fs.readFileSync(p.input), fs.readFileSync(p.fixed)];
	let enc = 'utf-8';
	try {
		const dec = new TextDecoder('utf-8', { fatal: true });
		raw.forEach(b => dec.decode(b));
	} catch (e) {
		enc = 'latin1';
	}
	return raw.map(b => {
		const t = new TextDecoder(enc).decode(b);
		return t.charCodeAt(0) === 0xfeff ? t.slice(1) : t;
	});
}

/* One workspace per distinct settings (line length, isort settings). */
function workspaceFor(cache, select, p) {
	const settings = { 'line-length': p.line_length, lint: { select } };
	if (p.isort && Object.keys(p.isort).length)
		settings.lint.isort = p.isort;
	const key = JSON.stringify(settings);
	if (!cache.has(key))
		cache.set(key, new Workspace(settings, PositionEncoding.Utf16));
	return cache.get(key);
}

function selected(select, code) {
	return code === SYNTAX || select.some(s => code === s || (code && code.startsWith(s)));
}

function lineOf(lines, row) {
	return row >= 1 && row <= lines.length ? lines[row - 1] : '';
}

/* The fixed text's diagnostics that are new (see the top of this file). */
function newDiagnostics(select, before, after, inLines, outLines) {
	const byCode = new Map();
	const add = (code, which, d) => {
		if (!byCode.has(code))
			byCode.set(code, { input: [], fixed: [] });
		byCode.get(code)[which].push(d);
	};
	before.filter(d => selected(select, d.code)).forEach(d => add(d.code, 'input', d));
	after.filter(d => selected(select, d.code)).forEach(d => add(d.code, 'fixed', d));
	const out = { counts: {}, added: {} };
	for (const [code, { input, fixed }] of [...byCode].sort((a, b) => a[0] < b[0] ? -1 : 1)) {
		out.counts[code] = [input.length, fixed.length];
		const perLine = code === 'E501';
		const keyIn = d => (perLine ? '' : d.message) + '\n' + lineOf(inLines, d.start_location.row);
		const keyOut = d => (perLine ? '' : d.message) + '\n' + lineOf(outLines, d.start_location.row);
		const left = new Map();
		for (const d of input)
			left.set(keyIn(d), (left.get(keyIn(d)) || 0) + 1);
		const unmatched = [];
		for (const d of fixed) {
			const k = keyOut(d);
			if (left.get(k))
				left.set(k, left.get(k) - 1);
			else
				unmatched.push(d);
		}
		const n = perLine ? unmatched.length : Math.max(0, fixed.length - input.length);
		if (n)
			out.added[code] = { count: n, diagnostics: unmatched };
	}
	return out;
}

function main() {
	const opts = parseArgs(process.argv.slice(2));
	const cache = new Map();
	let failing = 0;
	const totals = {};
	for (const p of opts.pairs) {
		let texts;
		try {
			texts = readPair(p);
		} catch (e) {
			process.stderr.write(`compare.js: ${e.message}\n`);
			process.exit(2);
		}
		const ws = workspaceFor(cache, opts.select, p);
		const [inText, outText] = texts;
		const res = newDiagnostics(opts.select, ws.check(inText), ws.check(outText),
			inText.split(/\r\n|\r|\n/), outText.split(/\r\n|\r|\n/));
		const codes = Object.keys(res.added);
		if (codes.length)
			failing++;
		for (const c of codes)
			totals[c] = (totals[c] || 0) + res.added[c].count;
		const name = p.label || p.fixed;
		if (opts.json) {
			const added = {};
			for (const c of codes) {
				added[c] = {
					count: res.added[c].count,
					diagnostics: res.added[c].diagnostics.map(d => ({
						row: d.start_location.row, column: d.start_location.column, message: d.message,
					})),
				};
			}
			process.stdout.write(JSON.stringify({
				label: name, input: p.input, fixed: p.fixed, line_length: p.line_length,
				counts: res.counts, new: added,
			}) + '\n');
			continue;
		}
		for (const c of codes) {
			const { count, diagnostics } = res.added[c];
			if (count !== diagnostics.length)
				process.stdout.write(`${name}: ${c}: ${count} more than the input's ` +
					`${res.counts[c][0]}; those without a twin in the input:\n`);
			for (const d of diagnostics)
				process.stdout.write(`${name}:${d.start_location.row}:${d.start_location.column}: ` +
					`${c} ${d.message}\n`);
		}
	}
	if (!opts.quiet) {
		const what = Object.keys(totals).sort().map(c => `${totals[c]} ${c}`).join(', ');
		process.stderr.write(`compare.js: ruff ${Workspace.version()}, ${opts.pairs.length} pairs, ` +
			`${failing} with new diagnostics${what ? ` (${what})` : ''}; selected ${opts.select.join(',')}\n`);
	}
	process.exit(failing ? 1 : 0);
}

main();
