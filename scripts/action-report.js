#!/usr/bin/env node
// The GitHub Action's view of one schedlint run (action.yml): from the SARIF report that run
// wrote, the findings for the job log, as workflow commands (annotations on the pull request,
// the lines `schedlint --format github` prints) or as compiler-style text, and the job summary, a
// markdown table of the findings. The Action runs schedlint once, and the annotations, the
// summary, the code scanning upload and the exit status all come from that run.
//
// Usage: action-report.js SARIF [--log github|text|none] [--summary FILE] [--exit-code N]
//                                [--fail-on LEVEL] [--max-rows N]
// The summary is appended to FILE ($GITHUB_STEP_SUMMARY); file links point at the commit when
// GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA are set. Exit status 0, or 2 when the
// report cannot be read.
'use strict';
const fs = require('fs');

function args(argv) {
  const o = { log: 'github', summary: '', exitCode: '', failOn: 'error', maxRows: 500, sarif: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => argv[++i];
    if (a === '--log') o.log = v();
    else if (a === '--summary') o.summary = v();
    else if (a === '--exit-code') o.exitCode = v();
    else if (a === '--fail-on') o.failOn = v();
    else if (a === '--max-rows') o.maxRows = Number(v());
    else if (!o.sarif) o.sarif = a;
    else throw new Error('unexpected argument ' + a);
  }
  if (!o.sarif) throw new Error('no SARIF file given');
  return o;
}

// What a terminal or log viewer acts on rather than shows (C0, DEL, C1, the bidirectional
// controls, the line and paragraph separators): written as \xNN or \uNNNN, as schedlint does.
function shownEscaped(cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp === 0x061c || cp === 0x200e || cp === 0x200f ||
    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}
const hex = (cp, n) => cp.toString(16).padStart(n, '0');

// A value for the log; in a workflow command (github, property) also GitHub's %XX for CR, LF and
// '%' (and ':' and ',' in a property), which the runner reads back; "##[" never appears.
function escapeLog(s, github, property) {
  let out = '';
  let prev2 = '', prev1 = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    let e = null;
    if (github && ch === '%') e = '%25';
    else if (github && ch === '\r') e = '%0D';
    else if (github && ch === '\n') e = '%0A';
    else if (github && property && ch === ':') e = '%3A';
    else if (github && property && ch === ',') e = '%2C';
    else if (ch === '\n') e = '\\n';
    else if (ch === '\r') e = '\\r';
    else if (ch === '\t') e = '\\t';
    else if (shownEscaped(cp)) e = cp < 0x80 ? '\\x' + hex(cp, 2) : '\\u' + hex(cp, 4);
    else if (ch === '[' && prev1 === '#' && prev2 === '#') e = '\\x5b';
    out += e === null ? ch : e;
    prev2 = prev1;
    prev1 = ch;
  }
  return out;
}

