// schedlint's language server in VS Code: `schedlint lsp` over standard input and output for the
// YAML and JSON files on disk, through vscode-languageclient. The server learns the inventory
// and the config from its initializationOptions alone ({"nodes": [...], "pods": [...], "config":
// "..."}, paths relative to the first workspace folder; it reads no workspace settings later),
// so the settings go there, and a change to them starts the server again.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

// The settings as the server takes them: only what is set, so that an empty list leaves the
// workspace's .schedlint.yaml in charge.
function initializationOptions(settings) {
  const opts = {};
  for (const key of ['nodes', 'pods']) {
    const v = settings.get(key);
    if (Array.isArray(v) && v.length) opts[key] = v;
  }
  const config = settings.get('config');
  if (config) opts.config = config;
  return opts;
}

async function start() {
  const settings = vscode.workspace.getConfiguration('schedlint');
  const command = settings.get('path') || 'schedlint';
  client = new LanguageClient(
    'schedlint',
    'schedlint',
    { command, args: ['lsp'] },
    {
      documentSelector: [
        { scheme: 'file', language: 'yaml' },
        { scheme: 'file', language: 'json' },
      ],
      initializationOptions: initializationOptions(settings),
    },
  );
  try {
    await client.start();
  } catch (err) {
    client = undefined;
    vscode.window.showErrorMessage(
      `schedlint: cannot start \`${command} lsp\` (${err.message || err}); set schedlint.path to the program.`,
    );
  }
}

async function stop() {
  if (!client) return;
  const c = client;
  client = undefined;
  await c.stop();
}

function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('schedlint')) return;
      await stop();
      await start();
    }),
  );
  return start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate, initializationOptions };
