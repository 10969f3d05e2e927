// The VS Code side of `rebirth lsp`: start the server over stdio for .rules files. Everything the editor
// shows (problems and their quick fixes, hovers, completions, definitions, rename, references, the outline,
// semantic tokens, signature help, folding, inlay hints, formatting) comes from the server, whose
// capabilities the client reads at start; this file only launches it.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate() {
  const config = vscode.workspace.getConfiguration("rebirth");
  const [command, ...args] = config.get("command", ["rebirth", "lsp"]);
  client = new LanguageClient(
    "rebirth",
    "Rebirth rules",
    { command, args },
    {
      documentSelector: [
        { scheme: "file", language: "rebirth" },
        { scheme: "untitled", language: "rebirth" },
      ],
      // a changed `rebirth.board` is sent to the server, which checks the open files again
      synchronize: { configurationSection: "rebirth" },
      initializationOptions: { rebirth: { board: config.get("board", "") } },
    },
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