// A value in a markdown table cell: markdown's punctuation escaped with a backslash, HTML's
// with entities, a line break as <br> (a cell is one line), controls as in the log.
function escapeCell(s) {
  return s
    .split('\n')
    .map((line) =>
      escapeLog(line, false, false)
        .replace(/[\\`*_[\]|~]/g, '\\$&')
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;'))
    .join('<br>');
}

// SARIF's message text is the finding's message, a full stop, then "\n- " and each note of its
// proof (schedlint's sl_finding_text): taken apart again.
function splitMessage(text) {
  const parts = text.split('\n- ');
  let message = parts[0];
  if (message.endsWith('.')) message = message.slice(0, -1);
  return { message, notes: parts.slice(1) };
}

// A physical location as the log shows it: the path relative to the repository root (SARIF's
// SRCROOT, which the runner resolves annotations against), the region's numbers.
function where(loc) {
  const p = loc && loc.physicalLocation;
  if (!p || !p.artifactLocation || typeof p.artifactLocation.uri !== 'string') return null;
  let uri = p.artifactLocation.uri;
  let path;
  if (/^file:/.test(uri)) path = decodeURIComponent(uri.replace(/^file:\/\/[^/]*/, ''));
  else path = decodeURIComponent(uri);
  const r = p.region || {};
  return { path, line: r.startLine || 0, col: r.startColumn || 0, endLine: r.endLine || 0,
    endCol: r.endColumn || 0 };
}

// Every item of the report, in the order of the log: the run's notifications (input errors and
// notes about the input), then its results; suppressed results are left out, as the log leaves
// them out without --show-suppressed.
function items(sarif) {
  const out = [];
  for (const run of sarif.runs || []) {
    const rules = ((run.tool && run.tool.driver && run.tool.driver.rules) || []);
    for (const inv of run.invocations || [])
      for (const n of inv.toolExecutionNotifications || []) {
        // its notes follow as a result's do ("\n- "), without the result's closing period
        const [text, ...notes] = ((n.message && n.message.text) || '').split('\n- ');
        out.push({ level: n.level || 'error', rule: 'schedlint', at: where((n.locations || [])[0]),
          message: text, notes, related: [], help: '' });
      }
    for (const r of run.results || []) {
      if (r.suppressions && r.suppressions.length) continue;
      const { message, notes } = splitMessage((r.message && r.message.text) || '');
      const rule = (r.ruleIndex !== undefined && rules[r.ruleIndex]) || {};
      out.push({
        level: r.level || 'warning',
        rule: r.ruleId || 'schedlint',
        at: where((r.locations || [])[0]),
        message,
        notes,
        related: (r.relatedLocations || []).map((l) => ({ at: where(l), text: (l.message && l.message.text) || '' })),
        help: rule.helpUri || '',
      });
    }
  }
  return out;
}

const command = { error: 'error', warning: 'warning', note: 'notice', none: 'notice' };

function githubLine(it) {
  let props = '';
  if (it.at) {
    props += ' file=' + escapeLog(it.at.path, true, true);
    if (it.at.line) {
      props += `,line=${it.at.line},col=${it.at.col || 1}`;
      if (it.at.endLine >= it.at.line) props += `,endLine=${it.at.endLine},endColumn=${it.at.endCol || 1}`;
    }
    props += ',';
  } else props += ' ';
  props += 'title=' + escapeLog(it.rule, true, true);
  let body = escapeLog(it.message, true, false);
  for (const n of it.notes) body += '%0A' + escapeLog(n, true, false);
  for (const r of it.related) {
    body += '%0A';
    if (r.at) body += escapeLog(r.at.path, true, false) + `:${r.at.line}:${r.at.col}: `;
    body += escapeLog(r.text, true, false);
  }
  return `::${command[it.level] || 'notice'}${props}::${body}`;
}

function position(at) {
  return at ? `${at.path}:${at.line}:${at.col}` : 'schedlint';
}

// Compiler-style lines, as the text report has them: the finding, its proof and related
// locations as notes; no line starts a workflow command.
function textLines(it) {
  const guard = (s) => s.replace(/^(\s*):(?=:)/, '$1\\x3a');
  const at = escapeLog(position(it.at), false, false);
  const lines = [`${at}: ${it.level}: ${escapeLog(it.message, false, false)}` +
    (it.rule !== 'schedlint' ? ` [${it.rule}]` : '')];
  for (const n of it.notes) lines.push(`${at}: note: ${escapeLog(n, false, false)}`);
  for (const r of it.related)
    lines.push(`${escapeLog(position(r.at), false, false)}: note: ${escapeLog(r.text, false, false)}`);
  return lines.map(guard);
}

function blobUrl(at) {
  const e = process.env;
  if (!at || !e.GITHUB_SERVER_URL || !e.GITHUB_REPOSITORY || !e.GITHUB_SHA || /^\//.test(at.path)) return '';
  const path = at.path.split('/').map(encodeURIComponent).join('/');
  return `${e.GITHUB_SERVER_URL}/${e.GITHUB_REPOSITORY}/blob/${e.GITHUB_SHA}/${path}` + (at.line ? `#L${at.line}` : '');
}

const link = (text, url) => (url ? `[${text}](${url.replace(/[()\s]/g, encodeURIComponent)})` : text);

function summary(list, o) {
  const count = (l) => list.filter((it) => it.level === l).length;
  const plural = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;
  let md = '### schedlint\n\n';
  md += `${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('note'), 'note')}`;
  if (o.exitCode !== '') {
    const why = { 0: 'nothing at or above', 1: 'findings at or above', 2: 'a usage or input error; fail-on' };
    md += `; exit status ${o.exitCode} (${why[o.exitCode] || 'fail-on'} \`${o.failOn}\`)`;
  }
  md += '\n\n';
  if (!list.length) return md + 'No findings.\n';
  md += '| Location | Level | Rule | Message |\n|---|---|---|---|\n';
  const shown = list.slice(0, o.maxRows);
  for (const it of shown) {
    const loc = it.at ? link(escapeCell(it.at.line ? `${it.at.path}:${it.at.line}` : it.at.path), blobUrl(it.at)) : '';
    md += `| ${loc} | ${it.level} | ${link(escapeCell(it.rule), it.help)} | ${escapeCell(it.message)} |\n`;
  }
  if (list.length > shown.length)
    md += `\n${list.length - shown.length} more in the job log and the SARIF report.\n`;
  return md;
}

function main() {
  let o;
  try {
    o = args(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`action-report: ${e.message}\n`);
    return 2;
  }
  let list;
  try {
    list = items(JSON.parse(fs.readFileSync(o.sarif, 'utf8')));
  } catch (e) {
    process.stderr.write(`action-report: cannot read ${o.sarif}: ${e.message}\n`);
    return 2;
  }
  const out = [];
  for (const it of list) {
    if (o.log === 'github') out.push(githubLine(it));
    else if (o.log === 'text') out.push(...textLines(it));
  }
  if (out.length) process.stdout.write(out.join('\n') + '\n');
  if (o.summary) fs.appendFileSync(o.summary, summary(list, o));
  return 0;
}

module.exports = { escapeCell, escapeLog, splitMessage, summary, items };
if (require.main === module) process.exitCode = main();
