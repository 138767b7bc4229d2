// editors/vscode/extension.js without VS Code (tests/run-editors.sh): `vscode` and
// vscode-languageclient replaced by stand-ins that record what the extension asks of them, its
// activate() run with settings, and the initializationOptions it would send given to the real
// `schedlint lsp` in an initialize request, which must answer with its capabilities (the server
// refuses options it does not take). Prints one "vscode: ..." line per fact; exit status 0.
// Usage: node vscode-extension.js EXTENSION_DIR SCHEDLINT WORKSPACE
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');
const { spawn } = require('child_process');

const [extDir, schedlint, workspace] = process.argv.slice(2);
const say = (s) => console.log('vscode: ' + s);
const pkg = JSON.parse(fs.readFileSync(path.join(extDir, 'package.json'), 'utf8'));
const declared = Object.keys(pkg.contributes.configuration.properties);

let settings = {};
const read = new Set();
const clients = [];
const vscode = {
  workspace: {
    getConfiguration(section) {
      return {
        get(key) {
          read.add(section + '.' + key);
          return settings[key] !== undefined ? settings[key] : pkg.contributes.configuration.properties[section + '.' + key].default;
        },
      };
    },
    onDidChangeConfiguration(fn) {
      vscode.changed = fn;
      return { dispose() {} };
    },
  },
  window: { showErrorMessage: (m) => say('error message: ' + m) },
};
class LanguageClient {
  constructor(id, name, server, client) {
    this.args = { id, name, server, client };
    clients.push(this);
  }
  start() {
    this.started = true;
    return Promise.resolve();
  }
  stop() {
    this.stopped = true;
    return Promise.resolve();
  }
}
const stubs = { vscode, 'vscode-languageclient/node': { LanguageClient } };
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return stubs[request] ? request : resolve.call(this, request, ...rest);
};
for (const [name, exports] of Object.entries(stubs)) {
  const m = new Module(name);
  m.exports = exports;
  m.loaded = true;
  Module._cache[name] = m;
}

// One initialize request to the real server with these options: its answer.
function initialize(opts) {
  return new Promise((done) => {
    const p = spawn(schedlint, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buf = Buffer.alloc(0);
    const send = (msg) => {
      const body = Buffer.from(JSON.stringify(msg));
      p.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
      p.stdin.write(body);
    };
    p.stdout.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = +/Content-Length: (\d+)/i.exec(buf.slice(0, head).toString())[1];
      if (buf.length < head + 4 + len) return;
      const msg = JSON.parse(buf.slice(head + 4, head + 4 + len).toString());
      buf = buf.slice(head + 4 + len);
      if (msg.id === 1) {
        send({ jsonrpc: '2.0', id: 2, method: 'shutdown' });
        send({ jsonrpc: '2.0', method: 'exit' });
        p.on('exit', (code) => done({ msg, code }));
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { processId: process.pid, rootUri: 'file://' + workspace, capabilities: {}, initializationOptions: opts },
    });
  });
}

(async () => {
  const ext = require(path.resolve(extDir, pkg.main));
  say('activation events ' + pkg.activationEvents.join(' '));
  const cases = [
    ['defaults', {}],
    ['inventory', { path: schedlint, nodes: ['nodes.yaml'], pods: [], config: '' }],
  ];
  for (const [name, s] of cases) {
    settings = s;
    clients.length = 0;
    await ext.activate({ subscriptions: [] });
    const c = clients[0];
    say(`${name}: ${c.args.server.command} ${c.args.server.args.join(' ')}; languages ` +
      c.args.client.documentSelector.map((d) => d.language).join(' ') +
      `; initializationOptions ${JSON.stringify(c.args.client.initializationOptions)}; started ${!!c.started}`);
    const { msg, code } = await initialize(c.args.client.initializationOptions);
    say(`${name}: the server answers ${msg.result ? 'with capabilities' : 'an error: ' + JSON.stringify(msg.error)}` +
      `; exit status ${code}`);
  }
  // The check can fail: options the server does not take are refused.
  const refused = await initialize({ nodes: 5 });
  say(`nodes 5: the server answers ${refused.msg.result ? 'with capabilities' : 'an error'}`);
  // A change of the settings restarts the client with the new options.
  settings = { nodes: ['cluster/nodes.yaml'] };
  const before = clients[clients.length - 1];
  await vscode.changed({ affectsConfiguration: (s) => s === 'schedlint' });
  const after = clients[clients.length - 1];
  say(`settings changed: old stopped ${!!before.stopped}, new started ${after !== before && !!after.started} ` +
    `with ${JSON.stringify(after.args.client.initializationOptions)}`);
  await ext.deactivate();
  const undeclared = [...read].filter((k) => !declared.includes(k));
  say('settings read but not declared in package.json: ' + (undeclared.join(' ') || 'none'));
  const unread = declared.filter((k) => !read.has(k));
  say('settings declared but never read: ' + (unread.join(' ') || 'none'));
})().catch((e) => {
  say('failed: ' + (e.stack || e));
  process.exit(1);
});
