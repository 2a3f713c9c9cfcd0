// The extension's only job: start `ptxdbg dap` (the adapter speaks DAP on stdio) for sessions of
// type "ptxdbg". Everything else (launch, stepping both ways, variables) is the adapter's.
const vscode = require('vscode');

function activate(context) {
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('ptxdbg', {
    createDebugAdapterDescriptor() {
      const command = vscode.workspace.getConfiguration('ptxdbg').get('path') || 'ptxdbg';
      return new vscode.DebugAdapterExecutable(command, ['dap']);
    },
  }));
}

function deactivate() {}

module.exports = { activate, deactivate };
