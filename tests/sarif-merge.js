// sarif-merge.js OUTDIR RUNS FILE... — gathers the runs of many one-run SARIF logs into logs of at
// most RUNS runs each, so that make check's SARIF validator starts its tools once per log rather
// than once per fixture (about two seconds a start: 378 starts were most of CI's hour).
//
// Why this checks the same thing: the SARIF schema and the validator's rules (SARIF spec and
// GitHub ingestion) judge each run on its own — rule indexes, artifact indexes, URIs and regions
// are run-scoped — and a log's own top level is only $schema, version and runs. So a file whose
// top level is exactly that, with the same $schema and version as the others, is merged; any
// other file (unparsable, other top-level keys, another schema or version, no runs array) is
// validated alone, as it is. RUNS stays within GitHub's limit of 20 runs a file.
//
// Prints the logs to validate, one a line: OUTDIR/merged-N.sarif for each merged log (its members
// listed in OUTDIR/merged-N.members, so a failing log can be validated again file by file to name
// the culprit), or the original path of a file validated alone.
'use strict';
const fs = require('fs');
const path = require('path');

const [outdir, runsArg, ...files] = process.argv.slice(2);
const perLog = Number(runsArg);
if (!outdir || !(perLog >= 1 && perLog <= 20) || files.length === 0) {
	console.error('usage: sarif-merge.js OUTDIR RUNS(1-20) FILE...');
	process.exit(2);
}
fs.mkdirSync(outdir, { recursive: true });

const alone = [];
const groups = []; // { top: {$schema, version}, runs: [], members: [] }
let open = null;
for (const f of files) {
	let log;
	try {
		log = JSON.parse(fs.readFileSync(f, 'utf8'));
	} catch (e) {
		alone.push(f);
		continue;
	}
	const keys = log && typeof log === 'object' && !Array.isArray(log) ? Object.keys(log).sort() : [];
	const mergeable = keys.join(',') === '$schema,runs,version' && Array.isArray(log.runs) &&
		log.runs.length >= 1 && log.runs.length <= perLog;
	if (!mergeable) {
		alone.push(f);
		continue;
	}
	if (open && (open.top.$schema !== log.$schema || open.top.version !== log.version ||
		open.runs.length + log.runs.length > perLog))
		open = null;
	if (!open) {
		open = { top: { $schema: log.$schema, version: log.version }, runs: [], members: [] };
		groups.push(open);
	}
	open.runs.push(...log.runs);
	open.members.push(f);
}

const out = [];
groups.forEach((g, i) => {
	if (g.members.length === 1) { // nothing gained: the file as it is
		out.push(g.members[0]);
		return;
	}
	const base = path.join(outdir, `merged-${i + 1}`);
	fs.writeFileSync(`${base}.sarif`, JSON.stringify({ ...g.top, runs: g.runs }, null, 1));
	fs.writeFileSync(`${base}.members`, g.members.join('\n') + '\n');
	out.push(`${base}.sarif`);
});
process.stdout.write(out.concat(alone).map((f) => f + '\n').join(''));
