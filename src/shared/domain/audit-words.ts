import type { AuditedMethod } from './audit';

/** What kind of run an audit row is, in a person's words (Activity's rows and the CSV export). */
export const AUDIT_METHOD_WORDS: Record<AuditedMethod, string> = {
  'sessions.execute': 'Code',
  'sessions.runCommand': 'Command',
  'sessions.runFile': 'File',
  'packages.install': 'Install',
  'packages.check': 'Package check',
  'changes.apply': 'Changes applied',
  'changes.discard': 'Changes discarded',
  'processes.start': 'Process',
  'previews.open': 'Preview',
};

/** How a run ended, in plain words. */
export const RUN_STATUS_WORDS: Record<string, string> = {
  running: 'Running',
  ok: 'Finished',
  error: 'Failed',
  timeout: 'Took too long',
  interrupted: 'Interrupted',
  oom: 'Ran out of memory',
  killed: 'Stopped',
  failed: 'Could not run',
  denied: 'Denied',
};

/** How the assistant or person reached Sandpit for a run. */
export const TRANSPORT_WORDS: Record<string, string> = {
  'mcp-http': 'connected while Sandpit runs',
  'mcp-stdio': 'over stdio: it started "sandpit mcp"',
  http: 'the web panel',
  ipc: 'this app',
  rest: 'the simple web interface',
  internal: 'Sandpit itself',
};
